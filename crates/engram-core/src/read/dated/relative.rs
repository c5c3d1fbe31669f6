//! Dates a query names relative to when it is asked: "yesterday", "three days ago", "last
//! week", "this month", "two years ago", "last Friday", "昨天", "上周", "三个月前", "去年".
//!
//! Each is read as the calendar span it names (UTC), with the same day's slack on each side
//! as a named day: "yesterday" the day before today, "N days ago" that day, "N weeks ago"
//! that day with three days' slack, "last week" the previous Monday–Sunday, "last weekend"
//! the Saturday and Sunday before today, "last month" / "N months ago" / "last year" the
//! whole civil month or year; "the past week" / "in the last year" the days up to today.
//! "A few days ago" reaches back two to six days. "This friday" is ahead: it names none.

use std::sync::OnceLock;

use regex_lite::Regex;


use super::period::{day_period, month_period, pattern, with_slack, year_period, Period};
use crate::calendar::{civil, day_start, DAY_MS};
use crate::hlc::Millis;

const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
/// Counts written as words, "a" and "one" first; "a couple of" is two.
const COUNTS: [&str; 12] = ["a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "a couple of"];
const CJK_COUNTS: &str = "一二两三四五六七八九十";

struct Patterns {
    /// "3 days ago", "two weeks ago", "a couple of months ago", "a year ago".
    ago: Regex,
    /// "last week", "this month", "last weekend", "last friday", "on friday", "the past year".
    named: Regex,
    /// "3天前", "两周前", "三个星期前", "两个月前", "一年前".
    cjk_ago: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let counts = COUNTS.iter().rev().copied().collect::<Vec<_>>().join("|");
        let days = WEEKDAYS.join("|");
        Patterns {
            ago: pattern(&format!(r"\b(\d{{1,3}}|{counts}|a few) (day|week|month|year)s? ago\b")),
            named: pattern(&format!(r"\b(?:(the) )?(last|this|on|past) (week|weekend|month|year|{days})\b")),
            cjk_ago: pattern(&format!(r"(\d{{1,3}}|[{CJK_COUNTS}])(?:个)?(天|周|星期|礼拜|月|年)(?:以)?前")),
        }
    })
}

/// Words that every relative phrase below holds one of: most queries hold none.
const CUES: [&str; 14] = ["ago", "yesterday", "today", "last", "this", "past", "on ", "天", "周", "星期", "礼拜", "月", "年", "前"];

/// The period `q` (lowercased) names relative to `now`, if any. Moments outside the years
/// 1–9998 name none (no calendar arithmetic near them can overflow).
pub(super) fn relative_period(q: &str, now: Millis) -> Option<Period> {
    if !CUES.iter().any(|c| q.contains(c)) || !(day_start(1, 1, 1)..day_start(9999, 1, 1)).contains(&now) {
        return None;
    }
    let today = now.div_euclid(DAY_MS) * DAY_MS;
    let on = Today { today, monday: today - weekday(today) * DAY_MS, civil: civil(today) };
    let p = patterns();
    let any = |words: &[&str]| words.iter().any(|w| q.contains(w));
    if any(&["day before yesterday", "前天"]) {
        return Some(on.day(2));
    }
    if any(&["yesterday", "昨天", "昨晚"]) {
        return Some(on.day(1));
    }
    if let Some(c) = p.ago.captures(q).or_else(|| p.cjk_ago.captures(q)) {
        return on.ago(c.get(1)?.as_str(), c.get(2)?.as_str());
    }
    if let Some(c) = p.named.captures(q) {
        let (which, what) = (c.get(2)?.as_str(), c.get(3)?.as_str());
        let rolling = which == "past" || (which == "last" && c.get(1).is_some());
        return if rolling { on.rolling(what) } else { on.named(which, what) };
    }
    if any(&["上周", "上星期", "上个星期", "上礼拜"]) {
        return on.named("last", "week");
    }
    if any(&["这周", "本周", "这个星期", "这星期"]) {
        return on.named("this", "week");
    }
    if any(&["上个月", "上月"]) {
        return on.named("last", "month");
    }
    if any(&["这个月", "本月"]) {
        return on.named("this", "month");
    }
    for (word, back) in [("前年", 2), ("去年", 1), ("今年", 0)] {
        if q.contains(word) {
            return Some(year_period(on.civil.0 - back));
        }
    }
    any(&["today", "今天"]).then(|| day_period(today))
}

