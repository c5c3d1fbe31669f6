//! The vector channel: a flat index (exact cosine top-k) in f32 or int8, and above a
//! threshold an HNSW main index plus an exact delta and tombstones.

pub mod ann;
pub mod kernel;
pub mod prefilter;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
pub use ann::AnnParams;
use ann::Ann;
use prefilter::SignCodes;

/// How vectors are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Precision {
    /// 4 bytes per dimension; exact.
    F32,
    /// 1 byte per dimension plus one f32 scale per vector; ~4× smaller, ranking nearly
    /// identical for normalized embeddings.
    #[default]
    Int8,
}

/// Best first: the higher score, then the lower slot.
fn best_first(a: &(u32, f32), b: &(u32, f32)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Sort `(slot, score)` best first (ties by slot) and keep `k`: the `k` best are selected
/// in linear time, then ordered by the core's one sort (`crate::sort`; a `sort_unstable`
/// here was one more copy of the standard library's sort, ~10 KB of the module, for a list
/// of `k`).
pub fn top_k_by_score(hits: &mut Vec<(u32, f32)>, k: usize) {
    if hits.len() > k && k > 0 {
        hits.select_nth_unstable_by(k - 1, best_first);
    }
    hits.truncate(k);
    crate::sort::sort_by(hits, best_first);
}

/// Keep the `k` best of `hits` (as [`top_k_by_score`] would, unsorted) and return the
/// `k`-th best score (`f32::NEG_INFINITY` when `k` is 0): a search cutting its list
/// needs the floor, not an order.
fn cut_to_best(hits: &mut Vec<(u32, f32)>, k: usize) -> f32 {
    if k == 0 {
        hits.clear();
        return f32::NEG_INFINITY;
    }
    if hits.len() > k {
        hits.select_nth_unstable_by(k - 1, best_first);
        hits.truncate(k);
        return hits[k - 1].1;
    }
    hits.iter().map(|h| h.1).min_by(f32::total_cmp).unwrap_or(f32::NEG_INFINITY)
}

/// An `f32` as an integer in the order of `total_cmp` (so a heap of them is a heap of
/// scores); [`from_order_key`] undoes it.
pub(crate) fn order_key(f: f32) -> u32 {
    let b = f.to_bits();
    if b >> 31 == 1 { !b } else { b | 1 << 31 }
}

/// The `f32` of an [`order_key`].
pub(crate) fn from_order_key(b: u32) -> f32 {
    f32::from_bits(if b >> 31 == 1 { b & !(1 << 31) } else { !b })
}

/// The `k`-th best of `scores` (the floor of their top `k`), or `None` when there are
/// fewer than `k`, by a min-heap of the best `k` (the oracle of the recall pool's tests).
#[cfg(test)]
pub(crate) fn kth_best_score(scores: impl Iterator<Item = f32>, k: usize) -> Option<f32> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if k == 0 {
        return None;
    }
    let mut best: BinaryHeap<Reverse<u32>> = BinaryHeap::with_capacity(k + 1);
    for s in scores.map(order_key) {
        if best.len() < k {
            best.push(Reverse(s));
        } else if best.peek().is_some_and(|least| s > least.0) {
            best.pop();
            best.push(Reverse(s));
        }
    }
    (best.len() == k).then(|| from_order_key(best.peek().map_or(0, |r| r.0)))
}

/// Check and L2-normalize an embedding. A vector already unit-length within 1 % (such as
/// a dequantized int8 row coming back from a snapshot or an op) is kept as it is, so that
/// save → load → save reproduces the same bytes.
pub fn unit(v: &[f32], dim: usize) -> Result<Vec<f32>> {
    if v.len() != dim {
        return Err(Error::DimensionMismatch { expected: dim, found: v.len() });
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(Error::BadEmbedding("contains NaN or infinity"));
    }
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return Err(Error::BadEmbedding("has zero length"));
    }
    if (norm - 1.0).abs() < 1e-2 {
        return Ok(v.to_vec());
    }
    Ok(v.iter().map(|x| (f64::from(*x) / norm) as f32).collect())
}

