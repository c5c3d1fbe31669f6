//! Working memory: session state with a TTL refreshed on write, the recent window, the
//! summary slot, and session-tier memories that end with their session.

use engram_core::{Config, Engram, MemoryInput, Scope, Sensitivity, Turn};

const T0: i64 = 1_764_000_000_000;
const MIN: i64 = 60_000;

#[test]
fn session_state_expires_after_an_idle_hour_and_each_write_refreshes_it() {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u").with_session("s");
    e.session_set(&s, "topic", "\"travel\"", T0).expect("set");
    assert_eq!(e.session_get(&s, "topic", T0 + 59 * MIN).expect("get").as_deref(), Some("\"travel\""));
    e.append_turn(&s, Turn::user("still planning the trip"), T0 + 59 * MIN).expect("turn refreshes");
    assert!(e.session_get(&s, "topic", T0 + 100 * MIN).expect("get").is_some(), "refreshed at minute 59");
    assert!(e.session_get(&s, "topic", T0 + 120 * MIN).expect("get").is_none(), "idle for 61 minutes");
    e.session_set(&s, "mood", "1", T0 + 121 * MIN).expect("set after expiry");
    let state = e.session_state(&s, T0 + 121 * MIN).expect("state");
    assert_eq!(state.len(), 1, "expired keys do not come back: {state:?}");
}

#[test]
fn the_recent_window_holds_the_last_twelve_turns_and_the_rest_overflow() {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u").with_session("s");
    for i in 0..20 {
        e.append_turn(&s, Turn::user(format!("message number {i}")), T0 + i * MIN).expect("turn");
    }
    let recent = e.recent_turns(&s, None).expect("recent");
    assert_eq!(recent.len(), 12);
    assert_eq!(recent[0].text, "message number 8");
    assert_eq!(recent[11].text, "message number 19");
    let overflow = e.overflow_turns(&s).expect("overflow");
    assert_eq!(overflow.len(), 8);
    e.set_summary(&s, "The user counted from 0 to 7.", T0 + 21 * MIN).expect("summary");
    assert_eq!(e.summary(&s).expect("summary").as_deref(), Some("The user counted from 0 to 7."));
}

#[test]
fn session_tier_memories_end_with_their_session_and_personal_ones_stay() {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u").with_session("s");
    let mut tmp = MemoryInput::fact("Temporary booking reference is in the chat");
    tmp.sensitivity = Sensitivity::Session;
    e.remember(&s, tmp, T0).expect("session tier");
    e.remember(&s, MemoryInput::fact("Lives in Porto"), T0).expect("personal");
    assert_eq!(e.end_session(&s, T0 + MIN).expect("end"), 1);
    let left = e.list(&s, &Default::default(), T0 + MIN).expect("list");
    assert_eq!(left.iter().map(|r| r.text.as_str()).collect::<Vec<_>>(), vec!["Lives in Porto"]);
}

#[test]
fn operations_that_need_a_session_say_so() {
    let mut e = Engram::new(Config::default(), 1);
    let err = e.append_turn(&Scope::user("t", "u"), Turn::user("hi"), T0).expect_err("no session");
    assert_eq!(err.code(), "INVALID_INPUT");
    assert!(err.to_string().contains("session"));
}

#[test]
fn a_question_turn_states_nothing_and_ranks_below_the_fact_that_answers_it() {
    let mut e = engram_core::Engram::new(engram_core::Config::default(), 1);
    let user = engram_core::Scope::user("t", "q");
    let s = user.clone().with_session("s");
    let now = 1_764_000_000_000;
    let v = engram_testkit::embed::hashed_embedding("which language do i like", 32);
    e.remember(&user, engram_core::MemoryInput::fact("Prefers Rust").with_key("user", "language"), now).expect("fact");
    let mut t = engram_core::Turn::user("hello, which language do I like?");
    t.embedding = Some(v.clone());
    e.append_turn(&s, t, now).expect("turn");
    let hits = e.recall(&user, &engram_core::RecallQuery::text("which language do I like").with_embedding(v), now).expect("recall").hits;
    assert_eq!(hits[0].record.text, "Prefers Rust");
    assert!(hits[1].record.importance < 0.3, "the question turn is kept, with a low importance");
}

#[test]
fn the_models_turns_stay_in_their_session_and_recall_returns_only_what_people_and_sources_said() {
    use engram_core::{Kind, RecallQuery, Source};
    let mut e = Engram::new(Config::default(), 1);
    let user = Scope::user("t", "m");
    let s = user.clone().with_session("s");
    e.append_turn(&s, Turn::user("I am allergic to peanuts"), T0).expect("user turn");
    e.append_turn(&s, Turn::assistant("Got it, peanuts are off the menu."), T0 + 1).expect("model turn");
    e.remember(&user, MemoryInput::fact("Peanuts are a legume").with_source(Source::Assistant), T0 + 2).expect("fact");
    let hits = e.recall(&user, &RecallQuery::text("peanuts"), T0 + 3).expect("recall").hits;
    let texts: Vec<&str> = hits.iter().map(|h| h.record.text.as_str()).collect();
    assert!(!texts.iter().any(|t| t.starts_with("Got it")), "the model's turn is not a memory: {texts:?}");
    assert!(texts.contains(&"Peanuts are a legume"), "a fact the model stated on purpose is: {texts:?}");
    assert!(texts.iter().any(|t| t.contains("allergic to peanuts")), "{texts:?}");
    assert_eq!(e.recent_turns(&s, None).expect("recent").len(), 2, "both turns are in the session");
    let mut q = RecallQuery::text("peanuts");
    q.kinds = vec![Kind::Message];
    let by_kind = e.recall(&user, &q, T0 + 3).expect("by kind").hits;
    assert!(by_kind.iter().any(|h| h.record.text.starts_with("Got it")), "asked for by kind, it comes back");
}
