//! A document record's text: its title, source, metadata, chunk budget and chunk list, one
//! field per line (backslash, newline and carriage return escaped), then one line per chunk
//! — the suffix of its record id and its overlap in bytes. Readable in any view of the
//! records, and parsed only here.

use crate::error::{Error, Result};

const MAGIC: &str = "engram-document 1";

/// What a document record says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Manifest {
    pub title: String,
    pub source: String,
    pub metadata: String,
    pub chunk_tokens: usize,
    pub chunk_overlap: usize,
    /// Per chunk, in order: the suffix of its record id (`c/<doc>/<suffix>`) and its overlap.
    pub chunks: Vec<(String, usize)>,
}

impl Manifest {
    /// The record text.
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(64 + self.chunks.len() * 24);
        for line in [MAGIC, &escape(&self.title), &escape(&self.source), &escape(&self.metadata)] {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("{} {}\n", self.chunk_tokens, self.chunk_overlap));
        for (suffix, overlap) in &self.chunks {
            out.push_str(&format!("{suffix} {overlap}\n"));
        }
        out
    }

    /// Parse a record text made by [`Manifest::encode`].
    pub fn decode(text: &str) -> Result<Manifest> {
        let bad = |reason: &str| Error::Decode { what: "document", reason: reason.to_owned() };
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(bad("not a document record"));
        }
        let mut field = || lines.next().map(unescape).ok_or_else(|| bad("missing field"));
        let (title, source, metadata, budget) = (field()?, field()?, field()?, field()?);
        let (t, o) = budget.split_once(' ').ok_or_else(|| bad("no chunk budget"))?;
        let num = |s: &str| s.parse::<usize>().map_err(|_| bad("bad number"));
        let mut m = Manifest { title, source, metadata, chunk_tokens: num(t)?, chunk_overlap: num(o)?, chunks: Vec::new() };
        for line in lines {
            let (suffix, overlap) = line.split_once(' ').ok_or_else(|| bad("bad chunk line"))?;
            m.chunks.push((suffix.to_owned(), num(overlap)?));
        }
        Ok(m)
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_manifest_reads_back_as_written(title in "\\PC*", source in ".*", metadata in "[\\\\\n\r a-z{}\":]*", chunks in proptest::collection::vec(("[0-9a-f]{16}(-[0-9])?", 0usize..999), 0..20)) {
            let m = Manifest { title, source, metadata, chunk_tokens: 256, chunk_overlap: 32, chunks };
            prop_assert_eq!(Manifest::decode(&m.encode()).unwrap(), m);
        }
    }

    #[test]
    fn a_text_that_is_not_a_manifest_is_a_decode_error() {
        assert_eq!(Manifest::decode("hello").map_err(|e| e.code()), Err("DECODE"));
        assert_eq!(Manifest::decode("engram-document 1\nt\ns\nm\nx y\n").map_err(|e| e.code()), Err("DECODE"));
    }
}
