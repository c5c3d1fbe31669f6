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

/// Current records by `(created_at, id)`.
#[derive(Debug, Default, Clone)]
pub struct Timeline {
    order: BTreeMap<(Millis, Box<str>), u32>,
}

impl Timeline {
    /// Place `record`, stored in `slot`.
    pub fn insert(&mut self, record: &Record, slot: u32) {
        self.order.insert((record.created_at, record.id.as_str().into()), slot);
    }

    /// Take `record` out.
    pub fn remove(&mut self, record: &Record) {
        self.order.remove(&(record.created_at, Box::<str>::from(record.id.as_str())));
    }

    /// Up to `radius` records on each side of `record` that were said together with it —
    /// same scope (so the same session and agent), at most `gap` apart in time, with no
    /// larger gap between — nearest first, with their distance (1 = adjacent). `same`
    /// tells whether a slot's record shares the scope; records of other scopes in between
    /// are passed over without counting.
    pub fn around(&self, record: &Record, radius: usize, gap: Millis, same: impl Fn(u32) -> bool) -> Vec<(u32, usize)> {
        let mut out = Vec::with_capacity(2 * radius);
        if radius == 0 {
            return out;
        }
        let key = (record.created_at, Box::<str>::from(record.id.as_str()));
        // Bounded walk: a busy interleaving of other scopes must not make recall scan far.
        let steps = 4 * radius;
        let mut walk = |it: &mut dyn Iterator<Item = (&(Millis, Box<str>), &u32)>| {
            let (mut found, mut last) = (0, record.created_at);
            for ((at, _), &slot) in it.take(steps) {
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
        walk(&mut self.order.range(..key.clone()).rev());
        walk(&mut self.order.range((Bound::Excluded(key), Bound::Unbounded)));
        out.sort_by_key(|&(_, d)| d);
        out
    }
}
