//! The lexical channel's spread over what was said together: a memory's BM25 score plus a
//! share of its neighbours' (see `read::timeline`), computed only for the slots that can
//! reach the channel's pool.

use rustc_hash::FxHashMap;

use crate::store::partition::Partition;
use crate::hlc::Millis;
use crate::index::lexical::Scores;
use crate::index::vector::{from_order_key, order_key, top_k_by_score};

/// How much a memory's words count for the memories said just before and after it (see
/// `read::timeline`): a memory's lexical score is its own plus this share of the scores
/// of up to [`SPREAD_RADIUS`] neighbours on each side. On LoCoMo's development split this
/// took BM25's recall@10 from 0.604 to 0.709 (0.3: 0.705, 0.5: 0.717 with a lower
/// recall@1). The vector channel is not spread: with the default table, spreading its
/// cosines lowered the fused recall (0.2: −0.01, 0.4: −0.02).
const LEXICAL_SPREAD: f32 = 0.4;
/// The turn just after a question, said by the other speaker, is its reply, and counts the
/// question's words as its own: "5 years already!" answers "How long have you been
/// married?" in none of its words. A whole share, not [`LEXICAL_SPREAD`]'s: the two lines
/// state one fact. Not fitted; on LoCoMo's development split recall@10 went 0.761 → 0.771
/// (no embedder: 0.756 → 0.766; with every turn stamped at one moment, where neighbours
/// run across sessions, 0.762 → 0.758).
const REPLY_SHARE: f32 = 1.0;
/// Neighbours on each side whose matches count.
const SPREAD_RADIUS: usize = 2;
/// Memories further apart than this were not said together (30 minutes).
const SPREAD_GAP_MS: Millis = 30 * 60 * 1000;
/// Each channel's own best `SPREAD_POOL × n` matches, and their neighbours, are scored.
const SPREAD_POOL: usize = 2;

/// The `n` best `accept`ed slots by their own lexical score plus [`LEXICAL_SPREAD`] of
/// their neighbours' ([`REPLY_SHARE`] of the question a slot replies to) (`raw`: the BM25
/// scores of matching slots, of which only the `live` count; a slot's own score is its raw
/// score times the query's `boost` for it), best first. Candidates are the best
/// `SPREAD_POOL × n` own matches and their neighbours, so a turn that answers in other
/// words than the question's ("Yes, last Tuesday") is found through the turn before it.
///
/// Boosts are computed only for the slots that can reach the pool: a boost lies in
/// `[1, max_boost]`, so a slot whose raw score times `max_boost` is under the pool's
/// `SPREAD_POOL × n`-th raw score cannot be in it — the same pool as boosting every match,
/// without reading every matching text (a speaker's name matches half a transcript).
/// Liveness too is asked only of the slots that can reach the pool and of neighbours: a
/// query word common to 50k chunks matches 50k slots.
pub(crate) fn said_together(
    p: &Partition,
    raw: &Scores,
    live: &impl Fn(u32) -> bool,
    boost: &impl Fn(u32) -> f32,
    max_boost: f32,
    n: usize,
    accept: &impl Fn(u32) -> bool,
) -> Vec<(u32, f32)> {
    let mut boosted: FxHashMap<u32, f32> = FxHashMap::default();
    let mut own = |slot: u32| -> f32 {
        let Some(r) = raw.get(slot) else { return 0.0 };
        *boosted.entry(slot).or_insert_with(|| if live(slot) { r * boost(slot) } else { 0.0 })
    };
    // The pool's boosts are not memoized: tens of thousands of slots may reach the floor
    // (a name and a topic each held by a tenth of 100k memories), and a hash insert each
    // cost more than the boost; `best_boosted` asks only live slots, as `own` would.
    let pool = best_boosted(raw.iter(), live, &mut |slot| raw.get(slot).map_or(0.0, |r| r * boost(slot)), max_boost, SPREAD_POOL * n);
    let mut around: FxHashMap<u32, Vec<(u32, usize)>> = FxHashMap::default();
    for &(slot, _) in &pool {
        for s in std::iter::once(slot).chain(around_of(p, &mut around, slot).iter().map(|&(s, _)| s).collect::<Vec<_>>()) {
            around_of(p, &mut around, s);
        }
    }
    let mut out: Vec<(u32, f32)> = Vec::with_capacity(around.len());
    for (&slot, near) in &around {
        if !accept(slot) {
            continue;
        }
        // Slots are given in the order memories are stored, never reused: of a chat's turns,
        // the lower was said first.
        let here = p.cues(slot).and_then(|c| c.speaker());
        let reply_to = |s: u32, d: usize| d == 1 && s < slot && p.cues(s).is_some_and(|c| c.asks() && c.speaker() != here);
        let spread: f32 = near.iter().map(|&(s, d)| if reply_to(s, d) { REPLY_SHARE } else { fitted!(LexicalSpread, LEXICAL_SPREAD) } * own(s)).sum();
        let total = own(slot) + spread;
        if total > 0.0 {
            out.push((slot, total));
        }
    }
    top_k_by_score(&mut out, n);
    out
}

