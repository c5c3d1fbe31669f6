//! The write path end to end: dedup, near-duplicates, supersession with audit, decay,
//! TTL, and typed refusals of bad input.

use engram_core::read::decay::{DAY_MS, RANKING_FLOOR};
use engram_core::{Config, Engram, Error, ListFilter, MemoryInput, RecallQuery, Scope, WriteAction};
use engram_testkit::embed::hashed_embedding;

const T0: i64 = 1_764_000_000_000;

fn alice() -> Scope {
    Scope::user("acme", "alice")
}

#[test]
fn the_same_fact_twice_is_one_memory_seen_twice() {
    let mut e = Engram::new(Config::default(), 1);
    let a = e.remember(&alice(), MemoryInput::fact("I live in Hangzhou."), T0).expect("first");
    let b = e.remember(&alice(), MemoryInput::fact("i live in  hangzhou"), T0 + 1).expect("second");
    assert_eq!(a.action, WriteAction::Inserted);
    assert_eq!(b.action, WriteAction::Duplicate);
    assert_eq!(a.id, b.id);
    let all = e.list(&alice(), &ListFilter::default(), T0).expect("list");
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].times_seen, 2);
    assert!(all[0].importance > 0.5, "reinforcement raises importance");
}

#[test]
fn a_near_duplicate_vector_reinforces_instead_of_adding() {
    let mut e = Engram::new(Config::default(), 1);
    let v = hashed_embedding("user enjoys hiking in the alps every summer", 64);
    let mut w = v.clone();
    w[0] += 0.05; // cosine ≈ 0.999
    let a = e.remember(&alice(), MemoryInput::fact("User enjoys hiking in the Alps every summer").with_embedding(v), T0).expect("a");
    let b = e.remember(&alice(), MemoryInput::fact("Every summer the user goes hiking in the Alps").with_embedding(w), T0).expect("b");
    assert_eq!(b.action, WriteAction::Reinforced);
    assert_eq!(a.id, b.id);
    assert!(b.similarity.expect("similarity") >= 0.85);
    let unrelated = hashed_embedding("quarterly tax filing deadline", 64);
    let c = e.remember(&alice(), MemoryInput::fact("Tax filing is due in April").with_embedding(unrelated), T0).expect("c");
    assert_eq!(c.action, WriteAction::Inserted);
}

#[test]
fn switching_from_python_to_go_supersedes_the_old_preference_and_keeps_the_audit_trail() {
    let mut e = Engram::new(Config::default(), 1);
    let old = e.remember(&alice(), MemoryInput::fact("Prefers Python").with_key("user", "preferred language"), T0).expect("old");
    let new = e
        .remember(&alice(), MemoryInput::fact("Switched from Python to Go").with_key("user", "preferred language"), T0 + DAY_MS)
        .expect("new");
    assert_eq!(new.superseded, vec![old.id.clone()]);
    let hits = e.recall(&alice(), &RecallQuery::text("which programming language python or go"), T0 + DAY_MS).expect("recall");
    assert_eq!(hits.hits.len(), 1, "only the current version is recalled: {:?}", hits.hits);
    assert_eq!(hits.hits[0].record.id, new.id);
    let by_key = e.recall(&alice(), &RecallQuery::text("what is my preferred language?"), T0 + DAY_MS).expect("recall");
    assert_eq!(by_key.hits[0].record.id, new.id);
    assert_eq!(by_key.hits[0].parts.key, Some(1), "the exact-key channel found it: {:?}", by_key.hits[0].parts);
    let audit = e.list(&alice(), &ListFilter { include_superseded: true, ..Default::default() }, T0).expect("audit");
    let old_rec = audit.iter().find(|r| r.id == old.id).expect("old version kept");
    assert_eq!(old_rec.superseded_by.as_deref(), Some(new.id.as_str()));
    assert_eq!(old_rec.valid_to, Some(T0 + DAY_MS));
    assert_eq!(e.list(&alice(), &ListFilter::default(), T0).expect("current").len(), 1);
}

#[test]
fn old_unimportant_memories_fall_behind_and_expired_ones_are_gone() {
    let mut e = Engram::new(Config::default(), 1);
    e.remember(&alice(), MemoryInput::fact("Bought a blue umbrella").with_importance(0.3), T0).expect("weak");
    e.remember(&alice(), MemoryInput::fact("Bought a red umbrella for the trip").with_importance(0.9), T0).expect("strong");
    e.remember(&alice(), MemoryInput::fact("Umbrella coupon code valid this week").with_ttl_ms(7 * DAY_MS), T0).expect("ttl");
    let q = RecallQuery::text("umbrella");
    assert_eq!(e.recall(&alice(), &q, T0 + DAY_MS).expect("day 1").hits.len(), 3);
    // Day 40: the coupon expired.
    let day40 = e.recall(&alice(), &q, T0 + 40 * DAY_MS).expect("day 40");
    assert_eq!(day40.hits.len(), 2);
    // Day 60: the time factor 0.25 is under the ranking floor (0.3): 0.3 × 0.3 = 0.09 < 0.1
    // — the unimportant one has faded: still a match, so still recalled, but after the
    // strong one (0.9 × 0.3 = 0.27), whatever their match.
    let day60 = e.recall(&alice(), &q, T0 + 60 * DAY_MS).expect("day 60");
    let texts: Vec<&str> = day60.hits.iter().map(|h| h.record.text.as_str()).collect();
    assert_eq!(texts, ["Bought a red umbrella for the trip", "Bought a blue umbrella"]);
    let p = &day60.hits[0].parts;
    assert!((p.decay - 0.25).abs() < 1e-3 && (p.weight - 0.9 * RANKING_FLOOR).abs() < 1e-3 && p.lexical.is_some(), "{p:?}");
    let faded = &day60.hits[1].parts;
    assert!(faded.weight < Config::default().weak_threshold && faded.lexical.unwrap().0 <= p.lexical.unwrap().0, "{faded:?} vs {p:?}");
}

