//! Byte-pair encoding with tiktoken's exact semantics, over a [`RankTable`].
//!
//! Pre-tokenization follows tiktoken's published patterns exactly, as hand-written
//! scanners (see `pretokenize`). Parity with tiktoken is checked on a multilingual corpus
//! by `engram-testkit` and by the SDK's tests against js-tiktoken.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::context::tokens::pretokenize::{next_piece, Encoding};
use crate::context::tokens::table::RankTable;

/// A ready-to-use BPE tokenizer: a rank table and its pre-tokenizer.
#[derive(Debug)]
pub struct Bpe {
    encoding: Encoding,
    table: RankTable,
    /// Tokens of recently seen pieces that are not single tokens (the expensive ones: they
    /// need the merge loop), for counting and encoding alike. Bounded; cleared when full.
    merged: Mutex<MergeCache>,
    /// The longest token's length in bytes: a piece longer than `k` of them holds more
    /// than `k` tokens.
    longest: usize,
}

/// The tokens of merged pieces: where each piece's run starts in `tokens` (its length,
/// then its tokens). One map of the same type as before it held counts, one flat list.
#[derive(Debug, Default)]
struct MergeCache {
    at: FxHashMap<Box<[u8]>, u32>,
    tokens: Vec<u32>,
}

const MERGE_CACHE_LIMIT: usize = 1 << 15;
/// Pieces longer than this are merged each time, not cached (the cache's bytes stay bounded).
const MERGE_CACHE_PIECE: usize = 256;

impl Bpe {
    /// Combine a loaded table with its encoding's pre-tokenizer. The table's name must match.
    pub fn new(table: RankTable) -> Result<Self> {
        let encoding = Encoding::from_name(table.name())?;
        if (0u8..=255).any(|b| table.rank(&[b]).is_none()) {
            return Err(Error::TokenTable("every single byte must be a token".into()));
        }
        let longest = (0..table.len()).map(|r| table.token(r as u32).len()).max().unwrap_or(1);
        Ok(Bpe { encoding, table, merged: Mutex::new(MergeCache::default()), longest })
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
        max_tokens.saturating_add(1).saturating_mul(self.longest)
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
            let window = (max_tokens - used).saturating_add(1).saturating_mul(self.longest);
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

    fn encode_piece(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>, out: &mut Vec<u32>) {
        match self.table.rank(piece) {
            Some(r) => out.push(r),
            None => self.merged_into(piece, parts, out),
        }
    }

    fn count_piece(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>, scratch: &mut Vec<u32>) -> usize {
        if self.table.rank(piece).is_some() {
            return 1;
        }
        if piece.len() > MERGE_CACHE_PIECE {
            // Not cached: its parts are its count, without looking each one up.
            self.merge(piece, parts);
            return parts.len() - 1;
        }
        scratch.clear();
        self.merged_into(piece, parts, scratch);
        scratch.len()
    }

    /// Append the tokens of a piece that is not one token: from the cache of pieces met
    /// before, else merged (and cached, when short). Counting and encoding share it, so a
    /// word costs one merge whichever of them meets it first.
    fn merged_into(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>, out: &mut Vec<u32>) {
        let mut cache = match self.merged.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(&at) = cache.at.get(piece) {
            let (at, n) = (at as usize, cache.tokens[at as usize] as usize);
            out.extend_from_slice(&cache.tokens[at + 1..at + 1 + n]);
            return;
        }
        self.merge(piece, parts);
        let from = out.len();
        // Every merged part is a token by construction; single bytes are all in the table.
        out.extend(parts.windows(2).filter_map(|w| self.table.rank(&piece[w[0].0..w[1].0])));
        // Words repeat; a long run of letters rarely does, and would hold its bytes.
        if piece.len() <= MERGE_CACHE_PIECE {
            if cache.at.len() >= MERGE_CACHE_LIMIT {
                cache.at.clear();
                cache.tokens.clear();
            }
            let at = cache.tokens.len() as u32;
            cache.tokens.push((out.len() - from) as u32);
            cache.tokens.extend_from_slice(&out[from..]);
            cache.at.insert(piece.into(), at);
        }
    }

    /// tiktoken's `_byte_pair_merge`: repeatedly merge the adjacent pair of lowest rank
    /// (the leftmost of equals). Leaves `(start, rank-of-pair-starting-here)` boundaries in
    /// `parts`, the last being `(piece.len(), u32::MAX)`. A scan per merge for short pieces
    /// (words: fastest), a heap over a linked list for long ones (a run of letters with
    /// nothing between: O(n log n) where the scan is quadratic); both merge in the same order.
    /// Returns the steps taken (pairs looked at), which a test holds linear in the length.
    fn merge(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>) -> usize {
        if piece.len() < LONG_PIECE {
            self.merge_by_scan(piece, parts)
        } else {
            self.merge_by_heap(piece, parts)
        }
    }

    fn merge_by_scan(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>) -> usize {
        parts.clear();
        let mut steps = piece.len();
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
            steps += parts.len();
            min = (u32::MAX, usize::MAX);
            for (j, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
                if r < min.0 {
                    min = (r, j);
                }
            }
        }
        steps
    }

