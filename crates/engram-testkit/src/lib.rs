//! Dev-only support for engram: exporting tiktoken rank tables into engram's compact
//! format, seeded data generators, a deterministic test embedder and brute-force oracles.
//! Never a normal dependency of a shipped crate.

pub mod cli;
pub mod corpus;
pub mod embed;
pub mod extraction_eval;
pub mod fuzzing;
pub mod self_facts_eval;
pub mod locomo;
pub mod mirrors;
pub mod netsim;
pub mod pii_eval;
pub mod qa_eval;
pub mod score;
pub mod tables;
pub mod vectors;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// `n` unit vectors of `dim` dimensions around `clusters` random centres (seeded).
/// Clustered data is harder for ANN indexes than uniform noise.
pub fn clustered_vectors(n: usize, dim: usize, clusters: usize, seed: u64) -> Vec<Vec<f32>> {
    clustered_vectors_spread(n, dim, clusters, 0.35, seed)
}

/// Like [`clustered_vectors`] with uniform noise of `±spread` per coordinate around
/// centres drawn from `±1`. Spread 1.0 gives members of a cluster a cosine of about 0.5,
/// like distinct memories on one topic; 0.35 makes them near-duplicates.
pub fn clustered_vectors_spread(n: usize, dim: usize, clusters: usize, spread: f32, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let centres: Vec<Vec<f32>> = (0..clusters.max(1)).map(|_| (0..dim).map(|_| rng.gen_range(-1.0..1.0)).collect()).collect();
    (0..n)
        .map(|_| {
            let c = &centres[rng.gen_range(0..centres.len())];
            let v: Vec<f32> = c.iter().map(|x| x + rng.gen_range(-spread..spread)).collect();
            normalize(&v)
        })
        .collect()
}

/// L2-normalize.
pub fn normalize(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
    v.iter().map(|x| x / n).collect()
}

/// Exact cosine top-`k` indices by brute force (the oracle).
pub fn brute_force_top_k(data: &[Vec<f32>], query: &[f32], k: usize) -> Vec<usize> {
    let mut scored: Vec<(usize, f64)> = data
        .iter()
        .enumerate()
        .map(|(i, v)| (i, v.iter().zip(query).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum()))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().take(k).map(|(i, _)| i).collect()
}
