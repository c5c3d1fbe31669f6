//! Near-duplicate detection never merges facts about different people, places or numbers,
//! with the default embedder (which puts "Alice is allergic to peanuts" 0.88 from "Bob is
//! allergic to peanuts") and even when the two vectors are the same; the same fact said
//! another way about the same subject is still reinforced.

use engram_core::{Config, Engram, MemoryInput, Scope, WriteAction};
use engram_testkit::qa_eval::load_default_table;

const T0: i64 = 1_764_000_000_000;

const NAMES: [&str; 40] = [
    "Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "James", "Karen", "Liam", "Maria", "Noah",
    "Olivia", "Peter", "Quinn", "Rosa", "Samuel", "Tina", "Umar", "Vera", "Walter", "Xenia", "Yusuf", "Zoe", "Zhang Wei",
    "Wang Wei", "Liu Yang", "Chen Yang", "Ana", "Bruno", "Chloe", "Diego", "Elena", "Felix", "Greta", "Hugo", "Ines", "Jonas",
];

fn engine() -> (Engram, Scope) {
    (Engram::new(Config::default(), 1), Scope::user("t", "u"))
}

#[test]
fn the_four_pairs_of_different_people_stay_apart_with_the_default_embedder() {
    let emb = load_default_table();
    for (a, b) in [
        ("Alice is allergic to peanuts", "Bob is allergic to peanuts"),
        ("Zhang Wei is allergic to peanuts", "Wang Wei is allergic to peanuts"),
        ("Liu Yang lives in Chengdu", "Chen Yang lives in Chengdu"),
        ("Alice Smith lives in Chengdu", "Alice Jones lives in Chengdu"),
    ] {
        let (mut e, s) = engine();
        let first = e.remember(&s, MemoryInput::fact(a).with_embedding(emb.embed(a)), T0).expect("a");
        let second = e.remember(&s, MemoryInput::fact(b).with_embedding(emb.embed(b)), T0 + 1).expect("b");
        assert_eq!(second.action, WriteAction::Inserted, "{a:?} / {b:?}");
        assert_ne!(first.id, second.id);
        let hits = e.recall(&s, &engram_core::RecallQuery::text(b).with_embedding(emb.embed(b)), T0 + 2).expect("recall").hits;
        assert_eq!(hits[0].record.text, b, "recalling {b:?} finds it, not {a:?}");
    }
}

#[test]
fn four_hundred_people_allergic_to_peanuts_are_four_hundred_memories_even_with_one_vector() {
    let emb = load_default_table();
    let (mut e, s) = engine();
    let same = emb.embed("is allergic to peanuts");
    let mut people: Vec<String> = Vec::new();
    for surname in ["Smith", "Jones", "Garcia", "Novak", "Silva", "Kowalski", "Dubois", "Rossi", "Tanaka", "Okafor"] {
        for first in NAMES {
            people.push(format!("{first} {surname}"));
        }
    }
    assert_eq!(people.len(), 400);
    for (i, p) in people.iter().enumerate() {
        let text = format!("{p} is allergic to peanuts");
        // Half with the embedder's vector, half with one vector for all: the worst case.
        let v = if i % 2 == 0 { emb.embed(&text) } else { same.clone() };
        let out = e.remember(&s, MemoryInput::fact(text.clone()).with_embedding(v), T0 + i as i64).expect("write");
        assert_eq!(out.action, WriteAction::Inserted, "{text}");
    }
    assert_eq!(e.count(&s).expect("count"), 400);
}

#[test]
fn two_hundred_paraphrases_of_one_subject_reinforce_the_first_saying() {
    let emb = load_default_table();
    let pairs: [(&str, &str); 5] = [
        ("{} is allergic to peanuts", "{} is very allergic to peanuts"),
        ("{} lives in Chengdu", "{} lives in Chengdu now"),
        ("{} has a dog named Rex", "{} has a dog called Rex"),
        ("{} enjoys hiking in the mountains", "{} really enjoys hiking in the mountains"),
        ("{} works as a nurse at the hospital", "{} works as a nurse in the hospital"),
    ];
    let (mut reinforced, mut total) = (0, 0);
    let mut missed = Vec::new();
    for name in NAMES {
        let (mut e, s) = engine();
        for (a, b) in pairs {
            let (a, b) = (a.replace("{}", name), b.replace("{}", name));
            let first = e.remember(&s, MemoryInput::fact(a.clone()).with_embedding(emb.embed(&a)), T0).expect("a");
            let second = e.remember(&s, MemoryInput::fact(b.clone()).with_embedding(emb.embed(&b)), T0 + 1).expect("b");
            total += 1;
            if second.action == WriteAction::Reinforced && second.id == first.id {
                reinforced += 1;
            } else {
                missed.push(format!("{a:?} / {b:?}: {:?} {:?}", second.action, second.similarity));
            }
        }
    }
    assert_eq!(total, 200);
    assert_eq!(reinforced, 200, "{missed:#?}");
}

