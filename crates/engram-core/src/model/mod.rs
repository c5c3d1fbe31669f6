//! The memory model: scopes, records and the inputs of the write path.

pub mod input;
pub mod limits;
pub mod record;
pub mod scope;

pub use input::{MemoryInput, WriteAction, WriteOutcome};
pub use record::{FactKey, Kind, Layer, Record, Sensitivity, Source};
pub use scope::{Scope, UserKey, LIBRARY_USER, PROCEDURES_USER};
