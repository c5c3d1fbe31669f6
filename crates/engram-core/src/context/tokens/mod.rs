//! Token budgeting: exact tiktoken counts when a rank table is loaded, a conservative
//! estimate until then, and truncation that never splits a character.

pub mod bpe;
pub mod heuristic;
pub mod pretokenize;
pub mod table;

use std::sync::Arc;

pub use bpe::Bpe;
pub use pretokenize::Encoding;
pub use table::RankTable;

/// A count and whether it is exact (a table was loaded) or an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TokenCount {
    pub tokens: usize,
    pub exact: bool,
}

/// The tokenizer the engine budgets with: exact when a table is loaded.
#[derive(Debug, Clone, Default)]
pub enum Tokenizer {
    /// Exact counts from a loaded rank table.
    Exact(Arc<Bpe>),
    /// The estimator of [`heuristic`]; safe, not exact.
    #[default]
    Heuristic,
}

impl Tokenizer {
    /// Count the tokens of `text`.
    pub fn count(&self, text: &str) -> TokenCount {
        match self {
            Tokenizer::Exact(b) => TokenCount { tokens: b.count(text), exact: true },
            Tokenizer::Heuristic => TokenCount { tokens: heuristic::estimate(text), exact: false },
        }
    }

    /// The longest prefix within `max_tokens`, on a character boundary, with its count.
    pub fn truncate<'a>(&self, text: &'a str, max_tokens: usize) -> (&'a str, usize) {
        match self {
            Tokenizer::Exact(b) => b.truncate(text, max_tokens),
            Tokenizer::Heuristic => heuristic::truncate(text, max_tokens),
        }
    }

    /// A prefix length of a text, in bytes, that certainly holds more than `max_tokens`
    /// tokens (`usize::MAX` for the estimate, which scans only what it needs anyway):
    /// truncating a long word to `max_tokens` need not look further.
    pub fn window(&self, max_tokens: usize) -> usize {
        match self {
            Tokenizer::Exact(b) => b.window(max_tokens),
            Tokenizer::Heuristic => usize::MAX,
        }
    }

    /// True when counts are exact.
    pub fn is_exact(&self) -> bool {
        matches!(self, Tokenizer::Exact(_))
    }
}
