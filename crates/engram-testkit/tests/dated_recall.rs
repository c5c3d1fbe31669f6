//! A query that names a date ("on May 3, 2023", "in August 2023", "three days ago", "last
//! month") recalls what was said then above what was said another day in the same words
//! (`read::dated`); for a query that names none, the date channel ranks nothing.

use engram_core::calendar::day_start;
use engram_core::read::decay::DAY_MS;
use engram_core::{Config, Engram, MemoryInput, RecallQuery, Scope};

fn maria() -> Scope {
    Scope::user("acme", "maria")
}

/// Maria's lines about the shelter, said on three days of 2023 (at 14:00 UTC).
fn diary(config: Config) -> Engram {
    let mut mem = Engram::new(config, 1);
    let lines = [
        ((2023, 4, 20), "Maria: The shelter fundraiser went great, we raised money for the shelter's new kitchen and the shelter team cheered"),
        ((2023, 5, 3), "Maria: I dropped off baked goods at the shelter this morning"),
        ((2023, 6, 16), "Maria: Big news, the shelter asked me to run the shelter volunteers' schedule"),
    ];
    for ((y, m, d), text) in lines {
        mem.remember(&maria(), MemoryInput::fact(text), day_start(y, m, d) + 14 * 3_600_000).expect("remember");
    }
    mem
}

fn recall(mem: &Engram, query: &str) -> Vec<(String, Option<u32>)> {
    let now = day_start(2023, 8, 1);
    let hits = mem.recall(&maria(), &RecallQuery::text(query).with_k(3), now).expect("recall").hits;
    hits.into_iter().map(|h| (h.record.text, h.parts.date)).collect()
}

#[test]
fn a_query_naming_a_day_recalls_what_was_said_that_day_above_better_word_matches() {
    let mem = diary(Config::default());
    for q in ["What did Maria do at the shelter on May 3, 2023?", "What did Maria do at the shelter on 3 May?", "2023年5月3日 Maria shelter"] {
        let got = recall(&mem, q);
        assert!(got[0].0.contains("baked goods"), "{q}: {got:?}");
        assert_eq!(got[0].1, Some(1), "{q}: ranked first by the date channel");
        assert!(got[1..].iter().all(|(_, d)| d.is_none()), "{q}: other days are not in the period: {got:?}");
    }
    let june = recall(&mem, "What news did Maria share about the shelter in June 2023?");
    assert!(june[0].0.contains("Big news"), "{june:?}");
}

#[test]
fn without_a_date_in_the_query_the_date_channel_changes_nothing() {
    let with = diary(Config::default());
    for q in ["What did Maria do at the shelter?", "When did Maria drop off baked goods?", "What may Maria plan for the shelter?"] {
        let got = recall(&with, q);
        assert!(got.iter().all(|(_, d)| d.is_none()), "{q}: {got:?}");
    }
    // The first test's premise: by words alone, the day's line is not the best match.
    let q = RecallQuery::text("What did Maria do at the shelter on May 3, 2023?").with_k(3);
    let hits = with.recall(&maria(), &q, day_start(2023, 8, 1)).expect("recall").hits;
    let baked = hits.iter().find(|h| h.record.text.contains("baked goods")).expect("recalled");
    assert!(baked.parts.lexical.is_some_and(|(rank, _)| rank > 1), "{:?}", baked.parts);
}

#[test]
fn a_forgotten_or_expired_memory_of_the_named_day_stays_out() {
    let mut mem = diary(Config::default());
    let may3 = day_start(2023, 5, 3);
    mem.remember(&maria(), MemoryInput::fact("Maria: shelter shift swapped for today only").with_ttl_ms(DAY_MS), may3 + 15 * 3_600_000).expect("remember");
    let got = recall(&mem, "What did Maria do at the shelter on May 3, 2023?");
    assert!(got.iter().all(|(t, _)| !t.contains("swapped")), "expired: {got:?}");
    assert!(got[0].0.contains("baked goods"), "{got:?}");
}

#[test]
fn a_query_naming_a_day_from_today_recalls_what_was_said_then() {
    let mem = diary(Config::default());
    // Asked on Saturday 6 May 2023: "three days ago" and "on Wednesday" are 3 May, "last
    // month" is April, "last week" Monday 24 – Sunday 30 April.
    let may6 = day_start(2023, 5, 6) + 10 * 3_600_000;
    let ask = |q: &str, now: i64| -> Vec<(String, Option<u32>)> {
        let hits = mem.recall(&maria(), &RecallQuery::text(q).with_k(3), now).expect("recall").hits;
        hits.into_iter().map(|h| (h.record.text, h.parts.date)).collect()
    };
    for q in ["What did Maria do at the shelter three days ago?", "What did Maria do at the shelter on Wednesday?", "Maria 三天前 shelter"] {
        let got = ask(q, may6);
        assert!(got[0].0.contains("baked goods") && got[0].1 == Some(1), "{q}: {got:?}");
    }
    let got = ask("What did Maria do at the shelter last month?", may6);
    assert!(got[0].0.contains("fundraiser") && got[0].1 == Some(1), "April: {got:?}");
    // In August, "two months ago" is June.
    let got = ask("What did Maria say about the shelter two months ago?", day_start(2023, 8, 10));
    assert!(got[0].0.contains("Big news") && got[0].1 == Some(1), "{got:?}");
    // Nothing was said in the week named: the channel ranks nothing, words decide.
    let got = ask("What did Maria do at the shelter last week?", may6);
    assert!(got.iter().all(|(_, d)| d.is_none()), "{got:?}");
}

#[test]
fn a_query_naming_only_a_time_recalls_what_was_said_then_after_word_matches() {
    let mut mem = diary(Config::default());
    let may3 = day_start(2023, 5, 3);
    mem.remember(&maria(), MemoryInput::fact("Maria: My sister called about the wedding"), may3 + 18 * 3_600_000).expect("remember");
    let may4 = day_start(2023, 5, 4) + 9 * 3_600_000;
    mem.remember(&maria(), MemoryInput::fact("Maria: Morning run done"), may4 - 3_600_000).expect("remember");
    let ask = |q: &str| -> Vec<(String, Option<u32>)> {
        let hits = mem.recall(&maria(), &RecallQuery::text(q).with_k(5), may4).expect("recall").hits;
        hits.into_iter().map(|h| (h.record.text, h.parts.date)).collect()
    };
    // No word of the question is in yesterday's lines: they are recalled for their day,
    // nearest its middle first — this morning's line is only in the day's slack.
    let got = ask("What did we talk about yesterday?");
    let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts, ["Maria: I dropped off baked goods at the shelter this morning", "Maria: My sister called about the wedding", "Maria: Morning run done"], "{got:?}");
    assert_eq!(got.iter().map(|(_, d)| *d).collect::<Vec<_>>(), [Some(1), Some(2), Some(3)]);
    // A word match of that day comes first, the day's other lines after it.
    let got = ask("anything about the shelter yesterday?");
    assert!(got[0].0.contains("baked goods") && got[0].1 == Some(1), "{got:?}");
    let sister = got.iter().find(|(t, _)| t.contains("sister")).expect("the day's other line is recalled");
    assert_eq!(sister.1, Some(2), "{got:?}");
}
