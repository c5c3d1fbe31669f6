//! How recall orders what it finds: relevance first, then `importance × decay` within
//! reach of it. Fused scores fall with rank as `1 / (rrf_k + rank)`; with the default
//! `rrf_k` a boost in weight moves a memory only past close matches, never past far better
//! ones (at `rrf_k` 60 the first two tests below fail: the weight overturned the ranking),
//! and decay's time factor stops at `RANKING_FLOOR`, so no age buries a best match.

use engram_core::read::decay::{DAY_MS, RANKING_FLOOR};
use engram_core::{Config, Engram, MemoryInput, RecallQuery, Scope};

const T0: i64 = 1_764_000_000_000;
const DIM: usize = 12;

fn alice() -> Scope {
    Scope::user("acme", "alice")
}

/// A unit vector whose cosine with the query (axis 0) is `cos`, leaning towards its own
/// axis `own` otherwise — so two memories' cosine is the product of theirs (below the
/// near-duplicate threshold) and their rank for the query is set by `cos` alone.
fn at_cosine(cos: f32, own: usize) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[0] = cos;
    v[own] = (1.0 - cos * cos).sqrt();
    v
}

fn query() -> RecallQuery {
    let mut q = RecallQuery::text("").with_k(10);
    q.force = true;
    q.embedding = Some(at_cosine(1.0, 1));
    q
}

fn remember(e: &mut Engram, text: &str, cos: f32, own: usize, at: i64) -> String {
    e.remember(&alice(), MemoryInput::fact(text).with_embedding(at_cosine(cos, own)), at).expect("remember").id
}

fn texts(e: &Engram, at: i64) -> Vec<String> {
    e.recall(&alice(), &query(), at).expect("recall").hits.into_iter().map(|h| h.record.text).collect()
}

#[test]
fn a_memory_seen_twice_does_not_outrank_a_far_better_match() {
    let mut e = Engram::new(Config::default(), 1);
    remember(&mut e, "best match", 0.95, 1, T0);
    for (i, cos) in [0.9, 0.85, 0.8, 0.75].into_iter().enumerate() {
        remember(&mut e, &format!("match {}", i + 2), cos, i + 2, T0);
    }
    remember(&mut e, "sixth match, seen twice", 0.7, 6, T0);
    let again = e.remember(&alice(), MemoryInput::fact("sixth match, seen twice").with_embedding(at_cosine(0.7, 6)), T0).expect("again");
    let seen_twice = e.recall(&alice(), &query(), T0).expect("recall").hits.into_iter().find(|h| h.record.id == again.id).expect("recalled");
    assert!(seen_twice.record.importance > 0.5, "the repeat reinforced it: {}", seen_twice.record.importance);
    // 1.2 / (1 + r) × 0.6 at rank 6 passes its neighbour at rank 5 (× 0.5), no further.
    assert_eq!(texts(&e, T0), ["best match", "match 2", "match 3", "match 4", "sixth match, seen twice", "match 5"]);
}

#[test]
fn an_old_best_match_gives_way_only_to_close_fresh_matches() {
    let mut e = Engram::new(Config::default(), 1);
    let now = T0 + 45 * DAY_MS; // the old memory's decay: 0.5^(45/30) ≈ 0.35
    remember(&mut e, "old best match", 0.95, 1, T0);
    let fresh = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55];
    for (i, cos) in fresh.into_iter().enumerate() {
        remember(&mut e, &format!("fresh {}", i + 2), cos, i + 2, now);
    }
    let order = texts(&e, now);
    // 1.2 / (1 + 1) × 0.5 × 0.35 ≈ 0.106 against 1.2 / (1 + r) × 0.5 for the fresh at rank r:
    // ranks 2–4 stay ahead, ranks 5 and below fall behind.
    assert_eq!(order.iter().position(|t| t == "old best match"), Some(3), "{order:?}");
    assert_eq!(order.len(), 1 + fresh.len());
    let fresh_order: Vec<&String> = order.iter().filter(|t| t.starts_with("fresh")).collect();
    assert_eq!(fresh_order, (2..=9).map(|i| format!("fresh {i}")).collect::<Vec<_>>().iter().collect::<Vec<_>>());
}

#[test]
fn a_best_match_of_any_age_gives_way_to_four_fresh_matches_at_most() {
    let mut e = Engram::new(Config::default(), 1);
    let now = T0 + 300 * DAY_MS; // the old memory's time factor: 0.5^10 ≈ 0.001, floored at 0.3
    remember(&mut e, "old best match", 0.95, 1, T0);
    let fresh = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55];
    for (i, cos) in fresh.into_iter().enumerate() {
        remember(&mut e, &format!("fresh {}", i + 2), cos, i + 2, now);
    }
    let hits = e.recall(&alice(), &query(), now).expect("recall").hits;
    let order: Vec<&str> = hits.iter().map(|h| h.record.text.as_str()).collect();
    // 1 / (1 + 1) × 0.3 = 0.15 against 1 / (1 + r) for the fresh at rank r: ranks 2–5 stay
    // ahead (1/6 > 0.15), ranks 6 and below fall behind (1/7 < 0.15).
    assert_eq!(order.iter().position(|&t| t == "old best match"), Some(4), "{order:?}");
    let old = hits.iter().find(|h| h.record.text == "old best match").expect("recalled");
    assert!(old.parts.decay < 0.01 && (old.parts.weight - 0.5 * RANKING_FLOOR).abs() < 1e-6, "{:?}", old.parts);
}

