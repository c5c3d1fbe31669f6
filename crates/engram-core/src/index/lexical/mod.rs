//! The lexical channel: BM25 over words and CJK bigrams.

pub mod bm25;
pub mod terms;

pub use bm25::{Bm25, Scores};