    /// The same merges as [`Self::merge_by_scan`], found with a min-heap of `(rank, start)`
    /// (so the leftmost of equal ranks first) over parts linked by their start byte; an
    /// entry whose part has merged or whose rank changed since is skipped when popped.
    fn merge_by_heap(&self, piece: &[u8], parts: &mut Vec<(usize, u32)>) -> usize {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = piece.len();
        // Part `i` starts at byte `i`; `next[i]` is where the following part starts (`n`: none).
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut rank = vec![u32::MAX; n];
        let mut alive = vec![true; n];
        let pair_rank = |next: &[usize], i: usize| {
            let j = next[i];
            if j >= n {
                return u32::MAX;
            }
            let end = next[j];
            // No token is longer than the longest: no need to look such a pair up.
            if end - i > self.longest {
                return u32::MAX;
            }
            self.table.rank(&piece[i..end]).unwrap_or(u32::MAX)
        };
        let mut heap = BinaryHeap::with_capacity(n);
        for (i, r) in rank.iter_mut().enumerate() {
            *r = pair_rank(&next, i);
            if *r != u32::MAX {
                heap.push(Reverse((*r, i)));
            }
        }
        let mut steps = n;
        while let Some(Reverse((r, i))) = heap.pop() {
            steps += 1;
            if !alive[i] || rank[i] != r {
                continue;
            }
            let gone = next[i];
            alive[gone] = false;
            next[i] = next[gone];
            if next[i] < n {
                prev[next[i]] = i;
            }
            rank[i] = pair_rank(&next, i);
            if rank[i] != u32::MAX {
                heap.push(Reverse((rank[i], i)));
            }
            if i > 0 {
                let p = prev[i];
                rank[p] = pair_rank(&next, p);
                if rank[p] != u32::MAX {
                    heap.push(Reverse((rank[p], p)));
                }
            }
        }
        parts.clear();
        let mut i = 0;
        while i < n {
            parts.push((i, rank[i]));
            i = next[i];
        }
        parts.push((n, u32::MAX));
        steps
    }
}

/// Pieces this long or longer merge by heap (see [`Bpe::merge`]).
const LONG_PIECE: usize = 128;

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
    use super::*;
    use proptest::prelude::*;

    /// Every byte, then merges over a, b and c that make long runs merge many ways.
    fn table() -> RankTable {
        let merges: [&[u8]; 12] = [b"ab", b"aa", b"ba", b"bc", b"abab", b"aaaa", b"cab", b"aab", b"bb", b"abc", b"aaaaaaaa", b"ca"];
        let toks: Vec<Vec<u8>> = (0u8..=255).map(|b| vec![b]).chain(merges.iter().map(|m| m.to_vec())).collect();
        RankTable::from_tokens("o200k_base", &toks, Vec::new()).expect("valid table")
    }

    fn starts(parts: &[(usize, u32)]) -> Vec<usize> {
        parts.iter().map(|p| p.0).collect()
    }

    proptest! {
        #[test]
        fn merging_by_heap_makes_the_same_parts_as_merging_by_scan(piece in proptest::collection::vec(prop::sample::select(vec![b'a', b'b', b'c', b'd']), 2..600)) {
            let bpe = Bpe::new(table()).expect("bpe");
            let (mut scan, mut heap) = (Vec::new(), Vec::new());
            bpe.merge_by_scan(&piece, &mut scan);
            bpe.merge_by_heap(&piece, &mut heap);
            prop_assert_eq!(starts(&scan), starts(&heap));
        }
    }

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
    fn merging_a_piece_with_no_break_takes_steps_linear_in_its_length() {
        let bpe = Bpe::new(table()).expect("bpe");
        let mut parts = Vec::new();
        let mut x = 7u32;
        for n in [4usize << 10, 16 << 10, 64 << 10] {
            let random: Vec<u8> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    b"abcd"[(x % 4) as usize]
                })
                .collect();
            for piece in [vec![b'a'; n], b"ab".repeat(n / 2), random] {
                let steps = bpe.merge(&piece, &mut parts);
                // n pairs looked at first, then one heap entry popped per merge or stale
                // rank, at most three per byte: a scan would take ~n^2 / 2.
                assert!(steps <= 4 * n, "{n} bytes took {steps} steps");
            }
        }
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
