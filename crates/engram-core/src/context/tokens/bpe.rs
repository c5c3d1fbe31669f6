//! Byte-pair encoding with tiktoken's exact semantics, over a [`RankTable`].
//!
//! Pre-tokenization follows tiktoken's published patterns exactly, as hand-written
//! scanners (see `pretokenize`). Parity with tiktoken is checked on a multilingual corpus
//! by `engram-testkit` and by the SDK's tests against js-tiktoken.

use std::sync::Mutex;

use hashbrown::HashTable;

use crate::error::{Error, Result};
use crate::context::tokens::pretokenize::{next_piece, Encoding};
use crate::context::tokens::table::{hash, RankTable};

mod merge;
use merge::{MergeData, Part};

/// A ready-to-use BPE tokenizer: a rank table and its pre-tokenizer.
#[derive(Debug)]
pub struct Bpe {
    encoding: Encoding,
    table: RankTable,
    /// Tokens of recently seen pieces that are not single tokens (the expensive ones: they
    /// need the merge loop), for counting and encoding alike. Bounded; cleared when full.
    merged: Mutex<MergeCache>,
    /// The longest token (a piece longer than `k` of them holds more than `k` tokens),
    /// each byte's rank, and the ranks of pairs met while merging (see `merge`).
    merging: MergeData,
}

/// The tokens of merged pieces, keyed by the same hash as the rank table (so a piece is
/// hashed once): each entry is where its run starts in `runs` (the piece's start in `bytes`,
/// its length, its token count, then its tokens).
#[derive(Debug, Default)]
struct MergeCache {
    at: HashTable<u32>,
    bytes: Vec<u8>,
    runs: Vec<u32>,
}

impl MergeCache {
    fn piece(&self, at: u32) -> &[u8] {
        let (s, n) = (self.runs[at as usize] as usize, self.runs[at as usize + 1] as usize);
        &self.bytes[s..s + n]
    }

    fn find(&self, piece: &[u8], h: u64) -> Option<&[u32]> {
        let &at = self.at.find(h, |&at| self.piece(at) == piece)?;
        let at = at as usize;
        Some(&self.runs[at + 3..at + 3 + self.runs[at + 2] as usize])
    }

    fn insert(&mut self, piece: &[u8], h: u64, tokens: &[u32]) {
        if self.at.len() >= MERGE_CACHE_LIMIT {
            self.at.clear();
            self.bytes.clear();
            self.runs.clear();
        }
        let at = self.runs.len() as u32;
        self.runs.extend_from_slice(&[self.bytes.len() as u32, piece.len() as u32, tokens.len() as u32]);
        self.runs.extend_from_slice(tokens);
        self.bytes.extend_from_slice(piece);
        let MergeCache { at: table, bytes, runs } = self;
        table.insert_unique(h, at, |&a| {
            let (s, n) = (runs[a as usize] as usize, runs[a as usize + 1] as usize);
            hash(&bytes[s..s + n])
        });
    }
}

const MERGE_CACHE_LIMIT: usize = 1 << 15;
/// Pieces shorter than this are merged each time, not cached: their merge (a pair or two
/// looked up) costs about what the cache's lookup and insert would.
const UNCACHED: usize = 6;
/// Pieces longer than this are merged each time, not cached (the cache's bytes stay bounded).
const MERGE_CACHE_PIECE: usize = 256;

