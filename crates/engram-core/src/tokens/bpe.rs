//! Byte-pair encoding with tiktoken's exact semantics, over a [`RankTable`].
//!
//! Pre-tokenization follows tiktoken's published patterns exactly, as hand-written
//! scanners (see `pretokenize`). Parity with tiktoken is checked on a multilingual corpus
//! by `engram-testkit` and by the SDK's tests against js-tiktoken.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::tokens::pretokenize::{next_piece, Encoding};
use crate::tokens::table::RankTable;

/// A ready-to-use BPE tokenizer: a rank table and its pre-tokenizer.
#[derive(Debug)]
pub struct Bpe {
    encoding: Encoding,
    table: RankTable,
    /// Token counts of recently seen pieces that are not single tokens (the expensive
    /// ones: they need the merge loop). Bounded; cleared when full.
    merged: Mutex<FxHashMap<Box<[u8]>, u32>>,
}

const MERGE_CACHE_LIMIT: usize = 1 << 15;

impl Bpe {
    /// Combine a loaded table with its encoding's pre-tokenizer. The table's name must match.
    pub fn new(table: RankTable) -> Result<Self> {
        let encoding = Encoding::from_name(table.name())?;
        if (0u8..=255).any(|b| table.rank(&[b]).is_none()) {
            return Err(Error::TokenTable("every single byte must be a token".into()));
        }
        Ok(Bpe { encoding, table, merged: Mutex::new(FxHashMap::default()) })
    }

    /// Load a table file (see [`RankTable::from_bytes`]) and build the tokenizer.
    pub fn from_table_bytes(bytes: &[u8]) -> Result<Self> {
        Self::new(RankTable::from_bytes(bytes)?)
    }

    /// Which encoding this is.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The rank table.
    pub fn table(&self) -> &RankTable {
        &self.table
    }

    /// Pre-tokenized pieces as byte ranges into `text`.
    pub fn pieces<'a>(&'a self, text: &'a str) -> Pieces<'a> {
        Pieces { encoding: self.encoding, text, pos: 0 }
    }

    /// Token ids, as tiktoken's `encode_ordinary` (special tokens are plain text).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3 + 1);
        let mut parts = Vec::new();
        for (s, e) in self.pieces(text) {
            self.encode_piece(&text.as_bytes()[s..e], &mut parts, &mut out);
        }
        out
    }

    /// The number of tokens `encode` would return, without building the list.
    pub fn count(&self, text: &str) -> usize {
        let mut parts = Vec::new();
        self.pieces(text).map(|(s, e)| self.count_piece(&text.as_bytes()[s..e], &mut parts)).sum()
    }

    /// Count several texts.
    pub fn count_many<S: AsRef<str>>(&self, texts: &[S]) -> Vec<usize> {
        texts.iter().map(|t| self.count(t.as_ref())).collect()
    }

    /// Bytes of the given tokens, concatenated.
    pub fn decode_bytes(&self, tokens: &[u32]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for &t in tokens {
            if t as usize >= self.table.len() {
                return Err(Error::invalid("tokens", format!("{t} is not an ordinary token of {}", self.encoding.name())));
            }
            out.extend_from_slice(self.table.token(t));
        }
        Ok(out)
    }

    /// The longest prefix of `text` that is at most `max_tokens` tokens, ending on a
    /// character boundary (so never inside a UTF-8 sequence or a UTF-16 surrogate pair),
    /// with its exact token count.
    pub fn truncate<'a>(&self, text: &'a str, max_tokens: usize) -> (&'a str, usize) {
        let mut used = 0usize;
        let mut parts = Vec::new();
        let mut toks = Vec::new();
        for (s, e) in self.pieces(text) {
            let piece = &text.as_bytes()[s..e];
            toks.clear();
            self.encode_piece(piece, &mut parts, &mut toks);
            if used + toks.len() <= max_tokens {
                used += toks.len();
                continue;
            }
            // The budget ends inside this piece: keep whole tokens, then back off to a
            // character boundary, and confirm the count of what we return.
            let mut end = s;
            for &t in &toks[..max_tokens - used] {
                end += self.table.token(t).len();
            }
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            loop {
                let prefix = &text[..end];
                let n = self.count(prefix);
                if n <= max_tokens {
                    return (prefix, n);
                }
                // Re-tokenizing a cut piece can, rarely, cost more; shrink by one character.
                end = prefix.char_indices().next_back().map_or(0, |(i, _)| i);
            }
        }
        (text, used)
    }

    fn encode_piece(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>, out: &mut Vec<u32>) {
        if let Some(r) = self.table.rank(piece) {
            out.push(r);
            return;
        }
        self.merge(piece, parts);
        for w in parts.windows(2) {
            // Every merged part is a token by construction; single bytes are all in the table.
            if let Some(r) = self.table.rank(&piece[w[0].0..w[1].0]) {
                out.push(r);
            }
        }
    }

    fn count_piece(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>) -> usize {
        if self.table.rank(piece).is_some() {
            return 1;
        }
        let mut cache = match self.merged.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(&n) = cache.get(piece) {
            return n as usize;
        }
        self.merge(piece, parts);
        let n = parts.len() - 1;
        if cache.len() >= MERGE_CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(piece.into(), n as u32);
        n
    }

    /// tiktoken's `_byte_pair_merge`: repeatedly merge the adjacent pair of lowest rank.
    /// Leaves `(start, rank-of-pair-starting-here)` boundaries in `parts`.
    fn merge(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>) {
        parts.clear();
        let rank_of = |a: usize, b: usize| self.table.rank(&piece[a..b]).unwrap_or(u32::MAX);
        let mut min = (u32::MAX, usize::MAX);
        for i in 0..piece.len().saturating_sub(1) {
            let r = rank_of(i, i + 2);
            if r < min.0 {
                min = (r, i);
            }
            parts.push((i, r));
        }
        parts.push((piece.len().saturating_sub(1), u32::MAX));
        parts.push((piece.len(), u32::MAX));
        let get = |parts: &Vec<(usize, u32)>, i: usize| {
            if i + 3 < parts.len() {
                rank_of(parts[i].0, parts[i + 3].0)
            } else {
                u32::MAX
            }
        };
        while min.0 != u32::MAX {
            let i = min.1;
            if i > 0 {
                parts[i - 1].1 = get(parts, i - 1);
            }
            parts[i].1 = get(parts, i);
            parts.remove(i + 1);
            min = (u32::MAX, usize::MAX);
            for (j, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
                if r < min.0 {
                    min = (r, j);
                }
            }
        }
    }
}

/// Iterator over pre-tokenized pieces `(start, end)` in bytes.
pub struct Pieces<'a> {
    encoding: Encoding,
    text: &'a str,
    pos: usize,
}

impl Iterator for Pieces<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        if self.pos >= self.text.len() {
            return None;
        }
        let start = self.pos;
        let len = next_piece(self.encoding, &self.text[start..]).max(1);
        let mut end = start + len;
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        self.pos = end;
        Some((start, end))
    }
}
