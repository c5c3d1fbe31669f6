//! # engram-wasm
//!
//! The WebAssembly binding of `engram-core`, and nothing more: no algorithms, no IO, no
//! async. State lives behind handles ([`EngramHandle`], [`Tokenizer`]); vectors cross as
//! `Float32Array`, snapshots and ops as `Uint8Array`, results as small plain objects.
//! Every core error becomes a JS `Error` named `EngramError` with a stable `code`.
//! The npm package `engram` (in `pkg/`) wraps this in an async, IO-owning SDK.

mod archive;
mod bytes;
mod consolidate;
mod context;
mod embedder;
mod error;
mod frames;
mod handle;
mod knowledge;
mod opaque;
mod procedures;
mod profile;
mod read;
mod store;
mod sync;
mod tokens;
mod write;

pub use embedder::{BertEmbedder, StaticEmbedder};
pub use handle::EngramHandle;
pub use error::CODES as ERROR_CODES;
pub use tokens::Tokenizer;
