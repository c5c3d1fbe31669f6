//! Civil (proleptic Gregorian, UTC) dates ↔ moments, for what reads or writes a calendar
//! date: a compacted episode's month, a query that names a day. H. Hinnant's algorithms,
//! exact for every day count an `i64` of milliseconds can hold.

pub use crate::read::decay::DAY_MS;
use crate::hlc::Millis;

/// The months' English names, lowercased, January first.
pub const MONTH_NAMES: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/// The moment (UTC midnight) that starts `year-month-day`. `month` is 1–12; a `day` past
/// the month's end counts on into the next month, as the algorithm does.
pub fn day_start(year: i64, month: u32, day: u32) -> Millis {
    let m = i64::from(month);
    let y = if m <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) * DAY_MS
}

/// The civil date `(year, month, day)` (UTC) of a moment.
pub fn civil(at: Millis) -> (i64, u32, u32) {
    let z = at.div_euclid(DAY_MS) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_days_map_to_their_moments() {
        assert_eq!(day_start(1970, 1, 1), 0);
        assert_eq!(day_start(2023, 5, 8), 1_683_504_000_000);
        assert_eq!(civil(1_683_504_000_000 + 13 * 3_600_000), (2023, 5, 8));
        assert_eq!(civil(-1), (1969, 12, 31));
        assert_eq!(day_start(2024, 2, 29) + DAY_MS, day_start(2024, 3, 1));
    }

    proptest! {
        #[test]
        fn a_moments_civil_date_starts_on_or_before_it_and_the_next_day_after(at in -10_000_000_000_000i64..10_000_000_000_000) {
            let (y, m, d) = civil(at);
            let start = day_start(y, m, d);
            prop_assert!(start <= at && at < start + DAY_MS);
            prop_assert!((1..=12).contains(&m) && (1..=31).contains(&d));
        }
    }
}
