//! The order in which a user's memories were said, and which of them were said together.
//!
//! A turn of a conversation is often understood only with the turns around it ("Yes, last
//! Tuesday" answers the question before it), and questions about a conversation are
//! answered by a few adjacent turns. Recall therefore lets a memory's match count for the
//! memories said just before and after it ([`Timeline::around`]). The order is by
//! `(created_at, id)`, which every replica computes alike whatever order records arrived in.

use std::collections::BTreeMap;
use std::ops::Bound;

use crate::hlc::Millis;
use crate::model::Record;

/// No slot: the end of the timeline, or a slot that is not on it.
const NONE: u32 = u32::MAX;

/// A slot's place on the timeline: the slots just before and after it, and its time.
#[derive(Debug, Clone, Copy)]
struct Link {
    prev: u32,
    next: u32,
    at: Millis,
    on: bool,
}

const OFF: Link = Link { prev: NONE, next: NONE, at: 0, on: false };

/// Current records by `(created_at, id)`, and per slot its neighbours in that order.
///
/// The ordered map places a record when it arrives; recall then walks neighbours by the
/// links, without searching the map: a query looks at the neighbours of hundreds of
/// matching turns, and on a conversation whose turns share a session's date every search
/// compared ids (about 40 % of recall in wasm).
#[derive(Debug, Default, Clone)]
pub struct Timeline {
    order: BTreeMap<(Millis, Box<str>), u32>,
    links: Vec<Link>,
}

impl Timeline {
    /// Place `record`, stored in `slot`.
    pub fn insert(&mut self, record: &Record, slot: u32) {
        let key = (record.created_at, Box::<str>::from(record.id.as_str()));
        if let Some(old) = self.order.remove(&key) {
            self.unlink(old);
        }
        let prev = self.order.range(..key.clone()).next_back().map_or(NONE, |(_, &s)| s);
        let next = self.order.range((Bound::Excluded(key.clone()), Bound::Unbounded)).next().map_or(NONE, |(_, &s)| s);
        self.order.insert(key, slot);
        let i = slot as usize;
        if self.links.len() <= i {
            self.links.resize(i + 1, OFF);
        }
        self.links[i] = Link { prev, next, at: record.created_at, on: true };
        if let Some(p) = self.link_mut(prev) {
            p.next = slot;
        }
        if let Some(n) = self.link_mut(next) {
            n.prev = slot;
        }
    }

    /// Take `record` out.
    pub fn remove(&mut self, record: &Record) {
        if let Some(slot) = self.order.remove(&(record.created_at, Box::<str>::from(record.id.as_str()))) {
            self.unlink(slot);
        }
    }

    fn unlink(&mut self, slot: u32) {
        let Some(&Link { prev, next, .. }) = self.links.get(slot as usize) else { return };
        if let Some(p) = self.link_mut(prev) {
            p.next = next;
        }
        if let Some(n) = self.link_mut(next) {
            n.prev = prev;
        }
        self.links[slot as usize] = OFF;
    }

    fn link_mut(&mut self, slot: u32) -> Option<&mut Link> {
        if slot == NONE {
            None
        } else {
            self.links.get_mut(slot as usize)
        }
    }