#[test]
fn chinese_facts_about_different_people_stay_apart_even_with_the_same_vector() {
    let v: Vec<f32> = (0..32).map(|i| ((i * 7 % 11) as f32) - 5.0).collect();
    for (a, b) in [("张伟对花生过敏", "王伟对花生过敏"), ("刘洋住在成都", "陈洋住在成都"), ("他对花生过敏", "她对花生过敏"), ("用户有两个孩子", "用户有三个孩子")] {
        let (mut e, s) = engine();
        e.remember(&s, MemoryInput::fact(a).with_embedding(v.clone()), T0).expect("a");
        let second = e.remember(&s, MemoryInput::fact(b).with_embedding(v.clone()), T0 + 1).expect("b");
        assert_eq!(second.action, WriteAction::Inserted, "{a} / {b}");
    }
    let (mut e, s) = engine();
    e.remember(&s, MemoryInput::fact("张伟对花生过敏").with_embedding(v.clone()), T0).expect("a");
    let again = e.remember(&s, MemoryInput::fact("张伟对花生很过敏").with_embedding(v.clone()), T0 + 1).expect("b");
    assert_eq!(again.action, WriteAction::Reinforced, "the same person said another way");
}

#[test]
fn an_exact_or_specific_word_match_is_in_the_top_k_among_ten_thousand_memories_and_forty_near_twins() {
    let emb = load_default_table();
    let (mut e, s) = engine();
    let bulk: Vec<MemoryInput> = (0..10_000)
        .map(|i| {
            let t = format!("Shipment {i} of spare parts left the warehouse on schedule");
            MemoryInput::fact(t.clone()).with_embedding(emb.embed(&t))
        })
        .collect();
    e.remember_many(&s, bulk, T0).expect("bulk");
    for i in 0..40 {
        let t = format!("The quarterly meeting about the garden budget moved to room {}", 300 + i);
        e.remember(&s, MemoryInput::fact(t.clone()).with_embedding(emb.embed(&t)), T0 + 1 + i).expect("twin");
    }
    let target = "The quarterly meeting about the garden budget moved to the boathouse";
    e.remember(&s, MemoryInput::fact(target).with_embedding(emb.embed(target)), T0 + 100).expect("target");
    let k8 = |e: &Engram, q: &str| e.recall(&s, &engram_core::RecallQuery::text(q).with_embedding(emb.embed(q)), T0 + 400).expect("recall").hits;
    let hits = k8(&e, target);
    assert_eq!(hits.len(), 8);
    assert_eq!(hits[0].record.text, target, "the exact text comes first");
    let code = "The locker code is Zx81 for the garden shed";
    e.remember(&s, MemoryInput::fact(code).with_embedding(emb.embed(code)), T0 + 300).expect("code");
    let hits = k8(&e, "what was the Zx81 thing about the quarterly garden meeting");
    assert!(hits.iter().any(|h| h.record.text == code), "the one memory holding Zx81 is in the 8: {:?}", hits.iter().map(|h| &h.record.text).collect::<Vec<_>>());
}

#[test]
fn the_turn_being_answered_is_not_recalled_as_a_memory_of_itself() {
    let (mut e, s) = engine();
    let session = s.clone().with_session("chat");
    e.remember(&s, MemoryInput::fact("User is allergic to peanuts"), T0).expect("fact");
    let asked = "what should I cook tonight given my peanut allergy";
    e.append_turn(&session, engram_core::Turn::user(asked), T0 + 1).expect("turn");
    let hits = e.recall(&s, &engram_core::RecallQuery::text(asked), T0 + 2).expect("recall").hits;
    assert!(hits.iter().all(|h| h.record.text != asked), "{:?}", hits.iter().map(|h| &h.record.text).collect::<Vec<_>>());
    assert!(hits.iter().any(|h| h.record.text == "User is allergic to peanuts"));
}

#[test]
fn in_a_store_past_five_thousand_memories_paraphrases_still_reinforce_and_different_people_stay_apart() {
    // From 4,096 memory vectors on, near duplicates are looked for among the memories
    // sharing a rare word (the words index), not by a scan of every vector.
    let emb = load_default_table();
    let (mut e, s) = engine();
    let filler: Vec<MemoryInput> = (0..5_000).map(|i| {
        let text = format!("Weekly note {i} on the team schedule and the shared calendar");
        MemoryInput::fact(text.clone()).with_embedding(emb.embed(&text))
    }).collect();
    for chunk in filler.chunks(1_000) {
        e.remember_many(&s, chunk.to_vec(), T0).expect("filler");
    }
    assert!(e.count(&s).expect("count") >= 4_096);
    let mut at = T0 + 10;
    for name in ["Alice", "Zhang Wei", "Olivia", "Diego"] {
        for (a, b) in [("{} is allergic to peanuts", "{} is very allergic to peanuts"), ("{} has a dog named Rex", "{} has a dog called Rex"), ("{} works as a nurse at the hospital", "{} works as a nurse in the hospital")] {
            let (a, b) = (a.replace("{}", name), b.replace("{}", name));
            let first = e.remember(&s, MemoryInput::fact(a.clone()).with_embedding(emb.embed(&a)), at).expect("a");
            let second = e.remember(&s, MemoryInput::fact(b.clone()).with_embedding(emb.embed(&b)), at + 1).expect("b");
            at += 2;
            assert_eq!((second.action, &second.id), (WriteAction::Reinforced, &first.id), "{a:?} / {b:?}");
        }
    }
    for (a, b) in [("Bruno is allergic to shellfish", "Chloe is allergic to shellfish"), ("Liu Yang lives in Chengdu", "Chen Yang lives in Chengdu")] {
        let first = e.remember(&s, MemoryInput::fact(a).with_embedding(emb.embed(a)), at).expect("a");
        let second = e.remember(&s, MemoryInput::fact(b).with_embedding(emb.embed(b)), at + 1).expect("b");
        at += 2;
        assert_eq!(second.action, WriteAction::Inserted, "{a:?} / {b:?}");
        assert_ne!(first.id, second.id);
    }
}
