//! Ops between replicas: convergence by last-writer-wins, tombstones, and forgetting
//! that a late op cannot undo.

use engram_core::{decode_ops, encode_ops, Applied, Config, Engram, ListFilter, MemoryInput, Scope};

const T0: i64 = 1_764_000_000_000;

fn texts(e: &Engram, s: &Scope) -> Vec<String> {
    let mut v: Vec<String> = e
        .list(s, &ListFilter { include_superseded: true, ..Default::default() }, T0 * 2)
        .expect("list")
        .into_iter()
        .map(|r| format!("{}|{}|{:?}", r.id, r.text, r.superseded_by))
        .collect();
    v.sort();
    v
}

#[test]
fn two_replicas_exchanging_ops_in_any_order_converge() {
    let s = Scope::user("t", "u");
    let mut a = Engram::new(Config::default(), 1);
    let mut b = Engram::new(Config::default(), 2);
    a.remember(&s, MemoryInput::fact("Uses Python").with_key("user", "language"), T0).expect("a1");
    b.remember(&s, MemoryInput::fact("Likes green tea"), T0 + 5).expect("b1");
    a.remember(&s, MemoryInput::fact("Switched to Go").with_key("user", "language"), T0 + 10).expect("a2");
    let ops_a = decode_ops(&encode_ops(&a.take_pending()).expect("enc")).expect("dec");
    let mut ops_b = b.take_pending();
    // b receives a's ops reversed and twice; a receives b's.
    let mut rev = ops_a.clone();
    rev.reverse();
    b.apply_ops(rev).expect("apply");
    b.apply_ops(ops_a).expect("apply again");
    ops_b.extend(ops_b.clone());
    a.apply_ops(ops_b).expect("apply");
    assert_eq!(texts(&a, &s), texts(&b, &s));
    assert_eq!(texts(&a, &s).len(), 3);
}

#[test]
fn a_forgotten_user_is_not_resurrected_by_a_late_op_and_other_users_are_untouched() {
    let alice = Scope::user("t", "alice");
    let bob = Scope::user("t", "bob");
    let mut phone = Engram::new(Config::default(), 1);
    let mut laptop = Engram::new(Config::default(), 2);
    laptop.remember(&alice, MemoryInput::fact("Alice's address is 1 Main St"), T0).expect("laptop write");
    let late = laptop.take_pending();
    phone.remember(&alice, MemoryInput::fact("Alice likes jazz"), T0 + 1).expect("phone write");
    phone.remember(&bob, MemoryInput::fact("Bob likes rock"), T0 + 1).expect("bob");
    assert_eq!(phone.forget_user(&alice, T0 + 100).expect("forget"), 1);
    let applied = phone.apply_ops(late).expect("late op");
    assert_eq!(applied, vec![Applied::Refused]);
    assert_eq!(phone.count(&alice).expect("count"), 0);
    assert_eq!(phone.count(&bob).expect("count"), 1);
    // The forget op reaches the laptop, which drops Alice too.
    let forget = phone.take_pending().into_iter().filter(|o| o.user == alice.user_key()).collect::<Vec<_>>();
    laptop.apply_ops(forget).expect("forget op");
    assert_eq!(laptop.count(&alice).expect("count"), 0);
    // Alice can start over: writes after the forget are accepted.
    phone.remember(&alice, MemoryInput::fact("Alice likes blues now"), T0 + 200).expect("new life");
    assert_eq!(phone.count(&alice).expect("count"), 1);
}

#[test]
fn a_delete_beats_an_older_upsert_that_arrives_later() {
    let s = Scope::user("t", "u");
    let mut a = Engram::new(Config::default(), 1);
    let mut b = Engram::new(Config::default(), 2);
    let id = a.remember(&s, MemoryInput::fact("temp note"), T0).expect("w").id;
    let upsert = a.take_pending();
    b.apply_ops(upsert.clone()).expect("b gets it");
    assert!(b.forget(&s, &id, T0 + 10).expect("delete"));
    let del = b.take_pending();
    a.apply_ops(del).expect("a gets delete");
    assert_eq!(a.apply_ops(upsert).expect("stale upsert"), vec![Applied::Ignored]);
    assert_eq!(a.count(&s).expect("count"), 0);
    assert_eq!(b.count(&s).expect("count"), 0);
}

