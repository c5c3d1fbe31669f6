//! Merging one pre-tokenized piece into tokens: tiktoken's `_byte_pair_merge`, which
//! repeatedly merges the adjacent pair of lowest rank (the leftmost of equals).
//!
//! A short piece (a word) is merged by a scan per merge, each part carrying its token so
//! that a pair's rank is first looked up by its two tokens in the [`PairMemo`]. A long piece
//! (a run with no break: one letter repeated, a CJK run, a blob) is merged a chunk at a time
//! with the same scan, so its cost is linear in its length (see [`Merger::merge_by_chunks`]);
//! a min-heap over a linked list is the fallback when chunks do not settle.

use std::sync::Mutex;

use crate::context::tokens::table::RankTable;

/// Pieces this long or longer merge by chunks.
pub(super) const LONG_PIECE: usize = 128;
/// The bytes of a long piece merged at a time: small enough that the scan per merge stays
/// short, long enough that merging the last token again at each seam costs little.
const CHUNK: usize = 16;

/// One part of a piece being merged: where it starts, its token, and the rank of the pair it
/// starts with the next part (`u32::MAX`: not a token). The last part of a merged piece is a
/// sentinel at the piece's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Part {
    pub start: usize,
    pub token: u32,
    pair: u32,
}

/// What merging needs beside the table: the longest token, each byte's rank, the memo.
#[derive(Debug)]
pub(super) struct Merger<'t> {
    table: &'t RankTable,
    longest: usize,
    byte_rank: &'t [u32; 256],
    two: &'t [u32],
    pairs: &'t Mutex<PairMemo>,
}

/// The parts of a table that merging reads, computed once when the tokenizer is built.
#[derive(Debug)]
pub(super) struct MergeData {
    /// The longest token's length in bytes.
    pub longest: usize,
    byte_rank: [u32; 256],
    /// The rank of each two bytes `a b` at `a << 8 | b` (`u32::MAX`: not a token): 256 KiB
    /// read directly, where a hash lookup misses the cache on text that does not repeat.
    two: Vec<u32>,
    pairs: Mutex<PairMemo>,
}

impl MergeData {
    /// `None` when a single byte is not a token (every piece must be able to merge).
    pub fn new(table: &RankTable) -> Option<Self> {
        let mut byte_rank = [0u32; 256];
        for (b, r) in byte_rank.iter_mut().enumerate() {
            *r = table.rank(&[b as u8])?;
        }
        let (mut longest, mut two) = (1, vec![u32::MAX; 1 << 16]);
        for r in 0..table.len() as u32 {
            let token = table.token(r);
            longest = longest.max(token.len());
            if let [a, b] = token {
                two[usize::from(*a) << 8 | usize::from(*b)] = r;
            }
        }
        Some(MergeData { longest, byte_rank, two, pairs: Mutex::new(PairMemo::default()) })
    }

    /// The rank of the single byte `b`.
    #[inline]
    pub fn byte_rank(&self, b: u8) -> u32 {
        self.byte_rank[usize::from(b)]
    }

    /// The rank of the two bytes `a b`, if they are a token.
    #[inline]
    pub fn two(&self, a: u8, b: u8) -> Option<u32> {
        Some(two_rank(&self.two, a, b)).filter(|&r| r != u32::MAX)
    }

    /// A merger over `table` (the table this was computed from).
    pub fn over<'t>(&'t self, table: &'t RankTable) -> Merger<'t> {
        Merger { table, longest: self.longest, byte_rank: &self.byte_rank, two: &self.two, pairs: &self.pairs }
    }
}

