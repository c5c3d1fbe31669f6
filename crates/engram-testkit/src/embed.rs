//! A deterministic stand-in embedder for tests: feature hashing of words and CJK bigrams
//! into `dim` signed buckets. Texts sharing words get high cosine; it is not semantic,
//! which is why the real default embedder has its own issue.

use engram_core::index::lexical::terms::terms;

/// Hash `text` into a `dim`-dimensional vector (never all-zero).
pub fn hashed_embedding(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    let ts = terms(text);
    for t in &ts {
        let h = fnv(t.as_bytes());
        let i = (h % dim as u64) as usize;
        let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
        v[i] += sign;
    }
    if v.iter().all(|x| *x == 0.0) {
        v[(fnv(text.as_bytes()) % dim as u64) as usize] = 1.0;
    }
    crate::normalize(&v)
}

fn fnv(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for x in b {
        h ^= u64::from(*x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