#[test]
fn session_state_and_summary_travel_as_ops_and_the_last_writer_wins_per_key() {
    let s = Scope::user("t", "u").with_session("chat");
    let mut a = Engram::new(Config::default(), 1);
    let mut b = Engram::new(Config::default(), 2);
    a.session_set(&s, "topic", "\"travel\"", T0).expect("a");
    b.session_set(&s, "topic", "\"cooking\"", T0 + 5).expect("b later");
    b.session_set(&s, "mood", "\"happy\"", T0 + 6).expect("b");
    a.set_summary(&s, "Planning a trip.", T0 + 7).expect("summary");
    let (oa, ob) = (a.take_pending(), b.take_pending());
    a.apply_ops(ob.clone()).expect("a gets b");
    b.apply_ops(oa.clone()).expect("b gets a");
    b.apply_ops(oa).expect("duplicates are harmless");
    for e in [&a, &b] {
        let st = e.session_state(&s, T0 + 10).expect("state");
        assert_eq!(st.get("topic").map(String::as_str), Some("\"cooking\""));
        assert_eq!(st.get("mood").map(String::as_str), Some("\"happy\""));
        assert_eq!(e.summary(&s).expect("summary").as_deref(), Some("Planning a trip."));
    }
}

#[test]
fn a_restored_engine_given_another_replica_never_reissues_the_writers_ids() {
    // Two instances opened from one snapshot (a copied store, a second tab) each get a
    // replica of their own: the same write at the same moment gets two different ids.
    let s = Scope::user("t", "u");
    let mut writer = Engram::new(Config::default(), 1);
    writer.remember(&s, MemoryInput::fact("Uses Python"), T0).expect("write");
    let snap = writer.snapshot().expect("snapshot");
    let mut a = Engram::from_snapshot(&snap).expect("a");
    let mut b = Engram::from_snapshot(&snap).expect("b");
    a.set_replica(2);
    b.set_replica(3);
    let ia = a.remember(&s, MemoryInput::fact("Likes green tea"), T0).expect("a").id;
    let ib = b.remember(&s, MemoryInput::fact("Likes black coffee"), T0).expect("b").id;
    assert_ne!(ia, ib);
    let mut merged = Engram::new(Config::default(), 4);
    merged.apply_ops(writer.take_pending()).expect("w");
    merged.apply_ops(a.take_pending()).expect("a ops");
    merged.apply_ops(b.take_pending()).expect("b ops");
    assert_eq!(texts(&merged, &s).len(), 3, "{:?}", texts(&merged, &s));
    // Stamps after a restore still order after everything the snapshot had seen.
    assert!(a.replica() == 2 && b.replica() == 3);
}

#[test]
fn an_op_whose_record_is_filed_under_another_user_or_holds_a_nul_key_is_refused_by_validate() {
    let s = Scope::user("t", "u");
    let mut a = Engram::new(Config::default(), 1);
    a.remember(&s, MemoryInput::fact("Uses Python").with_key("user", "language"), T0).expect("write");
    let op = a.take_pending().remove(0);
    assert!(op.validate().is_ok());
    let mut forged = op.clone();
    if let engram_core::OpBody::Upsert(r) = &mut forged.body {
        r.scope.user = "mallory".into();
    }
    assert_eq!(forged.validate().map_err(|e| e.code()), Err("INVALID_INPUT"));
    let mut nul = op.clone();
    if let engram_core::OpBody::Upsert(r) = &mut nul.body {
        r.key = Some(engram_core::FactKey { subject: "us\0er".into(), attribute: "language".into() });
    }
    assert_eq!(nul.validate().map_err(|e| e.code()), Err("INVALID_INPUT"));
    let mut b = Engram::new(Config::default(), 2);
    assert!(b.apply(forged).is_err() && b.apply(nul).is_err() && b.count(&s).expect("count") == 0);
}

#[test]
fn inputs_that_another_replica_could_not_store_are_refused_before_anything_is_written() {
    let s = Scope::user("t", "u");
    let mut a = Engram::new(Config::default(), 1);
    let code = |r: engram_core::Result<engram_core::WriteOutcome>| r.map(|_| ()).map_err(|e| e.code());
    assert_eq!(code(a.remember(&s, MemoryInput::fact("x").with_key("us\0er", "lang"), T0)), Err("INVALID_INPUT"));
    assert_eq!(code(a.remember(&s, MemoryInput::fact("x").with_key("user", &"a".repeat(300)), T0)), Err("INVALID_INPUT"));
    assert_eq!(code(a.remember(&s, MemoryInput::fact("\0\0\0"), T0)), Err("INVALID_INPUT"));
    let mut old = MemoryInput::fact("Long ago");
    old.observed_at = Some(-1_000_000_000_000_000);
    assert_eq!(code(a.remember(&s, old, T0)), Err("INVALID_INPUT"));
    let chat = s.clone().with_session("s1");
    assert_eq!(a.session_set(&chat, "k\0", "v", T0).map_err(|e| e.code()), Err("INVALID_INPUT"));
    let q = engram_core::RecallQuery::text("python").with_k(10_000_000);
    assert_eq!(a.recall(&s, &q, T0).map(|_| ()).map_err(|e| e.code()), Err("INVALID_INPUT"));
    assert_eq!(a.pending_len(), 0, "nothing was stamped");
    assert_eq!(a.count(&s).expect("count"), 0);
}
