//! # engram-core
//!
//! A pure, deterministic memory engine for AI agents. It stores memories per user,
//! recalls them by meaning (vectors), words (BM25) and fact keys, weighs them by
//! importance and age, and packs them into a prompt under an exact token budget, framed
//! as untrusted data. It never does IO: time, replica ids and bytes are passed in, and
//! state leaves as a snapshot and a stream of ops. The same engine runs in a browser tab,
//! in Node, in a Cloudflare Worker (through `engram-wasm`) and on the origin server.
//!
//! ```
//! use engram_core::{Config, ContextRequest, Engram, MemoryInput, Scope, Turn};
//! let mut mem = Engram::new(Config::default(), 42);
//! let chat = Scope::user("acme", "zhang-san").with_session("s1");
//! let t0 = 1_764_000_000_000;
//! mem.remember(&chat, MemoryInput::fact("Zhang San prefers Python").with_key("zhang san", "preferred language"), t0).unwrap();
//! mem.append_turn(&chat, Turn::user("Which language should I use for the new service?"), t0).unwrap();
//! let ctx = mem.build_context(&chat, &ContextRequest::new("Which language should I use?", 900), t0).unwrap();
//! assert!(ctx.text.contains("prefers Python") && ctx.tokens <= 900);
//! ```
//!
//! ## Names
//!
//! [`Engram`] is one replica's memory (every user's records, sessions and graph); the SDK's
//! `Engram` class owns one through the wasm binding, whose handle class is `EngramHandle`.
//! The [`engram`] module holds only its state; its methods live in the folders named by what
//! happens to a memory (docs/architecture.md): [`write`] (the pipeline in), [`store`] (a
//! [partition](store::partition) is one user's state and merges that user's ops, a
//! [session](store::session) one conversation's working memory, an [op](store::ops) one
//! replicated change), [`read`] (recall), [`index`], [`context`] (the prompt under a token
//! budget), [`extract`] (what a user says about themselves, kept as facts), [`knowledge`] (the graph), [`procedures`] (the tenant's rules), [`consolidate`] and [`sync`]. A
//! [frame](codec::frames) is one sync message, a snapshot the whole state as bytes.

#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(unsafe_code)]

pub mod archive;
pub mod calendar;
pub mod codec;
pub mod config;
pub mod consolidate;
pub mod context;
pub mod embed;
pub mod engram;
pub mod error;
pub mod extract;
pub mod hlc;
pub mod index;
pub mod knowledge;
pub mod model;
pub mod pii;
pub mod procedures;
pub mod profile;
pub mod read;
pub mod router;
pub mod sort;
mod statements;
pub mod store;
pub mod sync;
pub mod text;
pub mod write;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod no_os_random;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use archive::{ChunkHit, Document, DocumentInput};
pub use codec::{decode_ops, encode_ops, split_ops, ByteSink, ByteSource};
pub use config::{ChannelWeights, Config};
pub use context::build::{Context, ContextRequest};
pub use context::tokens::{Bpe, Encoding, RankTable, TokenCount, Tokenizer};
pub use engram::{EmbedderInfo, Engram, ListFilter};
pub use error::{Error, ErrorClass, Result};
pub use hlc::{Hlc, Millis, Stamp};
pub use index::vector::Precision;
pub use procedures::{Procedure, ProcedureInput};
pub use model::{FactKey, Kind, Layer, MemoryInput, Record, Scope, Sensitivity, Source, UserKey, WriteAction, WriteOutcome, LIBRARY_USER, PROCEDURES_USER};
pub use read::decay::Decay;
pub use read::recall::{Hit, Recall, RecallQuery, RouteName, ScoreParts};
pub use store::ops::{Op, OpBody};
pub use store::working::Turn;
pub use sync::merge::Applied;
pub use write::prepare::{Committed, Prepared, WriteBatch};
pub use write::resolution::{reliability, ConflictPolicy, Resolution};

/// The README's quick example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
