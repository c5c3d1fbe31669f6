//! A query that names a date asks for what was said then: "What did Maria share on
//! 16 June, 2023?", "What happened to John's job in August 2023?", "the week before
//! August 3", "5月3日说了什么", or from today: "yesterday", "last week", "two months ago",
//! "上周" (`relative`). Recall's date channel (`Engram::candidates`) ranks only the
//! memories written within the period the query names — a memory's time is when it was
//! written (`created_at`), as a chat app stamps each turn.
//!
//! A day is read with a day's slack on each side (a user's "on May 3" may be another
//! date in UTC); a month or a year as a whole, with the same slack; "before" or "after"
//! a day reaches two weeks back or on from it. A day or month named without a year is
//! the latest one not after `now`. Within the period the channel ranks what the query's
//! words match first, then the period's other memories, nearest its middle first (its
//! edges are slack): "what did we talk about yesterday?" shares no word with what was said.

use std::sync::OnceLock;

use regex_lite::{Captures, Regex};

use crate::calendar::{civil, day_start, DAY_MS, MONTH_NAMES};
use crate::hlc::Millis;
use period::{day_period, month_period, pattern, year_period};
use relative::relative_period;

mod period;
mod relative;

pub use period::Period;

/// How far "before" or "after" a named day reaches.
const AROUND: Millis = 14 * DAY_MS;

struct Patterns {
    /// "3 June, 2023", "3rd of June", "June 3, 2023", "June 3rd".
    day_month: Regex,
    month_day: Regex,
    /// "June 2023", "in June", "last June".
    month_year: Regex,
    in_month: Regex,
    /// "in 2023".
    in_year: Regex,
    /// "2023年5月3日", "5月3号", "2023年5月".
    cjk: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let m = MONTH_NAMES.join("|");
        Patterns {
            day_month: pattern(&format!(r"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? ({m})\b(?:,? (\d{{4}})\b)?")),
            month_day: pattern(&format!(r"\b({m}) (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}})\b)?")),
            month_year: pattern(&format!(r"\b({m}),? (\d{{4}})\b")),
            in_month: pattern(&format!(r"\b(?:in|during|of|last|this) ({m})\b")),
            in_year: pattern(r"\b(?:in|during) ((?:19|20)\d\d)\b"),
            cjk: pattern(r"(?:(\d{4})年)?(\d{1,2})月(?:(\d{1,2})[日号])?"),
        }
    })
}

/// The period `query` names, read at `now`; `None` when it names no date. A calendar date
/// ("May 3", "in August 2023") is read before a relative one ("last week", `relative`).
pub fn named_period(query: &str, now: Millis) -> Option<Period> {
    let q = query.to_lowercase();
    calendar_period(&q, now).or_else(|| relative_period(&q, now))
}

/// The calendar date `q` (lowercased) names, read at `now`.
fn calendar_period(q: &str, now: Millis) -> Option<Period> {
    // Most queries name no date: without a digit or a month name no pattern can match.
    if !q.bytes().any(|b| b.is_ascii_digit()) && !MONTH_NAMES.iter().any(|m| q.contains(m)) {
        return None;
    }
    let p = patterns();
    let month = |c: &Captures, i: usize| c.get(i).and_then(|m| MONTH_NAMES.iter().position(|&n| n == m.as_str())).map(|i| i as u32 + 1);
    let number = |c: &Captures, i: usize| c.get(i).and_then(|m| m.as_str().parse::<i64>().ok());
    let day_period = |c: &Captures, year: Option<i64>, month: u32, day: i64| {
        if !(1..=31).contains(&day) {
            return None;
        }
        let start = resolve(year, now, |y| day_start(y, month, day as u32));
        if civil(start).1 != month {
            return None; // "February 31"
        }
        let before = q[..c.get(0)?.start()].trim_end();
        Some(if before.ends_with("before") {
            Period { from: start - AROUND, to: start + DAY_MS }
        } else if before.ends_with("after") || before.ends_with("since") {
            Period { from: start, to: start + AROUND + DAY_MS }
        } else {
            day_period(start)
        })
    };
    if let Some(c) = p.day_month.captures(q) {
        return day_period(&c, number(&c, 3), month(&c, 2)?, number(&c, 1)?);
    }
    if let Some(c) = p.month_day.captures(q) {
        return day_period(&c, number(&c, 3), month(&c, 1)?, number(&c, 2)?);
    }
    if let Some(c) = p.cjk.captures(q) {
        let m = number(&c, 2).filter(|m| (1..=12).contains(m))? as u32;
        return match number(&c, 3) {
            Some(d) => day_period(&c, number(&c, 1), m, d),
            None => Some(month_period(resolve(number(&c, 1), now, |y| day_start(y, m, 1)))),
        };
    }
    if let Some(c) = p.month_year.captures(q) {
        let m = month(&c, 1)?;
        return Some(month_period(day_start(number(&c, 2)?, m, 1)));
    }
    if let Some(c) = p.in_month.captures(q) {
        let m = month(&c, 1)?;
        return Some(month_period(resolve(None, now, |y| day_start(y, m, 1))));
    }
    let c = p.in_year.captures(q)?;
    let y = number(&c, 1)?;
    Some(year_period(y))
}