/// The `want` best `live` slots by `own` (a raw score times a boost in `[1, max_boost]`),
/// best first, calling `own` only for slots whose raw score times `max_boost` reaches the
/// `want`-th best live raw score (any slot of the result scores at least that much), and
/// `live` only for slots that reach the `want`-th best raw score seen so far. One pass:
/// the `want` best raw scores in a min-heap, the slots that may reach its floor beside.
fn best_boosted(
    raw: impl Iterator<Item = (u32, f32)>,
    live: impl Fn(u32) -> bool,
    own: &mut impl FnMut(u32) -> f32,
    max_boost: f32,
    want: usize,
) -> Vec<(u32, f32)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if want == 0 {
        return Vec::new();
    }
    let key = order_key;
    let mut best: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::with_capacity(want + 1);
    let mut floor = f32::NEG_INFINITY;
    let mut near: Vec<(u32, f32)> = Vec::new();
    for (slot, r) in raw {
        let full = best.len() == want;
        if full && r * max_boost < floor {
            continue;
        }
        if !live(slot) {
            continue;
        }
        near.push((slot, r));
        if !full {
            best.push(Reverse((key(r), slot)));
        } else if best.peek().is_some_and(|least| key(r) > least.0 .0) {
            best.pop();
            best.push(Reverse((key(r), slot)));
        }
        if best.len() == want {
            floor = best.peek().map_or(floor, |least| from_order_key(least.0 .0));
        }
    }
    let floor = if best.len() == want { floor } else { 0.0 };
    let mut pool: Vec<(u32, f32)> = near.into_iter().filter(|&(_, r)| r * max_boost >= floor).map(|(s, _)| (s, own(s))).collect();
    top_k_by_score(&mut pool, want);
    pool
}

/// The memories said around `slot` (see `Partition::said_around`), looked up once.
fn around_of<'m>(p: &Partition, memo: &'m mut FxHashMap<u32, Vec<(u32, usize)>>, slot: u32) -> &'m [(u32, usize)] {
    memo.entry(slot).or_insert_with(|| p.said_around(slot, SPREAD_RADIUS, SPREAD_GAP_MS))
}

#[cfg(test)]
mod tests {
    use super::best_boosted;
    use crate::read::cues::MAX_BOOST;
    use crate::index::vector::{kth_best_score, top_k_by_score};
    use proptest::prelude::*;
    use rustc_hash::FxHashMap;

    /// The pool as recall took it before liveness was asked lazily (the oracle): the dead
    /// matches dropped first, then the floor by a k-th best over every live match, then
    /// every live match reaching it boosted.
    fn pool_of_live_matches_first(raw: &[(u32, f32)], live: impl Fn(u32) -> bool, own: impl Fn(u32) -> f32, max_boost: f32, want: usize) -> Vec<(u32, f32)> {
        let live: Vec<(u32, f32)> = raw.iter().copied().filter(|&(s, _)| live(s)).collect();
        let floor = kth_best_score(live.iter().map(|&(_, r)| r), want).unwrap_or(0.0);
        let mut pool: Vec<(u32, f32)> = live.into_iter().filter(|&(_, r)| r * max_boost >= floor).map(|(s, _)| (s, own(s))).collect();
        top_k_by_score(&mut pool, want);
        pool
    }

