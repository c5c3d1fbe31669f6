//! # engram-wasm
//!
//! The WebAssembly binding of `engram-core`, and nothing more: no algorithms, no IO, no
//! async. State lives behind handles ([`Engine`], [`Tokenizer`]); vectors cross as
//! `Float32Array`, snapshots and ops as `Uint8Array`, results as small plain objects.
//! Every core error becomes a JS `Error` named `EngramError` with a stable `code`.
//! The npm package `engram` (in `pkg/`) wraps this in an async, IO-owning SDK.

mod archive;
mod embedder;
mod engine;
mod error;
mod frames;
mod knowledge;
mod opaque;
mod tokens;
mod write;

pub use embedder::{BertEmbedder, StaticEmbedder};
pub use engine::Engine;
pub use error::CODES as ERROR_CODES;
pub use tokens::Tokenizer;
