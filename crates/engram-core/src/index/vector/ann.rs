//! The approximate main index for large partitions: an immutable HNSW
//! (`instant-distance`) over the rows that existed when it was built. Rows added since
//! are scanned exactly (the delta); removed rows are filtered (tombstones). Rebuilding
//! is an explicit call the SDK schedules when idle, because building is expensive.
//!
//! instant-distance alone was measured at recall@10 ≈ 0.88 (PLATFORM.md); we take a wide
//! candidate list from the graph and re-rank it exactly, which is what lifts recall.

use instant_distance::{Builder, HnswMap, Search};

use crate::index::vector::kernel::dot_scalar;

#[derive(Clone)]
struct Point(Vec<f32>);

impl instant_distance::Point for Point {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - dot_scalar(&self.0, &other.0)
    }
}

/// Tuning for the HNSW main index.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AnnParams {
    pub ef_construction: usize,
    pub ef_search: usize,
    pub seed: u64,
}

impl Default for AnnParams {
    fn default() -> Self {
        AnnParams { ef_construction: 200, ef_search: 320, seed: 0x5eed }
    }
}

/// An HNSW over a snapshot of rows.
pub struct Ann {
    map: HnswMap<Point, u32>,
    /// Rows `0..covered` existed when this index was built.
    pub covered: u32,
    ef_search: usize,
}

impl core::fmt::Debug for Ann {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ann").field("covered", &self.covered).finish()
    }
}

impl Ann {
    /// Build over `(row, vector)` pairs; `covered` is one past the highest row considered.
    pub fn build(rows: Vec<(u32, Vec<f32>)>, covered: u32, params: AnnParams) -> Self {
        let (ids, points): (Vec<u32>, Vec<Point>) = rows.into_iter().map(|(r, v)| (r, Point(v))).unzip();
        let map = Builder::default()
            .ef_construction(params.ef_construction)
            .ef_search(params.ef_search)
            .seed(params.seed)
            .build(points, ids);
        Ann { map, covered, ef_search: params.ef_search }
    }

    /// Candidate rows for `query`, nearest first (at most `ef_search`).
    pub fn candidates(&self, query: &[f32]) -> Vec<u32> {
        let mut search = Search::default();
        let q = Point(query.to_vec());
        self.map.search(&q, &mut search).take(self.ef_search).map(|item| *item.value).collect()
    }
}
