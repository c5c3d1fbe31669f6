use proptest::prelude::*;

use super::*;
use crate::context::tokens::table::RankTable;

/// Every byte, then merges over a, b and c that make long runs merge many ways.
pub(in crate::context::tokens) fn table() -> RankTable {
    let merges: [&[u8]; 12] = [b"ab", b"aa", b"ba", b"bc", b"abab", b"aaaa", b"cab", b"aab", b"bb", b"abc", b"aaaaaaaa", b"ca"];
    let toks: Vec<Vec<u8>> = (0u8..=255).map(|b| vec![b]).chain(merges.iter().map(|m| m.to_vec())).collect();
    RankTable::from_tokens("o200k_base", &toks, Vec::new()).expect("valid table")
}

/// tiktoken's `_byte_pair_merge` as written there, by byte ranges alone: the oracle.
fn oracle(table: &RankTable, piece: &[u8]) -> Vec<(usize, u32)> {
    let rank = |s: usize, e: usize| table.rank(&piece[s..e]).unwrap_or(u32::MAX);
    let mut parts: Vec<(usize, u32)> = (0..piece.len() - 1).map(|i| (i, rank(i, i + 2))).collect();
    parts.push((piece.len() - 1, u32::MAX));
    parts.push((piece.len(), u32::MAX));
    loop {
        let Some((i, r)) = parts[..parts.len() - 1].iter().enumerate().map(|(i, p)| (i, p.1)).min_by_key(|&(i, r)| (r, i)) else { break };
        if r == u32::MAX {
            break;
        }
        parts.remove(i + 1);
        let get = |parts: &[(usize, u32)], i: usize| if i + 2 < parts.len() { rank(parts[i].0, parts[i + 2].0) } else { u32::MAX };
        parts[i].1 = get(&parts, i);
        if i > 0 {
            parts[i - 1].1 = get(&parts, i - 1);
        }
    }
    parts.windows(2).map(|w| (w[0].0, rank(w[0].0, w[1].0))).collect()
}

fn tokens(parts: &[Part]) -> Vec<(usize, u32)> {
    parts[..parts.len() - 1].iter().map(|p| (p.start, p.token)).collect()
}

fn piece_of(alphabet: &'static [u8], len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop::sample::select(alphabet), len)
}

/// The tokens `merge` (or, with `heap`, the fallback alone) makes of `piece` over the toy
/// table, and the oracle's.
fn merged_and_oracle(piece: &[u8], heap: bool) -> (Vec<(usize, u32)>, Vec<(usize, u32)>) {
    let (table, mut parts) = (table(), Vec::new());
    let data = MergeData::new(&table).expect("bytes are tokens");
    let bpe = data.over(&table);
    if heap {
        bpe.merge_by_heap(piece, &mut parts);
    } else {
        bpe.merge(piece, &mut parts);
    }
    (tokens(&parts), oracle(&table, piece))
}

/// `len` bytes drawn from `alphabet` by a xorshift over `x`.
fn random_piece(x: &mut u32, alphabet: &[u8], len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *x ^= *x << 13;
            *x ^= *x >> 17;
            *x ^= *x << 5;
            alphabet[*x as usize % alphabet.len()]
        })
        .collect()
}

proptest! {
    #[test]
    fn merging_a_word_makes_the_tokens_tiktoken_makes(piece in piece_of(b"abcd", 1..LONG_PIECE)) {
        let (got, want) = merged_and_oracle(&piece, false);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn merging_a_long_piece_by_chunks_makes_the_tokens_tiktoken_makes(piece in piece_of(b"aaabcd", LONG_PIECE..900)) {
        let (got, want) = merged_and_oracle(&piece, false);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn merging_by_heap_makes_the_tokens_tiktoken_makes(piece in piece_of(b"abcd", 2..600)) {
        let (got, want) = merged_and_oracle(&piece, true);
        prop_assert_eq!(got, want);
    }
}

#[test]
fn a_memo_shared_by_many_pieces_gives_each_the_tokens_a_fresh_one_gives() {
    let table = table();
    let data = MergeData::new(&table).expect("bytes are tokens");
    let bpe = data.over(&table);
    let mut parts = Vec::new();
    let mut x = 11u32;
    for len in (2..400).step_by(7) {
        let piece = random_piece(&mut x, b"abca", len);
        bpe.merge(&piece, &mut parts);
        let mut fresh = Vec::new();
        MergeData::new(&table).expect("bytes are tokens").over(&table).merge(&piece, &mut fresh);
        assert_eq!(tokens(&parts), tokens(&fresh), "{len} bytes");
    }
}

#[test]
fn merging_a_piece_with_no_break_takes_steps_linear_in_its_length() {
    let table = table();
    let data = MergeData::new(&table).expect("bytes are tokens");
    let bpe = data.over(&table);
    let mut parts = Vec::new();
    let mut x = 7u32;
    let mut per_byte = Vec::new();
    for n in [4usize << 10, 16 << 10, 64 << 10] {
        let random = random_piece(&mut x, b"abcd", n);
        let worst = [vec![b'a'; n], b"ab".repeat(n / 2), random]
            .iter()
            .map(|piece| bpe.merge(piece, &mut parts) as f64 / n as f64)
            .fold(0.0, f64::max);
        per_byte.push(worst);
    }
    // A window is a chunk and the token merged again before it, each merge scanning it: a
    // constant per byte. Merging the piece whole by scan would take ~n / 2 per byte.
    let bound = (CHUNK + 2 * bpe.longest) as f64;
    assert!(per_byte.iter().all(|&s| s <= bound), "steps per byte {per_byte:?}, bound {bound}");
    assert!(per_byte[2] <= per_byte[0] * 1.1, "steps per byte grew with the length: {per_byte:?}");
}