impl Bpe {
    /// Combine a loaded table with its encoding's pre-tokenizer. The table's name must match.
    pub fn new(table: RankTable) -> Result<Self> {
        let encoding = Encoding::from_name(table.name())?;
        let merging = MergeData::new(&table).ok_or_else(|| Error::TokenTable("every single byte must be a token".into()))?;
        Ok(Bpe { encoding, table, merged: Mutex::new(MergeCache::default()), merging })
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

    /// Bytes that certainly hold more than `max_tokens` tokens: no token is longer than
    /// the longest token's bytes.
    pub fn window(&self, max_tokens: usize) -> usize {
        max_tokens.saturating_add(1).saturating_mul(self.merging.longest)
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
        let (mut parts, mut scratch) = (Vec::new(), Vec::new());
        self.pieces(text).map(|(s, e)| self.count_piece(&text.as_bytes()[s..e], &mut parts, &mut scratch)).sum()
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
            let mut piece = &text.as_bytes()[s..e];
            // A piece certainly longer than the budget left is cut to a window that still
            // holds more: encoding a megabyte-long word to keep its first tokens would make
            // cutting it into chunks quadratic.
            let window = (max_tokens - used).saturating_add(1).saturating_mul(self.merging.longest);
            if piece.len() > window {
                piece = &piece[..window];
            }
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

    fn encode_piece(&self, piece: &[u8], parts: &mut Vec<Part>, out: &mut Vec<u32>) {
        // One or two bytes are read from the merger's tables, not hashed.
        if piece.len() <= 2 {
            return self.short_into(piece, out);
        }
        let h = hash(piece);
        match self.table.rank_hashed(piece, h) {
            Some(r) => out.push(r),
            None if piece.len() <= 3 => self.short_into(piece, out),
            None if piece.len() < UNCACHED => {
                self.merging.over(&self.table).merge(piece, parts);
                out.extend(parts[..parts.len() - 1].iter().map(|p| p.token));
            }
            None => self.merged_into(piece, h, parts, out),
        }
    }

    fn count_piece(&self, piece: &[u8], parts: &mut Vec<Part>, scratch: &mut Vec<u32>) -> usize {
        match *piece {
            [_] => return 1,
            [a, b] => return if self.merging.two(a, b).is_some() { 1 } else { 2 },
            _ => {}
        }
        let h = hash(piece);
        if self.table.rank_hashed(piece, h).is_some() {
            return 1;
        }
        if piece.len() <= 3 {
            scratch.clear();
            self.short_into(piece, scratch);
            return scratch.len();
        }
        if piece.len() > MERGE_CACHE_PIECE || piece.len() < UNCACHED {
            // Not cached: its parts, less the sentinel, are its count.
            self.merging.over(&self.table).merge(piece, parts);
            return parts.len() - 1;
        }
        scratch.clear();
        self.merged_into(piece, h, parts, scratch);
        scratch.len()
    }

    /// Append the tokens of a piece of one or two bytes, or of three that are not one
    /// token, without the cache or the merge loop (random runs such as base64 pre-tokenize
    /// into such pieces, which rarely repeat). Two bytes are one token or two. Of three, the lower-ranked
    /// of the two pairs that are tokens merges (the left one of equals: "{{{"); what is
    /// left is then the whole piece, which is not a token, so nothing more merges.
    fn short_into(&self, piece: &[u8], out: &mut Vec<u32>) {
        let byte = |i: usize| self.merging.byte_rank(piece[i]);
        if let [a, b] = *piece {
            if let Some(r) = self.merging.two(a, b) {
                return out.push(r);
            }
        }
        if let [_, _, _] = piece {
            match (self.merging.two(piece[0], piece[1]), self.merging.two(piece[1], piece[2])) {
                (Some(a), b) if b.is_none_or(|b| a <= b) => return out.extend([a, byte(2)]),
                (_, Some(b)) => return out.extend([byte(0), b]),
                _ => {}
            }
        }
        out.extend((0..piece.len()).map(byte));
    }

    /// Append the tokens of a piece that is not one token (`h` its [`hash`]): from the cache
    /// of pieces met before, else merged (and cached, when short). Counting and encoding
    /// share it, so a word costs one merge whichever of them meets it first.
    fn merged_into(&self, piece: &[u8], h: u64, parts: &mut Vec<Part>, out: &mut Vec<u32>) {
        let mut cache = match self.merged.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(tokens) = cache.find(piece, h) {
            out.extend_from_slice(tokens);
            return;
        }
        self.merging.over(&self.table).merge(piece, parts);
        let from = out.len();
        out.extend(parts[..parts.len() - 1].iter().map(|p| p.token));
        // Words repeat; a long run of letters rarely does, and would hold its bytes.
        if piece.len() <= MERGE_CACHE_PIECE {
            cache.insert(piece, h, &out[from..]);
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

#[cfg(test)]
mod tests {
    use super::merge::tests::table;
    use super::*;

    #[test]
    fn encoding_after_counting_gives_the_ids_a_fresh_tokenizer_gives() {
        let text = "abab cab bcab caab ".repeat(50) + "aabab";
        let fresh = Bpe::new(table()).expect("bpe").encode(&text);
        let warm = Bpe::new(table()).expect("bpe");
        assert_eq!(warm.count(&text), fresh.len());
        assert_eq!(warm.encode(&text), fresh, "the cached pieces hold the same tokens");
        assert_eq!(warm.encode(&text), fresh);
    }

    #[test]
    fn truncating_to_the_largest_budget_keeps_the_whole_text() {
        let bpe = Bpe::new(table()).expect("bpe");
        let text = "abab cab ".repeat(100) + &"ab".repeat(5_000);
        assert_eq!(bpe.truncate(&text, usize::MAX), (text.as_str(), bpe.count(&text)));
        assert_eq!(bpe.truncate(&text, u32::MAX as usize), (text.as_str(), bpe.count(&text)));
    }

    #[test]
    fn a_quarter_megabyte_with_no_break_is_counted_without_quadratic_merging() {
        let bpe = Bpe::new(table()).expect("bpe");
        let text = "ab".repeat(1 << 17);
        // "abab" merges pairwise: 2^18 bytes are 2^16 tokens. The scan would take ~10^10 steps.
        assert_eq!(bpe.count(&text), 1 << 16);
        assert_eq!(bpe.encode(&text).len(), 1 << 16);
    }
}
