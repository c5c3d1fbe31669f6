//! Property tests over random workloads: codec roundtrips, budgets, dedup idempotence,
//! scope isolation, and decoders that never panic.

use engram_core::{
    decode_ops, encode_ops, Config, ContextRequest, Engram, Kind, ListFilter, MemoryInput, RecallQuery, Scope, Turn,
};
use engram_testkit::{corpus, embed::hashed_embedding, tables};
use proptest::prelude::*;

const T0: i64 = 1_764_000_000_000;

#[derive(Debug, Clone)]
enum Action {
    Remember { user: usize, text: usize, key: Option<usize>, embed: bool },
    Turn { user: usize, text: usize },
    Forget { user: usize, nth: usize },
    ForgetUser { user: usize },
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        6 => (0usize..3, 0usize..60, proptest::option::of(0usize..4), any::<bool>())
            .prop_map(|(user, text, key, embed)| Action::Remember { user, text, key, embed }),
        3 => (0usize..3, 0usize..60).prop_map(|(user, text)| Action::Turn { user, text }),
        1 => (0usize..3, 0usize..10).prop_map(|(user, nth)| Action::Forget { user, nth }),
        1 => (0usize..3).prop_map(|user| Action::ForgetUser { user }),
    ]
}

fn scope(u: usize) -> Scope {
    Scope::user("tenant", format!("user-{u}")).with_session("s")
}