    proptest! {
        #[test]
        fn asking_liveness_only_of_slots_that_can_reach_the_pool_gives_the_pool_of_dropping_the_dead_first(
            // Few distinct raw scores, so that ties at the floor are common (BM25 over similar chunks).
            matches in proptest::collection::vec((0u8..12, 0.0f32..1.0, proptest::bool::weighted(0.7)), 0..400),
            want in 0usize..80,
            boosted in proptest::bool::ANY,
        ) {
            let max_boost = if boosted { MAX_BOOST } else { 1.0 };
            let raw: Vec<(u32, f32)> = matches.iter().enumerate().map(|(i, m)| (i as u32 * 3 + 1, 0.25 + f32::from(m.0) * 0.37)).collect();
            let at = |s: u32| &matches[(s / 3) as usize];
            let live = |s: u32| at(s).2;
            let own = |s: u32| raw[(s / 3) as usize].1 * (1.0 + (max_boost - 1.0) * at(s).1);
            let expected = pool_of_live_matches_first(&raw, live, own, max_boost, want);
            let asked = std::cell::Cell::new(0);
            let lazy = best_boosted(raw.iter().copied(), |s| { asked.set(asked.get() + 1); live(s) }, &mut |s| own(s), max_boost, want);
            prop_assert_eq!(lazy, expected);
            prop_assert!(asked.get() <= raw.len());
        }

        #[test]
        fn boosting_only_the_slots_that_can_reach_the_pool_gives_the_pool_of_boosting_all(
            matches in proptest::collection::vec((0.0f32..20.0, 0.0f32..1.0), 0..300),
            want in 1usize..60,
        ) {
            let raw: FxHashMap<u32, f32> = matches.iter().enumerate().map(|(i, m)| (i as u32, m.0)).collect();
            let boost = |s: u32| 1.0 + (MAX_BOOST - 1.0) * matches[s as usize].1;
            let mut all: Vec<(u32, f32)> = raw.iter().map(|(&s, &r)| (s, r * boost(s))).collect();
            top_k_by_score(&mut all, want);
            let mut calls = 0;
            let pairs: Vec<(u32, f32)> = raw.iter().map(|(&s, &r)| (s, r)).collect();
            let lazy = best_boosted(pairs.iter().copied(), |_| true, &mut |s| { calls += 1; raw[&s] * boost(s) }, MAX_BOOST, want);
            prop_assert_eq!(lazy, all);
            prop_assert!(calls <= raw.len());
        }
    }

    #[test]
    fn a_speakers_name_in_every_line_does_not_make_recall_boost_every_line() {
        // 1,000 lines match weakly (the name), 10 strongly: only those near the pool's floor are boosted.
        let raw: FxHashMap<u32, f32> = (0..1010u32).map(|s| (s, if s < 10 { 10.0 } else { 0.1 })).collect();
        let mut calls = 0;
        let pairs: Vec<(u32, f32)> = raw.iter().map(|(&s, &r)| (s, r)).collect();
        let pool = best_boosted(pairs.iter().copied(), |_| true, &mut |s| { calls += 1; raw[&s] }, MAX_BOOST, 5);
        assert_eq!(pool.len(), 5);
        assert_eq!(calls, 10, "only the strong matches could reach the pool");
    }

    #[test]
    fn liveness_is_asked_only_of_matches_that_can_reach_the_pool() {
        // 1,000 weak matches after 10 strong ones: once the pool's floor is known, the weak are never looked up.
        let raw: Vec<(u32, f32)> = (0..1010u32).map(|s| (s, if s < 10 { 10.0 } else { 0.1 })).collect();
        let asked = std::cell::Cell::new(0);
        let pool = best_boosted(raw.iter().copied(), |_| { asked.set(asked.get() + 1); true }, &mut |s| raw[s as usize].1, 1.0, 5);
        assert_eq!(pool.iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        assert_eq!(asked.get(), 10);
    }
}