/// A query prepared for the index's storage.
enum Query {
    F32(Vec<f32>),
    Int8 { scale: f32, q: Vec<i8> },
}

/// Vectors of one partition, addressed by the partition's record slots.
#[derive(Debug)]
pub struct VectorIndex {
    dim: usize,
    precision: Precision,
    f32s: Vec<f32>,
    i8s: Vec<i8>,
    scales: Vec<f32>,
    /// Per row: the slot it belongs to, or `None` once removed.
    row_slot: Vec<Option<u32>>,
    slot_row: FxHashMap<u32, u32>,
    ann: Option<Ann>,
    /// Sign codes of the rows once an int8 index holds [`prefilter::MIN_ROWS`].
    codes: Option<SignCodes>,
    /// Above this many live vectors the SDK should build the ANN main index.
    pub ann_threshold: usize,
    params: AnnParams,
}

impl VectorIndex {
    /// An empty index of `dim` dimensions.
    pub fn new(dim: usize, precision: Precision, ann_threshold: usize, params: AnnParams) -> Self {
        VectorIndex {
            dim,
            precision,
            f32s: Vec::new(),
            i8s: Vec::new(),
            scales: Vec::new(),
            row_slot: Vec::new(),
            slot_row: FxHashMap::default(),
            ann: None,
            codes: None,
            ann_threshold,
            params,
        }
    }