impl Merger<'_> {
    /// Merge `piece` (at least one byte) into `parts`: its tokens, then the sentinel.
    /// Returns the steps taken (parts looked at), which a test holds linear in the length.
    pub fn merge(&self, piece: &[u8], parts: &mut Vec<Part>) -> usize {
        let mut memo = match self.pairs.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        if piece.len() < LONG_PIECE {
            self.merge_by_scan(piece, parts, &mut memo)
        } else {
            self.merge_by_chunks(piece, parts, &mut memo)
        }
    }

    /// The rank of the pair of parts `i` and `i + 1`, by their tokens from `memo` or else
    /// from the table (a pair longer than the longest token is none).
    #[inline]
    fn pair_rank(&self, piece: &[u8], at: &[Part], i: usize, memo: &mut PairMemo) -> u32 {
        if i + 2 >= at.len() {
            return u32::MAX;
        }
        let (s, e) = (at[i].start, at[i + 2].start);
        if e - s == 2 {
            return two_rank(self.two, piece[s], piece[s + 1]);
        }
        let (a, b) = (at[i].token, at[i + 1].token);
        if let Some(r) = memo.get(a, b) {
            return r;
        }
        let r = if e - s > self.longest { u32::MAX } else { self.table.rank(&piece[s..e]).unwrap_or(u32::MAX) };
        memo.put(a, b, r);
        r
    }

    /// A scan for the lowest pair per merge: quadratic in the piece, the fastest for words.
    fn merge_by_scan(&self, piece: &[u8], at: &mut Vec<Part>, memo: &mut PairMemo) -> usize {
        let n = piece.len();
        at.clear();
        at.extend(piece.iter().enumerate().map(|(start, &b)| Part { start, token: self.byte_rank[usize::from(b)], pair: u32::MAX }));
        at.push(Part { start: n, token: u32::MAX, pair: u32::MAX });
        for i in 0..n.saturating_sub(1) {
            at[i].pair = self.pair_rank(piece, at, i, memo);
        }
        let mut steps = n;
        loop {
            let mut min = (u32::MAX, 0usize);
            for (j, p) in at[..at.len() - 1].iter().enumerate() {
                if p.pair < min.0 {
                    min = (p.pair, j);
                }
            }
            steps += at.len();
            let (r, i) = min;
            if r == u32::MAX {
                return steps;
            }
            at[i].token = r;
            at.remove(i + 1);
            at[i].pair = self.pair_rank(piece, at, i, memo);
            if i > 0 {
                at[i - 1].pair = self.pair_rank(piece, at, i - 1, memo);
            }
        }
    }

    /// The same tokens as merging the whole piece, found a chunk of [`CHUNK`] bytes at a time.
    ///
    /// Two facts of BPE make this exact. Merging never crosses a boundary its result keeps,
    /// so a run of tokens of an encoding is the encoding of its bytes. And if `X` is the
    /// encoding of one text and `Y` that of the next, and the last token of `X` and the first
    /// of `Y` stay apart when their bytes alone are merged, then `X` then `Y` is the encoding
    /// of both texts: the first merge across the seam in the whole text would be, in the same
    /// order, a merge across it in that pair. So each chunk is merged together with the last
    /// token accepted before it; when that token comes out unchanged, the pair before it (a
    /// pair of the accepted encoding) stays apart, and the chunk's tokens are accepted. When
    /// it does not, the merge starts one token further back, then twice as many. A piece
    /// whose seams move back more than twice its length in all is merged whole by the heap.
    fn merge_by_chunks(&self, piece: &[u8], parts: &mut Vec<Part>, memo: &mut PairMemo) -> usize {
        let n = piece.len();
        parts.clear();
        let mut local = Vec::with_capacity(2 * CHUNK);
        let (mut done, mut steps, mut redone) = (0usize, 0usize, 0usize);
        while done < n {
            let end = (done + CHUNK).min(n);
            let mut back = 1usize;
            loop {
                let keep = parts.len().saturating_sub(back);
                let from = parts.get(keep).map_or(0, |p| p.start);
                let window = &piece[from..end];
                steps += if window.len() < LONG_PIECE {
                    self.merge_by_scan(window, &mut local, memo)
                } else {
                    self.merge_by_heap(window, &mut local)
                };
                // The first token merged again must end where it ended before.
                let before = parts.get(keep + 1).map_or(done, |p| p.start);
                if keep == 0 || from + local[1].start == before {
                    parts.truncate(keep);
                    parts.extend(local[..local.len() - 1].iter().map(|p| Part { start: from + p.start, ..*p }));
                    break;
                }
                redone += done - from;
                if redone > 2 * n {
                    return steps + self.merge_by_heap(piece, parts);
                }
                back = (back * 2).min(parts.len());
            }
            done = end;
        }
        parts.push(Part { start: n, token: u32::MAX, pair: u32::MAX });
        steps
    }

    /// The same merges as [`Self::merge_by_scan`], found with a min-heap of `(rank, start)`
    /// (so the leftmost of equal ranks first) over parts linked by their start byte; an
    /// entry whose part has merged or whose rank changed since is skipped when popped.
    /// O(n log n) whatever the piece.
    fn merge_by_heap(&self, piece: &[u8], parts: &mut Vec<Part>) -> usize {
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
            if end - i > self.longest {
                return u32::MAX;
            }
            if end - i == 2 {
                return two_rank(self.two, piece[i], piece[i + 1]);
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
            // Every merged part is a token by construction; single bytes are all in the table.
            let token = self.table.rank(&piece[i..next[i]]).unwrap_or(u32::MAX);
            parts.push(Part { start: i, token, pair: u32::MAX });
            i = next[i];
        }
        parts.push(Part { start: n, token: u32::MAX, pair: u32::MAX });
        steps
    }
}

/// The rank of the two bytes `a b` in a table of [`MergeData`]'s `two` (`u32::MAX`: none).
#[inline(always)]
fn two_rank(two: &[u32], a: u8, b: u8) -> u32 {
    two[usize::from(a) << 8 | usize::from(b)]
}

/// Ranks of pairs of tokens met while merging: a direct-mapped table keyed by the two
/// tokens' ranks (a pair's bytes are its two tokens' bytes, so the key is exact). Runs with
/// no break repeat their pairs, and so do the words of a language.
#[derive(Debug)]
pub(super) struct PairMemo {
    slots: Vec<(u32, u32, u32)>,
}

/// Slots of the memo: 16,384 × 12 bytes.
const MEMO_BITS: u32 = 16;

impl Default for PairMemo {
    fn default() -> Self {
        PairMemo { slots: vec![(u32::MAX, u32::MAX, u32::MAX); 1 << MEMO_BITS] }
    }
}

impl PairMemo {
    #[inline]
    fn slot(a: u32, b: u32) -> usize {
        ((u64::from(a) << 32 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MEMO_BITS)) as usize
    }

    #[inline]
    fn get(&self, a: u32, b: u32) -> Option<u32> {
        let s = self.slots[Self::slot(a, b)];
        (s.0 == a && s.1 == b).then_some(s.2)
    }

    #[inline]
    fn put(&mut self, a: u32, b: u32, r: u32) {
        self.slots[Self::slot(a, b)] = (a, b, r);
    }
}

#[cfg(test)]
pub(super) mod tests;
