//! The spans dated queries resolve to: a [`Period`], and the day, month and year spans with
//! the day's slack every named date carries (a user's day may be another in UTC).

use regex_lite::Regex;

use crate::calendar::{civil, day_start, DAY_MS};
use crate::hlc::Millis;

/// A span of time a query names: `from` inclusive, `to` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub from: Millis,
    pub to: Millis,
}

impl Period {
    /// True when `at` falls within the period.
    pub fn holds(&self, at: Millis) -> bool {
        self.from <= at && at < self.to
    }
}

/// From `from` to `to` (exclusive) with a day's slack on each side: a user's day may be
/// another in UTC.
pub(crate) fn with_slack(from: Millis, to: Millis) -> Period {
    Period { from: from - DAY_MS, to: to + DAY_MS }
}

/// The day starting at `start`, with a day's slack on each side.
pub(crate) fn day_period(start: Millis) -> Period {
    with_slack(start, start + DAY_MS)
}

/// The month starting at `start`, with a day's slack on each side.
pub(crate) fn month_period(start: Millis) -> Period {
    let (y, m, _) = civil(start);
    let next = if m == 12 { day_start(y + 1, 1, 1) } else { day_start(y, m + 1, 1) };
    with_slack(start, next)
}

/// The civil year `y`, with a day's slack on each side.
pub(crate) fn year_period(y: i64) -> Period {
    with_slack(day_start(y, 1, 1), day_start(y + 1, 1, 1))
}

/// A query pattern (every one is a constant of this module: a bad one is a bug).
pub(crate) fn pattern(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| unreachable!("date pattern {p}: {e}"))
}