    /// Number of live vectors.
    pub fn len(&self) -> usize {
        self.slot_row.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.slot_row.is_empty()
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Store a unit vector for `slot` (replacing any previous one).
    pub fn insert(&mut self, slot: u32, unit_vec: &[f32]) {
        self.remove(slot);
        let row = self.row_slot.len() as u32;
        match self.precision {
            Precision::F32 => self.f32s.extend_from_slice(unit_vec),
            Precision::Int8 => {
                let (scale, q) = kernel::quantize(unit_vec);
                self.i8s.extend_from_slice(&q);
                self.scales.push(scale);
            }
        }
        self.row_slot.push(Some(slot));
        self.slot_row.insert(slot, row);
        if let Some(c) = &mut self.codes {
            c.push(Some(unit_vec));
        } else if self.precision == Precision::Int8 && self.len() >= prefilter::MIN_ROWS {
            let rows = (0..self.row_slot.len()).map(|r| self.row_slot[r].map(|_| self.row_vec(r)));
            self.codes = Some(SignCodes::build(self.dim, rows));
        }
    }

    /// Drop the vector of `slot`, if any (a tombstone for the ANN index).
    pub fn remove(&mut self, slot: u32) {
        if let Some(row) = self.slot_row.remove(&slot) {
            self.row_slot[row as usize] = None;
        }
    }

    /// The stored vector of `slot` (dequantized for int8).
    pub fn get(&self, slot: u32) -> Option<Vec<f32>> {
        let row = *self.slot_row.get(&slot)? as usize;
        Some(self.row_vec(row))
    }

    fn row_vec(&self, row: usize) -> Vec<f32> {
        let r = row * self.dim..(row + 1) * self.dim;
        match self.precision {
            Precision::F32 => self.f32s[r].to_vec(),
            Precision::Int8 => self.i8s[r].iter().map(|q| f32::from(*q) * self.scales[row]).collect(),
        }
    }

    #[inline]
    fn score_row(&self, query: &Query, row: usize) -> f32 {
        let r = row * self.dim..(row + 1) * self.dim;
        match (self.precision, query) {
            (Precision::Int8, Query::Int8 { scale, q }) => kernel::dot_i8_i8(q, &self.i8s[r]) as f32 * scale * self.scales[row],
            (Precision::Int8, Query::F32(v)) => kernel::dot_i8(v, &self.i8s[r]) * self.scales[row],
            (Precision::F32, Query::F32(v)) => kernel::dot(v, &self.f32s[r]),
            (Precision::F32, Query::Int8 { .. }) => 0.0,
        }
    }

    /// Prepare a query for this storage: int8 rows are scored against an int8 query
    /// (integer dot products are ~4× faster), then the best are re-scored in f32.
    fn prepare(&self, query: &[f32]) -> Query {
        match self.precision {
            Precision::F32 => Query::F32(query.to_vec()),
            Precision::Int8 => {
                let (scale, q) = kernel::quantize(query);
                Query::Int8 { scale, q }
            }
        }
    }

    /// Cosine top-`k` slots for a unit `query` whose similarity is at least `min_score`,
    /// among slots `accept` allows. Exact unless an ANN main index is built.
    pub fn search(&self, query: &[f32], k: usize, min_score: f32, accept: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        if k == 0 {
            return Vec::new();
        }
        let prepared = self.prepare(query);
        // Quantized scores carry a small error: screen with a margin, re-score exactly below.
        let margin = if matches!(prepared, Query::Int8 { .. }) { 0.02 } else { 0.0 };
        let want = if margin > 0.0 { k.saturating_mul(4).max(k + 16) } else { k };
        let mut hits = Vec::new();
        // Rows under the `want`-th best score seen so far cannot be among the best: once the
        // list holds twice `want`, it is cut to the best `want` and the floor rises (ties at
        // the floor are kept, for the tie by slot), so 50k rows neither fill a list nor all
        // pass through `accept`.
        let mut floor = min_score - margin;
        // The score first, `accept` only for rows that pass it: a caller's filter may be far
        // dearer than a dot product (the write path's near-duplicate check compares texts),
        // and asking it of every row made each write linear in the store's texts.
        let mut consider = |row: usize, hits: &mut Vec<(u32, f32)>| {
            if let Some(slot) = self.row_slot[row] {
                let s = self.score_row(&prepared, row);
                if s >= floor && accept(slot) {
                    hits.push((slot, s));
                    if hits.len() >= want.saturating_mul(2) {
                        floor = floor.max(cut_to_best(hits, want));
                    }
                }
            }
        };
        match &self.ann {
            Some(ann) => {
                for row in ann.candidates(query) {
                    consider(row as usize, &mut hits);
                }
                for row in ann.covered as usize..self.row_slot.len() {
                    consider(row, &mut hits);
                }
            }
            None => match (&prepared, self.precision) {
                (Query::Int8 { scale, q }, Precision::Int8) => {
                    // The exact scan, unrolled by hand: in the size-optimized wasm build
                    // `score_row`, its match and the slice indexing stay calls per row.
                    let dim = self.dim;
                    // Rows scoring over the floor that `accept` took and turned down.
                    let mut taken = [0usize; 2];
                    let scan = |rows: &mut dyn Iterator<Item = usize>, hits: &mut Vec<(u32, f32)>, floor: &mut f32, taken: &mut [usize; 2]| {
                        for row in rows {
                            let Some(slot) = self.row_slot[row] else { continue };
                            let s = kernel::dot_i8_i8(q, self.i8s.get(row * dim..row * dim + dim).unwrap_or(&[])) as f32 * scale * self.scales[row];
                            if s >= *floor {
                                let took = accept(slot);
                                taken[usize::from(!took)] += 1;
                                if took {
                                    hits.push((slot, s));
                                    if hits.len() >= want.saturating_mul(2) {
                                        *floor = floor.max(cut_to_best(hits, want));
                                    }
                                }
                            }
                        }
                    };
                    match &self.codes {
                        Some(codes) => {
                            let near = codes.nearest(&codes.code(query), self.row_slot.len(), |r| self.row_slot[r].is_some(), prefilter::pool(self.len(), want));
                            scan(&mut near.into_iter().map(|r| r as usize), &mut hits, &mut floor, &mut taken);
                            // A filter that turned down most of the rows the pre-filter kept
                            // (or some, leaving fewer than `k`) shrank its pool: rows outside
                            // it may pass where those did not, so every row is scanned.
                            let [took, refused] = taken;
                            if refused > took || (hits.len() < k && refused > 0) {
                                hits.clear();
                                floor = min_score - margin;
                                scan(&mut (0..self.row_slot.len()), &mut hits, &mut floor, &mut taken);
                            }
                        }
                        None => scan(&mut (0..self.row_slot.len()), &mut hits, &mut floor, &mut taken),
                    }
                }
                _ => {
                    for row in 0..self.row_slot.len() {
                        consider(row, &mut hits);
                    }
                }
            },
        }
        if margin > 0.0 {
            // Re-score a widened candidate list with the f32 query against the int8 rows.
            top_k_by_score(&mut hits, k.saturating_mul(4).max(k + 16));
            let exact = Query::F32(query.to_vec());
            for h in hits.iter_mut() {
                if let Some(&row) = self.slot_row.get(&h.0) {
                    h.1 = self.score_row(&exact, row as usize);
                }
            }
            hits.retain(|h| h.1 >= min_score);
        }
        top_k_by_score(&mut hits, k);
        hits
    }

    /// The best `k` of `slots` (candidates found elsewhere) by exact cosine with a unit
    /// `query`, among those in the index that score at least `min_score` and that
    /// `accept` allows: the cost is the candidates', whatever the index's size.
    pub fn search_among(&self, query: &[f32], slots: &[u32], k: usize, min_score: f32, accept: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        let exact = Query::F32(query.to_vec());
        let mut hits: Vec<(u32, f32)> = slots
            .iter()
            .filter_map(|&slot| Some((slot, self.score_row(&exact, *self.slot_row.get(&slot)? as usize))))
            .filter(|&(slot, s)| s >= min_score && accept(slot))
            .collect();
        top_k_by_score(&mut hits, k);
        hits
    }

    /// The exact top-`k`, ignoring any ANN index (the oracle for recall tests).
    pub fn search_exact(&self, query: &[f32], k: usize) -> Vec<(u32, f32)> {
        let q = Query::F32(query.to_vec());
        let mut hits: Vec<(u32, f32)> = (0..self.row_slot.len())
            .filter_map(|row| self.row_slot[row].map(|slot| (slot, self.score_row(&q, row))))
            .collect();
        top_k_by_score(&mut hits, k);
        hits
    }

    /// True when the partition is past the threshold and the ANN index is missing or
    /// its delta has grown past a quarter of the covered rows.
    pub fn needs_ann_rebuild(&self) -> bool {
        if self.len() < self.ann_threshold {
            return false;
        }
        match &self.ann {
            None => true,
            Some(a) => (self.row_slot.len() - a.covered as usize) * 4 > a.covered as usize,
        }
    }

    /// True when an ANN main index is in use.
    pub fn has_ann(&self) -> bool {
        self.ann.is_some()
    }

    /// Compact removed rows away and build the HNSW main index over every live vector.
    /// Below the threshold this only compacts and drops any ANN index.
    pub fn rebuild(&mut self) {
        let live: Vec<(u32, Vec<f32>)> =
            (0..self.row_slot.len()).filter_map(|row| self.row_slot[row].map(|slot| (slot, self.row_vec(row)))).collect();
        let mut fresh = VectorIndex::new(self.dim, self.precision, self.ann_threshold, self.params);
        for (slot, v) in &live {
            fresh.insert(*slot, v);
        }
        if live.len() >= self.ann_threshold && !live.is_empty() {
            let rows: Vec<(u32, Vec<f32>)> = live.into_iter().enumerate().map(|(row, (_, v))| (row as u32, v)).collect();
            let covered = rows.len() as u32;
            fresh.ann = Some(Ann::build(rows, covered, self.params));
        }
        *self = fresh;
    }
}

#[cfg(test)]
mod tests;
