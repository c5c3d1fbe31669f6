//! One stable sort for the core. Each `slice::sort_by` with its own comparator is its own
//! copy of the standard library's driftsort in the wasm module, about 6 KB of code each:
//! 22 of them were 140 KB of the module. The sorts here order records, turns, candidates
//! and query terms — a few thousand items at most, off the vector and token kernels — so
//! one merge sort of positions, its comparator behind `dyn`, serves them all; only the
//! small generic shell around it is copied per type.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The set of `items`, built by inserts. `collect()` into a `BTreeSet` sorts its input
/// first, with one more copy of driftsort per element type in the module (about 2 KB of
/// gzip each; eleven of them were 21 KB of code).
pub fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut s = BTreeSet::new();
    for x in items {
        s.insert(x);
    }
    s
}

/// The map of `items`, built by inserts: a later value of a key replaces an earlier one, as
/// `collect()` does, without its sort.
pub fn map<K: Ord, V>(items: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut m = BTreeMap::new();
    for (k, v) in items {
        m.insert(k, v);
    }
    m
}

/// Sort `v` stably by `cmp`: the order `v.sort_by(cmp)` gives.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = stable_order(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    permute(v, &order);
}

/// Sort `v` stably by a key: the order `v.sort_by_key(key)` gives.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sort `v` stably: the order `v.sort()` gives.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Runs this short are sorted by insertion before merging.
const RUN: usize = 8;

/// Positions `0..n` in the stable order of `cmp` over positions: insertion sort of runs,
/// then bottom-up merges, O(n log n) comparisons. One copy in the module, whatever is sorted.
#[inline(never)]
fn stable_order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<u32> {
    let mut a: Vec<u32> = (0..n as u32).collect();
    for start in (0..n).step_by(RUN) {
        for i in start + 1..(start + RUN).min(n) {
            let mut j = i;
            while j > start && cmp(a[j - 1] as usize, a[j] as usize) == Ordering::Greater {
                a.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    let mut b = vec![0u32; n];
    let mut width = RUN;
    while width < n {
        let mut start = 0;
        while start < n {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                // The left one first unless the right is strictly less: stable.
                if cmp(a[j] as usize, a[i] as usize) == Ordering::Less {
                    b[k] = a[j];
                    j += 1;
                } else {
                    b[k] = a[i];
                    i += 1;
                }
                k += 1;
            }
            b[k..k + mid - i].copy_from_slice(&a[i..mid]);
            k += mid - i;
            b[k..end].copy_from_slice(&a[j..end]);
            start = end;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Reorder `v` so that position `i` holds what was at `order[i]`, by following each cycle
/// of the permutation with swaps.
fn permute<T>(v: &mut [T], order: &[u32]) {
    let mut done = vec![false; v.len()];
    for i in 0..v.len() {
        let mut j = i;
        while !done[j] {
            done[j] = true;
            let k = order[j] as usize;
            if k == i {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorting_gives_the_standard_librarys_stable_order(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..300)) {
            let mut ours = v.clone();
            let mut theirs = v.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            theirs.sort_by(|a, b| a.0.cmp(&b.0));
            prop_assert_eq!(&ours, &theirs, "ties keep their order");
            let (mut ours, mut theirs) = (v.clone(), v);
            sort(&mut ours);
            theirs.sort();
            prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn owned_values_are_moved_not_lost_or_copied() {
        let mut v: Vec<String> = (0..1000).map(|i| format!("{}", (i * 7919) % 1000)).collect();
        let mut expected = v.clone();
        expected.sort_by_key(|s| s.len());
        sort_by_key(&mut v, |s| s.len());
        assert_eq!(v, expected);
    }
}
