//! Consolidation, continued (issue 19): learned patterns — a signal repeated across
//! sessions becomes one `Pattern` memory with its count of verifying sessions — and the
//! compaction of old episodes into one per month. Deterministic, synced as ops,
//! converging, undone by forgetting; keyed facts are never compacted away.

use engram_core::consolidate::{
    compacted_id, episode_id, month_of, pattern_id, Compaction, Consolidation, Episodes, Folded, Patterns, COMPACTED_TAG,
};
use engram_core::{Config, Engram, Kind, ListFilter, MemoryInput, RecallQuery, Record, Scope, Turn};
use engram_testkit::tables;

/// 2026-01-05, a Monday.
const JAN: i64 = 1_767_571_200_000;
const DAY: i64 = 86_400_000;
const MIN: i64 = 60_000;

fn engine(replica: u64, consolidation: Consolidation) -> Engram {
    let mut e = Engram::new(Config::default(), replica);
    e.set_tokenizer(tables::o200k());
    e.set_consolidation(consolidation).expect("valid settings");
    e
}

fn learning() -> Consolidation {
    Consolidation { episodes: Some(Episodes::default()), patterns: Some(Patterns::default()), ..Consolidation::default() }
}

fn compacting(folded: Folded, budget_tokens: usize) -> Consolidation {
    Consolidation { episodes: Some(Episodes::default()), compaction: Some(Compaction { min_age_ms: 60 * DAY, budget_tokens, folded }), ..Consolidation::default() }
}

fn of_kind(e: &Engram, s: &Scope, kind: Kind, now: i64) -> Vec<Record> {
    e.list(s, &ListFilter { kinds: vec![kind], ..ListFilter::default() }, now).expect("list")
}

/// One session of the user: a few turns, `ask` among them, then its end.
fn session(e: &mut Engram, user: &Scope, name: &str, ask: &str, at: i64) {
    let s = user.clone().with_session(name);
    for (i, t) in ["Hi again.", ask, "Thanks, that helps."].iter().enumerate() {
        e.append_turn(&s, Turn::user(*t), at + i as i64 * MIN).expect("turn");
        e.append_turn(&s, Turn::assistant("Sure."), at + i as i64 * MIN + 1).expect("turn");
    }
    e.end_session(&s, at + 10 * MIN).expect("end");
}

const GO_ASKS: [&str; 3] = ["Can you write the importer in Go?", "Please use Go for the CLI.", "I prefer golang for this kind of tool."];

