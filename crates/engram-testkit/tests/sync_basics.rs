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