#[test]
fn of_two_equal_matches_past_the_floor_the_fresher_comes_first() {
    let mut e = Engram::new(Config::default(), 1);
    let now = T0 + 300 * DAY_MS;
    remember(&mut e, "said ten months ago", 0.9, 2, T0);
    remember(&mut e, "said two months ago", 0.9, 3, now - 60 * DAY_MS);
    let hits = e.recall(&alice(), &query(), now).expect("recall").hits;
    assert_eq!(hits.iter().map(|h| h.record.text.as_str()).collect::<Vec<_>>(), ["said two months ago", "said ten months ago"]);
    assert_eq!(hits[0].score, hits[1].score, "both keep the floor's weight: {hits:?}");
    assert!(hits[0].parts.decay > hits[1].parts.decay, "age breaks the tie: {hits:?}");
}

#[test]
fn a_line_of_the_speaker_a_question_names_keeps_its_lift_once_time_has_ordered_the_recalled() {
    let mut e = Engram::new(Config::default(), 1);
    let now = T0 + 45 * DAY_MS;
    let event = |e: &mut Engram, text: &str, cos: f32, own: usize, at: i64| {
        e.remember(&alice(), MemoryInput::new(engram_core::Kind::Event, text).with_embedding(at_cosine(cos, own)), at).expect("remember");
    };
    // Caroline's line is the best match but old; Melanie's, about her, are fresh and close behind.
    event(&mut e, "Caroline: I painted a sunset over the lake", 0.95, 1, T0);
    for (i, cos) in [0.9, 0.85, 0.8, 0.75, 0.7, 0.65].into_iter().enumerate() {
        event(&mut e, &format!("Melanie: Caroline painted picture {}", i + 2), cos, i + 2, now);
    }
    let mut q = query();
    q.text = "What did Caroline paint?".into();
    let order: Vec<String> = e.recall(&alice(), &q, now).expect("recall").hits.into_iter().map(|h| h.record.text).collect();
    // Time alone puts the old line last (its weight 0.5 × 0.35 against 0.5: the order the
    // lift met when it came before time); the lift, applied after time, brings it to third.
    assert_eq!(order.iter().position(|t| t.starts_with("Caroline")), Some(2), "{order:?}");
    assert_eq!(order.len(), 7);
}

#[test]
fn the_reply_to_a_question_is_found_through_the_questions_words() {
    let mut e = Engram::new(Config::default(), 1);
    let minute = 60_000;
    let said = |e: &mut Engram, text: &str, at: i64| {
        e.remember(&alice(), MemoryInput::new(engram_core::Kind::Event, text), at).expect("remember");
    };
    // Lines of other days that hold the question's words.
    said(&mut e, "Melanie: My cousin got married in June, a long ceremony.", T0);
    said(&mut e, "Melanie: My parents have been married for a long time.", T0 + 40 * minute);
    said(&mut e, "Melanie: We took a long walk after the wedding.", T0 + 80 * minute);
    said(&mut e, "Melanie: My sister married young, long before me.", T0 + 120 * minute);
    said(&mut e, "Melanie: Married life seems long and happy for them.", T0 + 160 * minute);
    // The question, its reply in other words, and lines around them.
    let t = T0 + DAY_MS;
    said(&mut e, "Caroline: I love this family pic of you all.", t);
    said(&mut e, "Caroline: How long have you been married?", t + 1_000);
    said(&mut e, "Melanie: 5 years already! Time flies.", t + 2_000);
    said(&mut e, "Caroline: Wow, that went by fast.", t + 3_000);
    let mut q = RecallQuery::text("How long have Melanie and her husband been married?").with_k(10);
    q.force = true;
    let top: Vec<String> = e.recall(&alice(), &q, t + DAY_MS).expect("recall").hits.into_iter().map(|h| h.record.text).collect();
    let at = |start: &str| top.iter().position(|t| t.starts_with(start)).unwrap_or_else(|| panic!("{start:?} not recalled: {top:?}"));
    // Answered by the other speaker, the reply counts the question's words as its own: with
    // the speaker the query names, it ranks ahead of the question (with a neighbour's share
    // alone it ranked behind it).
    assert!(at("Melanie: 5 years") < at("Caroline: How long"), "{top:?}");
}