#[test]
fn asking_for_go_in_three_sessions_makes_one_pattern_verified_three_times_and_two_make_none() {
    let mut e = engine(1, learning());
    let ana = Scope::user("acme", "ana");
    session(&mut e, &ana, "s1", GO_ASKS[0], JAN);
    session(&mut e, &ana, "s2", GO_ASKS[1], JAN + DAY);
    assert!(of_kind(&e, &ana, Kind::Pattern, JAN + 2 * DAY).is_empty(), "two sessions are not a pattern yet");
    session(&mut e, &ana, "s3", GO_ASKS[2], JAN + 2 * DAY);
    let patterns = of_kind(&e, &ana, Kind::Pattern, JAN + 3 * DAY);
    assert_eq!(patterns.len(), 1, "{patterns:?}");
    let p = &patterns[0];
    assert_eq!(p.id, pattern_id(&ana, "programming language:go"));
    assert_eq!(p.times_seen, 3, "times verified: one per session");
    assert!(p.text.contains("Go") && p.text.contains("3 sessions"), "{}", p.text);
    let asks: Vec<String> = e.list(&ana, &ListFilter { kinds: vec![Kind::Message], ..ListFilter::default() }, JAN + 3 * DAY).expect("list").into_iter().filter(|r| GO_ASKS.contains(&r.text.as_str())).map(|r| r.id).collect();
    assert_eq!(asks.len(), 3);
    for id in &asks {
        assert!(p.tags.contains(&format!("turn:{id}")), "cites {id}: {:?}", p.tags);
    }
    // Recalled like any memory, from a new session.
    let hits = e.recall(&ana.clone().with_session("s4"), &RecallQuery::text("which language should the new tool use, Go?"), JAN + 3 * DAY).expect("recall");
    assert!(hits.hits.iter().any(|h| h.record.id == p.id), "the pattern is recalled");
    // A fourth session verifies it again: the same record, counted four.
    session(&mut e, &ana, "s4", "Write the tests in Go as well.", JAN + 3 * DAY);
    let again = e.get(&ana, &p.id).expect("pattern");
    assert_eq!((again.times_seen, again.created_at), (4, p.created_at));
    assert_eq!(of_kind(&e, &ana, Kind::Pattern, JAN + 4 * DAY).len(), 1);
    // Nothing new: learning again writes nothing.
    assert!(e.learn_patterns(&ana, JAN + 5 * DAY).expect("learn").is_empty());
    // Deleted by the user, it is not learned again from the same turns or a new session.
    assert!(e.forget(&ana, &p.id, JAN + 5 * DAY).expect("forget"));
    session(&mut e, &ana, "s5", "Go again, please: use Go.", JAN + 6 * DAY);
    assert!(e.learn_patterns(&ana, JAN + 7 * DAY).expect("learn").is_empty());
    assert!(of_kind(&e, &ana, Kind::Pattern, JAN + 7 * DAY).is_empty());
}

#[test]
fn a_liking_that_holds_a_control_character_is_no_signal_and_sessions_still_end() {
    // The Chinese preference rules capture any non-space run: a control character in it
    // would make a tag every write refuses, and with it every later session end.
    let mut e = engine(1, learning());
    let ana = Scope::user("acme", "ana");
    for (i, name) in ["s1", "s2", "s3", "s4"].iter().enumerate() {
        session(&mut e, &ana, name, "我喜欢a\u{1}b", JAN + i as i64 * DAY);
    }
    assert!(of_kind(&e, &ana, Kind::Pattern, JAN + 5 * DAY).is_empty());
    assert_eq!(of_kind(&e, &ana, Kind::Episode, JAN + 5 * DAY).len(), 4, "every session ended and left its episode");
}

#[test]
fn one_session_asking_three_times_is_not_a_pattern_and_small_talk_gives_none() {
    let mut e = engine(1, learning());
    let ana = Scope::user("acme", "ana");
    let s = ana.clone().with_session("s1");
    for (i, t) in GO_ASKS.iter().enumerate() {
        e.append_turn(&s, Turn::user(*t), JAN + i as i64 * MIN).expect("turn");
    }
    e.end_session(&s, JAN + 10 * MIN).expect("end");
    for k in 2..6 {
        session(&mut e, &ana, &format!("s{k}"), "Let's go in a minute, ok?", JAN + k * DAY);
    }
    assert!(of_kind(&e, &ana, Kind::Pattern, JAN + 9 * DAY).is_empty());
}

#[test]
fn replicas_that_see_the_same_signals_write_the_same_pattern_and_converge() {
    let ana = Scope::user("acme", "ana");
    let mut a = engine(1, learning());
    let mut b = engine(2, learning());
    // Each replica hears part of the story, then they sync and each learns on its own.
    session(&mut a, &ana, "s1", GO_ASKS[0], JAN);
    session(&mut b, &ana, "s2", GO_ASKS[1], JAN + DAY);
    session(&mut a, &ana, "s3", GO_ASKS[2], JAN + 2 * DAY);
    let (from_a, from_b) = (a.take_pending(), b.take_pending());
    a.apply_ops(from_b).expect("sync");
    b.apply_ops(from_a).expect("sync");
    let learned_a = a.learn_patterns(&ana, JAN + 3 * DAY).expect("learn");
    let learned_b = b.learn_patterns(&ana, JAN + 3 * DAY + 5 * MIN).expect("learn");
    assert_eq!(learned_a, learned_b, "the same pattern id on both");
    assert_eq!(learned_a, [pattern_id(&ana, "programming language:go")]);
    let (from_a, from_b) = (a.take_pending(), b.take_pending());
    a.apply_ops(from_b).expect("sync");
    b.apply_ops(from_a).expect("sync");
    assert_eq!(a.canonical_state().expect("state"), b.canonical_state().expect("state"));
    let p = a.get(&ana, &learned_a[0]).expect("pattern");
    assert_eq!(p.times_seen, 3);
    // Learning again on either side changes nothing: the evidence agrees.
    assert!(a.learn_patterns(&ana, JAN + 4 * DAY).expect("learn").is_empty());
    assert!(b.learn_patterns(&ana, JAN + 4 * DAY).expect("learn").is_empty());
}