    /// The slots of the records written at or after `from` and before `to`, those nearest
    /// to `mid` first (of two as near, the earlier).
    pub fn nearest_within(&self, from: Millis, to: Millis, mid: Millis) -> impl Iterator<Item = u32> + '_ {
        let to = to.max(from);
        let mid = mid.clamp(from, to);
        let key = |at: Millis| (at, Box::<str>::from(""));
        let mut after = self.order.range(key(mid)..key(to)).peekable();
        let mut before = self.order.range(key(from)..key(mid)).rev().peekable();
        std::iter::from_fn(move || {
            let later = match (before.peek(), after.peek()) {
                (None, None) => return None,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(((b, _), _)), Some(((a, _), _))) => a - mid < mid - b,
            };
            let next = if later { after.next() } else { before.next() };
            next.map(|(_, &slot)| slot)
        })
    }

    /// True when `slot` is on the timeline.
    fn holds(&self, slot: u32) -> bool {
        self.links.get(slot as usize).is_some_and(|l| l.on)
    }

    /// Up to `radius` records on each side of the one in `slot` that were said together
    /// with it — same scope (so the same session and agent), at most `gap` apart in time,
    /// with no larger gap between — nearest first, with their distance (1 = adjacent).
    /// `same` tells whether a slot's record shares the scope; records of other scopes in
    /// between are passed over without counting. A slot not on the timeline (its record
    /// superseded or gone) has none.
    pub fn around(&self, slot: u32, radius: usize, gap: Millis, same: impl Fn(u32) -> bool) -> Vec<(u32, usize)> {
        let mut out = Vec::with_capacity(2 * radius);
        if radius == 0 || !self.holds(slot) {
            return out;
        }
        let here = self.links[slot as usize];
        // Bounded walk: a busy interleaving of other scopes must not make recall scan far.
        let steps = 4 * radius;
        let mut walk = |forward: bool| {
            let (mut found, mut last) = (0, here.at);
            let mut at = if forward { here.next } else { here.prev };
            for _ in 0..steps {
                let Some(&l) = self.links.get(at as usize) else { break };
                if (l.at - last).abs() > gap {
                    break;
                }
                if same(at) {
                    found += 1;
                    last = l.at;
                    out.push((at, found));
                    if found == radius {
                        break;
                    }
                }
                at = if forward { l.next } else { l.prev };
            }
        };
        walk(false);
        walk(true);
        // Nearest first, the earlier side first among equals: a stable insertion sort of a
        // few neighbours (no sort routine more in the module).
        for i in 1..out.len() {
            let mut j = i;
            while j > 0 && out[j - 1].1 > out[j].1 {
                out.swap(j - 1, j);
                j -= 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Kind, Scope};
    use proptest::prelude::*;

    fn record(id: u32, at: Millis) -> Record {
        Record::fresh(format!("m{id:03}"), Scope::user("t", "u"), Kind::Message, String::new(), Default::default(), at)
    }

    /// What `around` answered before the links: a walk of the ordered map itself.
    fn by_search(order: &BTreeMap<(Millis, Box<str>), u32>, key: &(Millis, Box<str>), radius: usize, gap: Millis, same: &impl Fn(u32) -> bool) -> Vec<(u32, usize)> {
        let mut out = Vec::new();
        let mut walk = |it: &mut dyn Iterator<Item = (&(Millis, Box<str>), &u32)>| {
            let (mut found, mut last) = (0, key.0);
            for ((at, _), &slot) in it.take(4 * radius) {
                if (at - last).abs() > gap {
                    break;
                }
                if same(slot) {
                    found += 1;
                    last = *at;
                    out.push((slot, found));
                    if found == radius {
                        break;
                    }
                }
            }
        };
        walk(&mut order.range(..key.clone()).rev());
        walk(&mut order.range((Bound::Excluded(key.clone()), Bound::Unbounded)));
        crate::sort::sort_by_key(&mut out, |&(_, d)| d);
        out
    }

    proptest! {
        #[test]
        fn walking_the_links_finds_the_neighbours_a_search_of_the_order_finds(
            ops in proptest::collection::vec((0u32..40, 0i64..12, any::<bool>()), 1..120),
            radius in 1usize..4,
            gap in 0i64..4,
        ) {
            let mut t = Timeline::default();
            let mut placed: std::collections::BTreeMap<u32, Record> = Default::default();
            for (i, &(id, at, add)) in ops.iter().enumerate() {
                if add {
                    // A record placed again (same id) goes to a new slot, as in a partition.
                    if let Some(old) = placed.remove(&id) {
                        t.remove(&old);
                    }
                    let r = record(id, at);
                    t.insert(&r, i as u32);
                    placed.insert(id, r);
                } else if let Some(old) = placed.remove(&id) {
                    t.remove(&old);
                }
            }
            let same = |s: u32| s % 3 != 0;
            for (slot, r) in t.order.iter().map(|(k, &s)| (s, k.clone())).collect::<Vec<_>>() {
                prop_assert_eq!(t.around(slot, radius, gap, same), by_search(&t.order, &r, radius, gap, &same));
            }
            // The records written in [from, to), nearest to `mid` first: the placed ones,
            // filtered and sorted by distance, the earlier side first, then as walked.
            for (from, to, mid) in [(0, 12, 6), (3, 7, 5), (5, 5, 5), (7, 3, 4), (0, 12, 0), (2, 9, 20)] {
                let m = mid.clamp(from, to.max(from));
                let later = |r: &Record| r.created_at >= m;
                let mut want: Vec<&Record> = placed.values().filter(|r| (from..to).contains(&r.created_at)).collect();
                want.sort_by(|a, b| {
                    ((a.created_at - m).abs(), later(a)).cmp(&((b.created_at - m).abs(), later(b))).then_with(|| if later(a) { a.id.cmp(&b.id) } else { b.id.cmp(&a.id) })
                });
                let slots: Vec<u32> = want.iter().map(|r| t.order[&(r.created_at, Box::from(r.id.as_str()))]).collect();
                prop_assert_eq!(t.nearest_within(from, to, mid).collect::<Vec<_>>(), slots);
            }
        }
    }

    #[test]
    fn a_slot_off_the_timeline_has_no_neighbours() {
        let mut t = Timeline::default();
        let (a, b) = (record(1, 10), record(2, 10));
        t.insert(&a, 0);
        t.insert(&b, 1);
        assert_eq!(t.around(0, 2, 5, |_| true), vec![(1, 1)]);
        t.remove(&b);
        assert_eq!(t.around(0, 2, 5, |_| true), vec![]);
        assert_eq!(t.around(1, 2, 5, |_| true), vec![]);
        assert_eq!(t.around(7, 2, 5, |_| true), vec![]);
    }
}