/// The start of the named day or month in `year`, or without a year the latest one that
/// starts by `now` (a day's slack: it may be today elsewhere).
fn resolve(year: Option<i64>, now: Millis, start_in: impl Fn(i64) -> Millis) -> Millis {
    match year {
        Some(y) => start_in(y),
        None => {
            // Years a query can spell (four digits): no day count overflows.
            let this = civil(now).0.clamp(0, 9999);
            let start = start_in(this);
            if start > now.saturating_add(DAY_MS) {
                start_in(this - 1)
            } else {
                start
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_700_000_000_000; // 2023-11-14

    fn day(y: i64, m: u32, d: u32) -> Millis {
        day_start(y, m, d)
    }

    #[test]
    fn a_named_day_is_read_in_every_common_spelling_with_a_days_slack() {
        let may3 = Period { from: day(2023, 5, 2), to: day(2023, 5, 5) };
        for q in ["Who did Maria have dinner with on May 3, 2023?", "what did I say on 3 May 2023", "on the 3rd of May, 2023?", "May 3rd 2023", "2023年5月3日说了什么"] {
            assert_eq!(named_period(q, NOW), Some(may3), "{q}");
        }
        assert_eq!(named_period("what did we talk about on May 3?", NOW), Some(may3), "this year's, not after now");
        assert_eq!(named_period("5月3号", NOW), Some(may3));
    }

    #[test]
    fn a_day_or_month_without_a_year_is_the_latest_not_after_now() {
        assert_eq!(named_period("what did I say on December 24?", NOW), Some(Period { from: day(2022, 12, 23), to: day(2022, 12, 26) }));
        assert_eq!(named_period("what did I do in december", NOW), Some(Period { from: day(2022, 11, 30), to: day(2023, 1, 2) }));
        assert_eq!(named_period("where did we go last December?", NOW), named_period("what did I do in december", NOW));
        assert_eq!(named_period("what did I plan this March", NOW), Some(Period { from: day(2023, 2, 28), to: day(2023, 4, 2) }));
    }

    #[test]
    fn a_month_or_year_is_read_whole_and_before_or_after_a_day_reaches_two_weeks() {
        assert_eq!(named_period("What happened to John's job in August 2023?", NOW), Some(Period { from: day(2023, 7, 31), to: day(2023, 9, 2) }));
        assert_eq!(named_period("2023年12月", NOW), Some(Period { from: day(2023, 11, 30), to: day(2024, 1, 2) }));
        assert_eq!(named_period("beach trips in 2023", NOW), Some(Period { from: day(2022, 12, 31), to: day(2024, 1, 2) }));
        assert_eq!(named_period("What did John do the week before August 3, 2023?", NOW), Some(Period { from: day(2023, 7, 20), to: day(2023, 8, 4) }));
        assert_eq!(named_period("what changed after March 1, 2023", NOW), Some(Period { from: day(2023, 3, 1), to: day(2023, 3, 16) }));
    }

    #[test]
    fn any_query_and_moment_give_a_period_that_is_not_empty_or_none_without_panicking() {
        let queries = ["on May 3", "May 31, 9999", "31 december 0000", "5月31日", "in 1900", "the week before january 1", "after 29 february", "yesterday", "999 years ago", "last friday", "in the past year", "三个月前", "前年"];
        for now in [i64::MIN, -1, 0, NOW, i64::MAX] {
            for q in queries {
                if let Some(p) = named_period(q, now) {
                    assert!(p.from < p.to, "{q} at {now}: {p:?}");
                }
            }
        }
    }

    #[test]
    fn a_day_named_from_today_is_that_day_with_a_days_slack() {
        // NOW is Tuesday 14 November 2023.
        let nov = |d: u32| day(2023, 11, d);
        for q in ["what did I tell you yesterday?", "昨天说了什么"] {
            assert_eq!(named_period(q, NOW), Some(Period { from: nov(12), to: nov(15) }), "{q}");
        }
        for q in ["the plan from 3 days ago", "three days ago", "3天前", "三天前"] {
            assert_eq!(named_period(q, NOW), Some(Period { from: nov(10), to: nov(13) }), "{q}");
        }
        assert_eq!(named_period("the day before yesterday", NOW), Some(Period { from: nov(11), to: nov(14) }));
        for q in ["what did we decide last friday", "on Friday you said", "上周五"] {
            let want = if q.contains('五') { named_period("last week", NOW) } else { Some(Period { from: nov(9), to: nov(12) }) };
            assert_eq!(named_period(q, NOW), want, "{q}");
        }
        assert_eq!(named_period("what's on today", NOW), Some(Period { from: nov(13), to: nov(16) }));
        assert_eq!(named_period("a few days ago", NOW), Some(Period { from: nov(7), to: nov(14) }));
    }

    #[test]
    fn a_week_month_or_year_named_from_today_is_the_calendar_span() {
        let nov = |d: u32| day(2023, 11, d);
        for q in ["what did I say last week", "上周聊了什么", "上个星期"] {
            assert_eq!(named_period(q, NOW), Some(Period { from: nov(5), to: nov(14) }), "{q}: Monday 6 to Sunday 12, a day's slack");
        }
        assert_eq!(named_period("last weekend", NOW), Some(Period { from: nov(10), to: nov(14) }));
        assert_eq!(named_period("two weeks ago", NOW), Some(Period { from: day(2023, 10, 28), to: nov(4) }));
        let october = Some(Period { from: day(2023, 9, 30), to: nov(2) });
        for q in ["last month", "a month ago", "上个月", "一个月前"] {
            assert_eq!(named_period(q, NOW), october, "{q}");
        }
        assert_eq!(named_period("two months ago", NOW), Some(Period { from: day(2023, 8, 31), to: day(2023, 10, 2) }));
        assert_eq!(named_period("两个月前", NOW), named_period("two months ago", NOW));
        let last_year = Some(Period { from: day(2021, 12, 31), to: day(2023, 1, 2) });
        for q in ["where did we travel last year", "a year ago", "去年"] {
            assert_eq!(named_period(q, NOW), last_year, "{q}");
        }
        assert_eq!(named_period("this month", NOW), Some(Period { from: day(2023, 10, 31), to: day(2023, 12, 2) }));
        assert_eq!(named_period("in the last year", NOW), Some(Period { from: NOW.div_euclid(DAY_MS) * DAY_MS - 367 * DAY_MS, to: nov(16) }), "the days up to today");
        assert_eq!(named_period("over the past week", NOW), Some(Period { from: day(2023, 11, 6), to: nov(16) }));
    }

    #[test]
    fn a_query_without_a_date_names_no_period() {
        for q in ["What may Caroline paint?", "When did Melanie go camping?", "I have 2023 stamps", "march on", "the 45 of june", "13月", "what did I say on february 31", "What was the last book I read?", "see you this friday", "live in the past", "on the weekend"] {
            assert_eq!(named_period(q, NOW), None, "{q}");
        }
    }
}