/// Sessions on days 0, 1, 2 of January and 0, 3 of February, each stating a keyed fact and
/// an episode-worthy line, ended as they go.
fn five_sessions(e: &mut Engram, user: &Scope) -> Vec<String> {
    let feb = JAN + 31 * DAY;
    let days = [JAN, JAN + DAY, JAN + 2 * DAY, feb, feb + 3 * DAY];
    let said = [
        "I live in Lisbon and I decided to rent a flat near the river.",
        "I work at Globex. Book a table for four on Friday, please.",
        "I decided to fly to Porto on the 20th with my sister.",
        "I prefer Rust for backend services. Remind me to renew the passport.",
        "I decided to move the launch to March 3.",
    ];
    let mut ids = Vec::new();
    for (k, (&at, text)) in days.iter().zip(said).enumerate() {
        let s = user.clone().with_session(format!("m{k}"));
        e.append_turn(&s, Turn::user(text), at).expect("turn");
        e.append_turn(&s, Turn::assistant("Noted."), at + MIN).expect("turn");
        e.end_session(&s, at + 2 * MIN).expect("end");
        ids.push(episode_id(&s));
    }
    e.remember(user, MemoryInput::fact("User lives in Lisbon").with_key("user", "location"), JAN).expect("fact");
    e.remember(user, MemoryInput::fact("User works at Globex").with_key("user", "employer"), JAN + DAY).expect("fact");
    ids
}

#[test]
fn old_episodes_fold_into_one_per_month_within_the_budget_and_are_kept_as_its_history() {
    let mut e = engine(1, compacting(Folded::Keep, 60));
    let ana = Scope::user("acme", "ana");
    let episodes = five_sessions(&mut e, &ana);
    assert_eq!(of_kind(&e, &ana, Kind::Episode, JAN + 40 * DAY).len(), 5, "nothing is old enough yet");
    let facts_before = of_kind(&e, &ana, Kind::Fact, JAN + 40 * DAY);
    let now = JAN + 120 * DAY;
    let done = e.compact_episodes(&ana, now).expect("compact");
    assert_eq!(done.iter().map(|c| c.month.as_str()).collect::<Vec<_>>(), ["2026-01", "2026-02"]);
    assert_eq!(done[0].folded, episodes[..3].to_vec());
    assert_eq!(done[1].folded, episodes[3..].to_vec());
    let current = of_kind(&e, &ana, Kind::Episode, now);
    assert_eq!(current.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), [compacted_id(&ana, "2026-01"), compacted_id(&ana, "2026-02")]);
    for c in &current {
        assert!(c.tags.iter().any(|t| t == COMPACTED_TAG));
        assert!(e.count_tokens(&c.text).tokens <= 60, "within its budget: {}", c.text);
    }
    let jan = &current[0];
    assert!(jan.text.contains("User decided to fly to Porto") && jan.text.contains("User lives in Lisbon"), "{}", jan.text);
    assert_eq!(jan.valid_from, JAN);
    // The folded episodes are its history: superseded, out of recall, listed on request.
    let all = e.list(&ana, &ListFilter { kinds: vec![Kind::Episode], include_superseded: true, ..ListFilter::default() }, now).expect("list");
    assert_eq!(all.len(), 7);
    for id in &episodes[..3] {
        assert_eq!(e.get(&ana, id).expect("kept").superseded_by.as_deref(), Some(jan.id.as_str()));
    }
    // Keyed facts are never compacted away, and are still recalled.
    assert_eq!(of_kind(&e, &ana, Kind::Fact, now), facts_before);
    let hits = e.recall(&ana, &RecallQuery::text("where do I live?"), now).expect("recall");
    assert!(hits.hits.iter().any(|h| h.record.text == "User lives in Lisbon"));
    // Again at once: nothing to do.
    assert!(e.compact_episodes(&ana, now + MIN).expect("compact").is_empty());
    // A compacted episode the user deletes is not written again.
    assert!(e.forget(&ana, &current[1].id, now + MIN).expect("forget"));
    assert!(e.compact_episodes(&ana, now + 2 * MIN).expect("compact").is_empty());
    assert!(e.get(&ana, &current[1].id).is_err());
    assert_eq!(month_of(JAN + 27 * DAY - 1), "2026-01");
    assert_eq!(month_of(JAN + 27 * DAY), "2026-02");
}