fn run(actions: &[Action]) -> Engram {
    let texts = corpus::memories(60, 3);
    let mut e = Engram::new(Config::default(), 9);
    for (i, a) in actions.iter().enumerate() {
        let now = T0 + i as i64 * 1000;
        match a {
            Action::Remember { user, text, key, embed } => {
                let t = format!("{} (user {user})", texts[*text]);
                let mut m = MemoryInput::fact(&t);
                if let Some(k) = key {
                    m = m.with_key("user", &format!("attr{k}"));
                }
                if *embed {
                    m = m.with_embedding(hashed_embedding(&t, 32));
                }
                e.remember(&scope(*user), m, now).expect("valid");
            }
            Action::Turn { user, text } => {
                e.append_turn(&scope(*user), Turn::user(texts[*text].clone()), now).expect("valid");
            }
            Action::Forget { user, nth } => {
                let list = e.list(&scope(*user), &ListFilter::default(), now).expect("list");
                if let Some(r) = list.get(*nth) {
                    e.forget(&scope(*user), &r.id, now).expect("forget");
                }
            }
            Action::ForgetUser { user } => {
                e.forget_user(&scope(*user), now).expect("forget user");
            }
        }
    }
    e
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_snapshot_roundtrips_to_identical_bytes_and_identical_answers(actions in proptest::collection::vec(action(), 0..60)) {
        let e = run(&actions);
        let bytes = e.snapshot().expect("snapshot");
        let back = Engram::from_snapshot(&bytes).expect("restore");
        prop_assert_eq!(back.snapshot().expect("again"), bytes);
        for u in 0..3 {
            let q = RecallQuery::text("python project decided").with_k(5);
            let a = e.recall(&scope(u), &q, T0 * 2).expect("recall");
            let b = back.recall(&scope(u), &q, T0 * 2).expect("recall");
            prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn op_batches_roundtrip_and_replaying_them_rebuilds_the_same_memories(actions in proptest::collection::vec(action(), 0..60)) {
        let mut e = run(&actions);
        let ops = e.take_pending();
        let decoded = decode_ops(&encode_ops(&ops).expect("encode")).expect("decode");
        prop_assert_eq!(&decoded, &ops);
        let mut replica = Engram::new(Config::default(), 10);
        replica.apply_ops(decoded.clone()).expect("replay");
        replica.apply_ops(decoded).expect("replay twice is harmless");
        let all = ListFilter { include_superseded: true, ..Default::default() };
        for u in 0..3 {
            let mut a = e.list(&scope(u), &all, T0 * 2).expect("list");
            let mut b = replica.list(&scope(u), &all, T0 * 2).expect("list");
            a.sort_by(|x, y| x.id.cmp(&y.id));
            b.sort_by(|x, y| x.id.cmp(&y.id));
            prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn no_call_ever_returns_another_users_records(actions in proptest::collection::vec(action(), 1..60)) {
        let e = run(&actions);
        for u in 0..3 {
            let s = scope(u);
            let me = s.user_key();
            for r in e.list(&s, &ListFilter { include_superseded: true, include_expired: true, kinds: vec![], pending_review: false }, T0 * 2).expect("list") {
                prop_assert_eq!(r.scope.user_key(), me.clone());
            }
            for h in e.recall(&s, &RecallQuery::text("user likes met discuss task").with_k(50), T0 * 2).expect("recall").hits {
                prop_assert_eq!(h.record.scope.user_key(), me.clone());
            }
            let ctx = e.build_context(&s, &ContextRequest::new("what did they decide", 2000), T0 * 2).expect("ctx");
            for other in (0..3).filter(|o| *o != u) {
                let marker = format!("(user {})", other);
                prop_assert!(!ctx.text.contains(&marker));
            }
        }
    }

    #[test]
    fn remembering_the_same_input_again_changes_nothing_but_the_reinforcement(text in 0usize..60, embed in any::<bool>(), times in 2usize..5) {
        let texts = corpus::memories(60, 3);
        let mut e = Engram::new(Config::default(), 1);
        let s = scope(0);
        let mk = || {
            let m = MemoryInput::fact(texts[text].clone());
            if embed { m.with_embedding(hashed_embedding(&texts[text], 32)) } else { m }
        };
        let first = e.remember(&s, mk(), T0).expect("first");
        for i in 1..times {
            let again = e.remember(&s, mk(), T0 + i as i64).expect("again");
            prop_assert_eq!(&again.id, &first.id);
        }
        let list = e.list(&s, &ListFilter::default(), T0).expect("list");
        prop_assert_eq!(list.len(), 1);
        prop_assert_eq!(list[0].times_seen as usize, times);
    }

    #[test]
    fn the_context_never_exceeds_its_budget(n in 0usize..40, turns in 0usize..30, budget in 0usize..600, q in 0usize..60) {
        let texts = corpus::memories(60, 8);
        let mut e = Engram::new(Config::default(), 1);
        e.set_tokenizer(tables::o200k());
        let s = scope(0);
        for i in 0..n {
            let kind = if i % 7 == 0 { Kind::Preference } else { Kind::Fact };
            let mut m = MemoryInput::new(kind, texts[i].clone());
            if i % 5 == 0 { m = m.with_key("user", &format!("k{i}")); }
            e.remember(&s, m, T0).expect("remember");
        }
        for i in 0..turns {
            e.append_turn(&s, Turn::user(texts[(i * 7) % 60].clone()), T0 + i as i64).expect("turn");
        }
        let ctx = e.build_context(&s, &ContextRequest::new(texts[q].clone(), budget), T0 + 100).expect("ctx");
        prop_assert!(ctx.tokens <= budget, "{} > {}", ctx.tokens, budget);
        prop_assert_eq!(e.count_tokens(&ctx.text).tokens, ctx.tokens);
        prop_assert!(ctx.exact);
        let mut ids = ctx.included.clone();
        ids.extend(ctx.dropped.clone());
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        prop_assert_eq!(unique.len(), ids.len(), "an id is either included or dropped, once");
    }

    #[test]
    fn decoders_refuse_garbage_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = decode_ops(&bytes);
        let _ = Engram::from_snapshot(&bytes);
        let _ = engram_core::RankTable::from_bytes(&bytes);
    }

    #[test]
    fn a_flipped_or_cut_snapshot_is_detected(actions in proptest::collection::vec(action(), 1..20), pos in any::<prop::sample::Index>(), cut in any::<bool>()) {
        let bytes = run(&actions).snapshot().expect("snapshot");
        let i = pos.index(bytes.len());
        let mut bad = bytes.clone();
        if cut { bad.truncate(i); } else { bad[i] ^= 0x01; }
        prop_assert!(Engram::from_snapshot(&bad).is_err());
    }
}

#[test]
fn a_snapshot_from_a_future_version_names_both_versions() {
    let mut bytes = Engram::new(Config::default(), 1).snapshot().expect("snapshot");
    bytes[4] = 7;
    let err = Engram::from_snapshot(&bytes).expect_err("future");
    assert_eq!(err.code(), "UNSUPPORTED_VERSION");
    assert!(err.to_string().contains('7') && err.to_string().contains(&engram_core::codec::FORMAT_VERSION.to_string()));
    bytes[4] = 1; // version 1 records lack the review and sealing fields: refused, not misread
    assert_eq!(Engram::from_snapshot(&bytes).map(|_| ()).map_err(|e| e.code()), Err("UNSUPPORTED_VERSION"));
}
