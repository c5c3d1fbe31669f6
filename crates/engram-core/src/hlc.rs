//! Hybrid logical clock. Each replica stamps its ops with `(wall_ms, counter, replica)`;
//! stamps are totally ordered, so last-writer-wins merges agree on every replica.
//! The wall time is passed in (the core has no clock).

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch, supplied by the caller.
pub type Millis = i64;

/// A point in hybrid-logical time. Ordered by wall time, then counter, then replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Stamp {
    pub wall_ms: Millis,
    pub counter: u32,
    pub replica: u64,
}

/// A replica's clock: monotonic even when the supplied wall time goes backwards.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hlc {
    replica: u64,
    last: Stamp,
}

impl Hlc {
    /// A clock for `replica` that has issued nothing yet.
    pub fn new(replica: u64) -> Self {
        Hlc { replica, last: Stamp { wall_ms: Millis::MIN, counter: 0, replica } }
    }

    /// The same clock issuing stamps as `replica` from now on: a store reopened by another
    /// instance (or copied to another machine) must never continue its writer's stream.
    pub fn with_replica(self, replica: u64) -> Self {
        Hlc { replica, last: Stamp { replica, ..self.last } }
    }

    /// This clock's replica id.
    pub fn replica(&self) -> u64 {
        self.replica
    }

    /// Issue a stamp for a local event at wall time `now`; strictly greater than every
    /// stamp issued or observed before.
    pub fn tick(&mut self, now: Millis) -> Stamp {
        let next = if now > self.last.wall_ms {
            Stamp { wall_ms: now, counter: 0, replica: self.replica }
        } else {
            Stamp { wall_ms: self.last.wall_ms, counter: self.last.counter.saturating_add(1), replica: self.replica }
        };
        self.last = next;
        next
    }

    /// Fold in a stamp seen from another replica so later local stamps order after it.
    pub fn observe(&mut self, seen: Stamp) {
        if (seen.wall_ms, seen.counter) > (self.last.wall_ms, self.last.counter) {
            self.last = Stamp { wall_ms: seen.wall_ms, counter: seen.counter, replica: self.replica };
        }
    }

    /// The last stamp issued or observed.
    pub fn last(&self) -> Stamp {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_increase_even_when_wall_time_goes_backwards() {
        let mut c = Hlc::new(7);
        let a = c.tick(1_000);
        let b = c.tick(900);
        let d = c.tick(900);
        assert!(a < b && b < d);
        assert_eq!(b.wall_ms, 1_000);
    }

    #[test]
    fn observing_a_remote_stamp_orders_later_local_stamps_after_it() {
        let mut c = Hlc::new(1);
        c.observe(Stamp { wall_ms: 5_000, counter: 3, replica: 9 });
        let s = c.tick(10);
        assert!(s > Stamp { wall_ms: 5_000, counter: 3, replica: 9 });
    }
}