#[test]
fn a_tight_budget_keeps_the_facts_first_and_the_remove_policy_deletes_the_folded_episodes() {
    let mut e = engine(1, compacting(Folded::Remove, 24));
    let ana = Scope::user("acme", "ana");
    let episodes = five_sessions(&mut e, &ana);
    let now = JAN + 120 * DAY;
    let done = e.compact_episodes(&ana, now).expect("compact");
    assert_eq!(done.len(), 2);
    for id in &episodes {
        assert!(e.get(&ana, id).is_err(), "{id} was deleted");
    }
    let jan = e.get(&ana, &compacted_id(&ana, "2026-01")).expect("compacted");
    assert!(e.count_tokens(&jan.text).tokens <= 24, "{}", jan.text);
    assert!(jan.text.lines().all(|l| l.starts_with("User ")), "facts outweigh turn lines: {}", jan.text);
    assert_eq!(jan.times_seen, 3, "it folds three episodes");
    let facts = of_kind(&e, &ana, Kind::Fact, now);
    assert_eq!(facts.len(), 2, "the keyed facts stay: {facts:?}");
    // A late January session, once old, joins its month's compacted episode.
    let late = ana.clone().with_session("late");
    e.append_turn(&late, Turn::user("I decided to adopt a cat named Miso."), JAN + 20 * DAY).expect("turn");
    e.end_session(&late, JAN + 20 * DAY + MIN).expect("end");
    let done = e.compact_episodes(&ana, now + DAY).expect("compact");
    assert_eq!((done.len(), done[0].folded.clone()), (1, vec![episode_id(&late)]));
    let jan = e.get(&ana, &compacted_id(&ana, "2026-01")).expect("compacted");
    assert_eq!(jan.times_seen, 4);
    assert!(e.count_tokens(&jan.text).tokens <= 24);
}

#[test]
fn ending_a_session_compacts_what_has_grown_old() {
    let mut e = engine(1, compacting(Folded::Keep, 200));
    let ana = Scope::user("acme", "ana");
    five_sessions(&mut e, &ana);
    session(&mut e, &ana, "may", "I decided to paint the kitchen green.", JAN + 130 * DAY);
    let current = of_kind(&e, &ana, Kind::Episode, JAN + 131 * DAY);
    let ids: Vec<&str> = current.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(current.len(), 3, "January, February, and May's own: {ids:?}");
    assert!(ids.contains(&episode_id(&ana.clone().with_session("may")).as_str()), "a young episode stays as it is");
}