#[test]
fn a_strong_match_said_a_year_ago_is_recalled_and_a_keyed_fact_does_not_fade() {
    let mut e = Engram::new(Config::default(), 1);
    let said = e.remember(&alice(), MemoryInput::fact("We adopted a cat named Miso from the shelter"), T0).expect("old");
    let home = e.remember(&alice(), MemoryInput::fact("Lives in Hangzhou").with_key("alice", "city"), T0).expect("keyed");
    let later = T0 + 365 * DAY_MS;
    for i in 0..30 {
        e.remember(&alice(), MemoryInput::fact(format!("Talked about the weather on day {i}")), later - i * DAY_MS).expect("fresh");
    }
    let hits = e.recall(&alice(), &RecallQuery::text("what is the name of our cat"), later).expect("recall").hits;
    let cat = hits.iter().find(|h| h.record.id == said.id).expect("a year-old best match is recalled");
    assert_eq!(cat.parts.lexical.map(|l| l.0), Some(1), "and is still the best match: {:?}", cat.parts);
    assert!(cat.parts.decay < 0.01 && (cat.parts.weight - 0.5 * RANKING_FLOOR).abs() < 1e-6, "faded to the ranking floor, not below: {:?}", cat.parts);
    assert!(hits.iter().all(|h| !h.record.text.contains("weather")), "fresh memories that do not match stay out");
    let hits = e.recall(&alice(), &RecallQuery::text("which city does alice live in"), later).expect("recall").hits;
    let keyed = hits.iter().find(|h| h.record.id == home.id).expect("the keyed fact is recalled");
    assert_eq!(keyed.parts.decay, 1.0, "the value in force of a key does not fade");
}

#[test]
fn bad_input_gets_a_typed_error_and_the_engine_stays_usable() {
    let mut e = Engram::new(Config::default(), 1);
    e.remember(&alice(), MemoryInput::fact("x").with_embedding(vec![1.0, 0.0, 0.0]), T0).expect("fixes dim 3");
    let cases: Vec<(MemoryInput, Scope, &str)> = vec![
        (MemoryInput::fact("y").with_embedding(vec![1.0, 0.0]), alice(), "DIMENSION_MISMATCH"),
        (MemoryInput::fact("y").with_embedding(vec![f32::NAN, 0.0, 1.0]), alice(), "BAD_EMBEDDING"),
        (MemoryInput::fact("y").with_embedding(vec![0.0, 0.0, 0.0]), alice(), "BAD_EMBEDDING"),
        (MemoryInput::fact("   "), alice(), "INVALID_INPUT"),
        (MemoryInput::fact("z".repeat(40_000)), alice(), "TEXT_TOO_LARGE"),
        (MemoryInput::fact("y").with_importance(1.5), alice(), "INVALID_INPUT"),
        (MemoryInput::fact("y").with_importance(f32::NAN), alice(), "INVALID_INPUT"),
        (MemoryInput::fact("y").with_ttl_ms(-5), alice(), "INVALID_INPUT"),
        (MemoryInput::fact("y"), Scope::user("acme", ""), "INVALID_INPUT"),
        (MemoryInput::fact("y"), Scope::user("acme", "bad\u{0}user"), "INVALID_INPUT"),
    ];
    for (input, scope, code) in cases {
        let err = e.remember(&scope, input, T0).expect_err("must be refused");
        assert_eq!(err.code(), code, "{err}");
    }
    assert!(matches!(e.get(&alice(), "nope"), Err(Error::NotFound(_))));
    assert_eq!(e.count(&alice()).expect("count"), 1);
    e.remember(&alice(), MemoryInput::fact("still works").with_embedding(vec![0.0, 1.0, 0.0]), T0).expect("usable");
}

#[test]
fn pii_is_redacted_before_storage_and_never_reaches_recall_ops_or_turns() {
    use engram_core::pii::{PiiAction, PiiKind, PiiPolicy};
    use engram_core::{Sensitivity, Turn};
    let mut e = Engram::new(Config::default(), 1);
    let s = alice().with_session("s");
    let out = e.remember(&s, MemoryInput::fact("Alice's email is alice.w@example.com and her card is 4111 1111 1111 1111"), T0).expect("stored");
    assert_eq!(out.redacted, vec![PiiKind::Card, PiiKind::Email]);
    e.append_turn(&s, Turn::user("my password is hunter2! call 13800138000"), T0).expect("turn");
    let everything = format!("{:?}{:?}", e.list(&s, &ListFilter::default(), T0).expect("list"), e.take_pending());
    for secret in ["alice.w@example.com", "4111", "hunter2", "13800138000"] {
        assert!(!everything.contains(secret), "{secret} leaked");
    }
    assert!(everything.contains("Alice's email is [EMAIL] and her card is [CARD]"));
    let mut strict = Config::default();
    strict.pii = PiiPolicy { public: PiiAction::Drop, ..PiiPolicy::default() };
    let mut e2 = Engram::new(strict, 2);
    let mut m = MemoryInput::fact("server 10.1.2.3 is ours");
    m.sensitivity = Sensitivity::Public;
    let out = e2.remember(&alice(), m, T0).expect("policy outcome, not an error");
    assert_eq!(out.action, WriteAction::Dropped);
    assert_eq!(e2.count(&alice()).expect("count"), 0);
}