/// The day a query is asked, read as a calendar.
struct Today {
    today: Millis,
    monday: Millis,
    civil: (i64, u32, u32),
}

impl Today {
    /// The day `back` days before today, with a day's slack on each side.
    fn day(&self, back: i64) -> Period {
        day_period(self.today - back * DAY_MS)
    }

    /// "N <unit>s ago": the day N days back, N weeks back with three days' slack, or the
    /// whole month or year N back; "a few days" is two to six days back.
    fn ago(&self, count: &str, unit: &str) -> Option<Period> {
        if count == "a few" {
            return (unit == "day").then(|| with_slack(self.today - 6 * DAY_MS, self.today - DAY_MS));
        }
        let n = number(count)?;
        let (y, m, _) = self.civil;
        Some(match unit {
            "day" | "天" => self.day(n),
            "week" | "周" | "星期" | "礼拜" => {
                let at = self.today - 7 * n * DAY_MS;
                Period { from: at - 3 * DAY_MS, to: at + 4 * DAY_MS }
            }
            "month" | "月" => month_period(months_back(y, m, n)),
            _ => year_period(y - n),
        })
    }

    /// "the last / past week, month, year": the 7, 31 or 366 days up to today.
    fn rolling(&self, what: &str) -> Option<Period> {
        let days = match what {
            "week" => 7,
            "month" => 31,
            "year" => 366,
            _ => return None,
        };
        Some(with_slack(self.today - days * DAY_MS, self.today + DAY_MS))
    }

    /// "last week" (the previous Monday–Sunday), "this week", "last weekend", "last month",
    /// "this year", "last friday" / "on friday" (the latest Friday before today).
    fn named(&self, which: &str, what: &str) -> Option<Period> {
        let (y, m, _) = self.civil;
        let past = matches!(which, "last" | "past");
        Some(match what {
            "week" if past => with_slack(self.monday - 7 * DAY_MS, self.monday),
            "week" if which == "this" => with_slack(self.monday, self.today + DAY_MS),
            "weekend" if past => with_slack(self.monday - 2 * DAY_MS, self.monday),
            "weekend" if which == "this" => with_slack(self.monday + 5 * DAY_MS, self.monday + 7 * DAY_MS),
            "month" if past => month_period(months_back(y, m, 1)),
            "month" if which == "this" => month_period(day_start(y, m, 1)),
            "year" if past => year_period(y - 1),
            "year" if which == "this" => year_period(y),
            "week" | "weekend" | "month" | "year" => return None, // "on week…"
            _ if which == "this" => return None,                  // "this friday" is ahead
            name => {
                let want = WEEKDAYS.iter().position(|&d| d == name)? as i64;
                self.day((weekday(self.today) - want - 1).rem_euclid(7) + 1)
            }
        })
    }
}

/// A count written in digits, English words or one Chinese numeral; 1 to 999.
fn number(word: &str) -> Option<i64> {
    let n = if let Ok(n) = word.parse::<i64>() {
        n
    } else if let Some(i) = COUNTS.iter().position(|&w| w == word) {
        match i {
            0 => 1,
            11 => 2,
            i => i as i64,
        }
    } else {
        let c = word.chars().next()?;
        match CJK_COUNTS.chars().position(|d| d == c)? {
            i @ 0..=1 => i as i64 + 1,
            i => i as i64,
        }
    };
    (1..=999).contains(&n).then_some(n)
}

/// Monday = 0 … Sunday = 6 of the day starting at `day` (1970-01-01 was a Thursday).
fn weekday(day: Millis) -> i64 {
    (day.div_euclid(DAY_MS) + 3).rem_euclid(7)
}

/// The start of the month `n` months before `year-month`.
fn months_back(year: i64, month: u32, n: i64) -> Millis {
    let index = year * 12 + i64::from(month) - 1 - n;
    day_start(index.div_euclid(12), index.rem_euclid(12) as u32 + 1, 1)
}