#[test]
fn forgetting_the_user_removes_patterns_and_compacted_episodes_here_and_on_every_replica() {
    let on = Consolidation { patterns: Some(Patterns::default()), ..compacting(Folded::Keep, 80) };
    let mut e = engine(1, on);
    let mut other = engine(2, Consolidation::default());
    let ana = Scope::user("acme", "ana");
    let ben = Scope::user("acme", "ben");
    five_sessions(&mut e, &ana);
    for (k, ask) in GO_ASKS.iter().enumerate() {
        session(&mut e, &ana, &format!("go{k}"), ask, JAN + (100 + k as i64) * DAY);
        session(&mut e, &ben, &format!("go{k}"), ask, JAN + (100 + k as i64) * DAY);
    }
    other.apply_ops(e.take_pending()).expect("sync");
    let now = JAN + 110 * DAY;
    for x in [&e, &other] {
        assert_eq!(of_kind(x, &ana, Kind::Pattern, now).len(), 1);
        assert!(of_kind(x, &ana, Kind::Episode, now).iter().any(|r| r.tags.iter().any(|t| t == COMPACTED_TAG)), "compaction ran");
    }
    e.forget_user(&ana, now).expect("forget");
    other.apply_ops(e.take_pending()).expect("sync");
    for x in [&e, &other] {
        assert_eq!(x.count(&ana).expect("count"), 0);
        assert_eq!(of_kind(x, &ben, Kind::Pattern, now).len(), 1, "another user's pattern stays");
    }
    assert_eq!(e.canonical_state().expect("state"), other.canonical_state().expect("state"));
}

#[test]
fn patterns_and_compaction_are_deterministic_given_the_inputs_and_the_clock() {
    let run = || {
        let on = Consolidation { patterns: Some(Patterns { min_sessions: 2 }), ..compacting(Folded::Remove, 40) };
        let mut e = engine(1, on);
        let ana = Scope::user("acme", "ana");
        five_sessions(&mut e, &ana);
        for (k, ask) in GO_ASKS.iter().enumerate() {
            session(&mut e, &ana, &format!("go{k}"), ask, JAN + (100 + k as i64) * DAY);
        }
        (e.take_pending(), e.canonical_state().expect("state"))
    };
    let (ops, state) = run();
    assert!(ops.iter().any(|o| matches!(&o.body, engram_core::OpBody::Upsert(r) if r.kind == Kind::Pattern)));
    assert!((ops, state) == run());
}

#[test]
fn invalid_pattern_and_compaction_settings_are_refused_with_a_typed_error() {
    let mut e = Engram::new(Config::default(), 1);
    for bad in [
        Consolidation { patterns: Some(Patterns { min_sessions: 1 }), ..Consolidation::default() },
        Consolidation { compaction: Some(Compaction { min_age_ms: -1, ..Compaction::default() }), ..Consolidation::default() },
        Consolidation { compaction: Some(Compaction { budget_tokens: 0, ..Compaction::default() }), ..Consolidation::default() },
    ] {
        assert_eq!(e.set_consolidation(bad).map_err(|err| err.code()), Err("INVALID_INPUT"));
    }
    assert_eq!(*e.consolidation(), Consolidation::default());
    let json: Consolidation = serde_json::from_str(r#"{"patterns":{"minSessions":4},"compaction":{"minAgeMs":5,"folded":"remove"}}"#).expect("camelCase JSON");
    assert_eq!(json.patterns, Some(Patterns { min_sessions: 4 }));
    assert_eq!(json.compaction, Some(Compaction { min_age_ms: 5, folded: Folded::Remove, ..Compaction::default() }));
    // A misspelt setting is refused, not silently left at its default.
    for typo in [r#"{"patterns":{"minSession":2}}"#, r#"{"pattern":{}}"#, r#"{"compression":{"thresholdToken":9}}"#, r#"{"episodes":{"budget":9}}"#] {
        let err = serde_json::from_str::<Consolidation>(typo).expect_err(typo).to_string();
        assert!(err.contains("unknown field"), "{typo}: {err}");
    }
}
