//! A document after the `prepare` step: checked, redacted and chunked, waiting for the
//! vectors of its new chunks (see [`crate::write::prepare`]).

use std::collections::BTreeSet;

use crate::archive::chunk::Span;
use crate::archive::manifest::Manifest;
use crate::pii::Sealed;
use crate::store::partition::Partition;

/// A checked, redacted, chunked document waiting for the vectors of its new chunks.
#[derive(Debug, Clone)]
pub(crate) struct ReadyDocument {
    pub(crate) id: String,
    pub(crate) tags: Vec<String>,
    pub(crate) manifest: Manifest,
    /// The redacted text the spans cut.
    pub(crate) text: String,
    pub(crate) spans: Vec<Span>,
    /// The record id of each span's chunk.
    pub(crate) ids: Vec<String>,
    pub(crate) sealed: Vec<Sealed>,
    /// Vectors of chunks, by span (filled by `commit`).
    pub(crate) vectors: Vec<Option<Vec<f32>>>,
}

impl ReadyDocument {
    /// The text of chunk `i`.
    pub(crate) fn chunk_text(&self, i: usize) -> &str {
        let s = self.spans[i];
        &self.text[s.start..s.end]
    }

    /// The chunks that are not stored yet with this text (so need vectors), by span index:
    /// each distinct chunk once.
    pub(crate) fn new_chunks(&self, part: Option<&Partition>) -> Vec<usize> {
        let mut seen = BTreeSet::new();
        (0..self.spans.len())
            .filter(|&i| seen.insert(self.ids[i].as_str()))
            .filter(|&i| !part.and_then(|p| p.get(&self.ids[i])).is_some_and(|r| r.is_current() && r.text == self.chunk_text(i)))
            .collect()
    }
}
