//! The HNSW main index + exact delta + tombstones, against brute force on seeded
//! clustered data: recall@10 ≥ 0.95.

use engram_core::index::vector::{AnnParams, Precision, VectorIndex};
use engram_testkit::{brute_force_top_k, clustered_vectors};

fn recall_at_10(ix: &VectorIndex, data: &[Vec<f32>], live: &[bool], queries: &[Vec<f32>]) -> f64 {
    let live_data: Vec<(usize, &Vec<f32>)> = data.iter().enumerate().filter(|(i, _)| live[*i]).collect();
    let only: Vec<Vec<f32>> = live_data.iter().map(|(_, v)| (*v).clone()).collect();
    let mut found = 0usize;
    for q in queries {
        let truth: Vec<usize> = brute_force_top_k(&only, q, 10).into_iter().map(|j| live_data[j].0).collect();
        let got: Vec<usize> = ix.search(q, 10, -1.0, |_| true).into_iter().map(|(s, _)| s as usize).collect();
        found += truth.iter().filter(|t| got.contains(t)).count();
    }
    found as f64 / (queries.len() * 10) as f64
}

#[test]
fn hnsw_with_exact_rerank_reaches_recall_095_with_a_delta_and_tombstones() {
    let (n, dim) = (6_000, 48);
    let data = clustered_vectors(n + 600, dim, 40, 21);
    let queries = clustered_vectors(150, dim, 40, 22);
    let mut ix = VectorIndex::new(dim, Precision::F32, 1_000, AnnParams::default());
    for (i, v) in data[..n].iter().enumerate() {
        ix.insert(i as u32, v);
    }
    assert!(ix.needs_ann_rebuild());
    ix.rebuild();
    assert!(ix.has_ann() && !ix.needs_ann_rebuild());
    let mut live = vec![true; n];
    live.extend(vec![false; 600]);
    let r_main = recall_at_10(&ix, &data, &live, &queries);
    // Delta: 600 new vectors scanned exactly; tombstones: every 10th original removed.
    for (i, v) in data[n..].iter().enumerate() {
        ix.insert((n + i) as u32, v);
        live[n + i] = true;
    }
    for i in (0..n).step_by(10) {
        ix.remove(i as u32);
        live[i] = false;
    }
    let r_delta = recall_at_10(&ix, &data, &live, &queries);
    eprintln!("recall@10: main {r_main:.3}, with delta+tombstones {r_delta:.3}");
    assert!(r_main >= 0.95, "main index recall {r_main}");
    assert!(r_delta >= 0.95, "recall with delta and tombstones {r_delta}");
    for q in &queries {
        assert!(ix.search(q, 10, -1.0, |_| true).iter().all(|(s, _)| live[*s as usize]), "a removed vector came back");
    }
}

#[test]
fn int8_storage_ranks_like_f32_on_clustered_data() {
    let dim = 64;
    let data = clustered_vectors(3_000, dim, 30, 5);
    let queries = clustered_vectors(100, dim, 30, 6);
    let mut f = VectorIndex::new(dim, Precision::F32, usize::MAX, AnnParams::default());
    let mut q8 = VectorIndex::new(dim, Precision::Int8, usize::MAX, AnnParams::default());
    for (i, v) in data.iter().enumerate() {
        f.insert(i as u32, v);
        q8.insert(i as u32, v);
    }
    let mut overlap = 0usize;
    for q in &queries {
        let a: Vec<u32> = f.search(q, 10, -1.0, |_| true).into_iter().map(|h| h.0).collect();
        let b: Vec<u32> = q8.search(q, 10, -1.0, |_| true).into_iter().map(|h| h.0).collect();
        overlap += a.iter().filter(|x| b.contains(x)).count();
    }
    let r = overlap as f64 / 1000.0;
    eprintln!("int8 vs f32 top-10 overlap {r:.3}");
    assert!(r >= 0.95, "int8 overlap {r}");
}
