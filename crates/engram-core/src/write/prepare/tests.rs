//! The write pipeline: what `prepare` asks to embed is what is stored, a bad item refuses
//! the whole batch, `commit` checks its vectors, and the sync wrappers (`remember`,
//! `append_turn`, `observe`) agree with prepare + commit.

use proptest::prelude::*;

use super::WriteBatch;
use crate::knowledge::graph::GraphQuery;
use crate::model::{Kind, MemoryInput, Scope, Sensitivity};
use crate::{Config, Engram, ListFilter, Turn};

const NOW: i64 = 1_764_000_000_000;

fn engine() -> Engram {
    Engram::new(Config::default(), 1)
}

fn scope() -> Scope {
    Scope::user("t", "alice")
}

fn memories(texts: &[&str]) -> WriteBatch {
    WriteBatch { memories: texts.iter().map(|t| MemoryInput::new(Kind::Fact, *t)).collect(), ..WriteBatch::default() }
}

/// Every record's text (memories and turns).
fn texts_stored(e: &Engram) -> Vec<String> {
    e.list(&scope(), &ListFilter::default(), NOW).unwrap_or_default().into_iter().map(|r| r.text).collect()
}

#[test]
fn texts_to_embed_are_the_stored_texts_with_pii_redacted() {
    let mut e = engine();
    let batch = WriteBatch {
        turns: vec![Turn::user("  Mail me at bob@example.com  "), Turn::assistant("Noted, bob@example.com.")],
        session: Some("s".into()),
        embed_turns: true,
        ..memories(&["Bob's mail is bob@example.com"])
    };
    let p = e.prepare(&scope(), batch, NOW).unwrap();
    assert_eq!(p.texts(), ["Mail me at [EMAIL]", "Noted, [EMAIL].", "Bob's mail is [EMAIL]"]);
    let asked = p.texts().to_vec();
    let vectors = (0..asked.len()).map(|i| Some(vec![1.0, i as f32])).collect();
    e.commit(p, vectors, NOW).unwrap();
    let mut stored = texts_stored(&e);
    stored.sort();
    let mut want = asked;
    want.sort();
    assert_eq!(stored, want, "every text embedded is a text stored, character for character");
}

#[test]
fn a_dropped_memory_or_one_with_its_own_vector_asks_for_none_and_turns_only_when_embedded() {
    let mut e = engine();
    let mut config = Config::default();
    config.pii.public = crate::pii::PiiAction::Drop;
    e.set_config(config).unwrap();
    let mut own = MemoryInput::new(Kind::Fact, "has its own vector");
    own.embedding = Some(vec![0.0, 2.0]);
    let mut public = MemoryInput::new(Kind::Fact, "call 555-123-4567 at bob@example.com");
    public.sensitivity = Sensitivity::Public;
    let batch = WriteBatch {
        memories: vec![own, public, MemoryInput::new(Kind::Fact, "needs one")],
        turns: vec![Turn::user("hello there")],
        session: Some("s".into()),
        ..WriteBatch::default()
    };
    let p = e.prepare(&scope(), batch, NOW).unwrap();
    assert_eq!(p.texts(), ["needs one"]);
    let done = e.commit(p, vec![None], NOW).unwrap();
    assert_eq!(done.turns.len(), 1);
    assert_eq!(done.remembered[1].action, crate::WriteAction::Dropped);
}

#[test]
fn one_bad_item_refuses_the_whole_batch_and_nothing_is_written() {
    let mut e = engine();
    let mut bad = MemoryInput::new(Kind::Fact, "importance out of range");
    bad.importance = 2.0;
    let mut batch = memories(&["first is fine"]);
    batch.memories.push(bad);
    assert_eq!(e.prepare(&scope(), batch, NOW).unwrap_err().code(), "INVALID_INPUT");
    let turns = WriteBatch { turns: vec![Turn::user("fine"), Turn::user("   ")], session: Some("s".into()), ..WriteBatch::default() };
    assert_eq!(e.prepare(&scope(), turns, NOW).unwrap_err().code(), "INVALID_INPUT");
    let no_session = WriteBatch { turns: vec![Turn::user("fine")], ..WriteBatch::default() };
    assert_eq!(e.prepare(&scope(), no_session, NOW).unwrap_err().code(), "INVALID_INPUT");
    assert!(texts_stored(&e).is_empty());
    assert!(e.take_pending().is_empty());
}

#[test]
fn commit_refuses_a_wrong_count_or_a_bad_vector_before_writing_anything() {
    let mut e = engine();
    let p = e.prepare(&scope(), memories(&["one", "two"]), NOW).unwrap();
    assert_eq!(e.commit(p.clone(), vec![None], NOW).unwrap_err().code(), "INVALID_INPUT");
    assert_eq!(e.commit(p.clone(), vec![Some(vec![1.0, 0.0]), Some(vec![f32::NAN, 1.0])], NOW).unwrap_err().code(), "BAD_EMBEDDING");
    assert_eq!(e.commit(p.clone(), vec![Some(vec![1.0, 0.0]), Some(vec![1.0, 0.0, 0.0])], NOW).unwrap_err().code(), "DIMENSION_MISMATCH");
    assert!(texts_stored(&e).is_empty());
    assert!(e.take_pending().is_empty());
    assert_eq!(e.commit(p, vec![Some(vec![1.0, 0.0]), None], NOW).unwrap().remembered.len(), 2);
    assert_eq!(e.embedder().map(|x| x.dim), Some(2), "the first vector stored fixes the dimension");
}

#[test]
fn an_observed_batch_records_the_turns_then_remembers_and_links_what_the_user_said() {
    let mut e = engine();
    let batch = WriteBatch {
        turns: vec![Turn::user("I work at Alibaba."), Turn::assistant("I work at Google, says the assistant.")],
        session: Some("s".into()),
        extract: true,
        ..WriteBatch::default()
    };
    let p = e.prepare(&scope(), batch, NOW).unwrap();
    let n = p.texts().len();
    let done = e.commit(p, vec![None; n], NOW).unwrap();
    assert_eq!(done.turns.len(), 2);
    assert_eq!(done.remembered.len(), 1, "only the user's turn states facts");
    let q = GraphQuery::Neighbours { entity: "user".into(), relation: Some("works_at".into()) };
    let names: Vec<String> = e.graph_query(&scope(), &q).unwrap().entities.into_iter().map(|x| x.name).collect();
    assert_eq!(names, ["Alibaba"]);
}

proptest! {
    /// The sync `remember` (one memory at a time, its vector given) and one prepared batch
    /// committed with the same vectors leave the same records.
    #[test]
    fn a_batch_committed_with_vectors_stores_what_remember_one_by_one_stores(
        items in prop::collection::vec(("(tea|coffee|chess|bob@example\\.com|555-123-4567| ){1,6}", prop::option::of(0u8..3), 0u8..4), 1..8)
    ) {
        let inputs: Vec<MemoryInput> = items.iter().filter(|(t, _, _)| !t.trim().is_empty()).map(|(t, key, _)| {
            let mut m = MemoryInput::new(Kind::Fact, t.clone());
            m.key = key.map(|k| crate::model::FactKey { subject: "alice".into(), attribute: format!("a{k}") });
            m
        }).collect();
        let vector = |i: usize| vec![1.0, f32::from(items[i % items.len()].2), 0.5];
        let mut one = engine();
        for (i, m) in inputs.iter().enumerate() {
            let mut m = m.clone();
            m.embedding = Some(vector(i));
            one.remember(&scope(), m, NOW).unwrap();
        }
        let mut batch = engine();
        let p = batch.prepare(&scope(), WriteBatch { memories: inputs.clone(), ..WriteBatch::default() }, NOW).unwrap();
        let n = p.texts().len();
        prop_assert_eq!(n, inputs.len());
        batch.commit(p, (0..n).map(|i| Some(vector(i))).collect(), NOW).unwrap();
        let strip = |e: &Engram| e.list(&scope(), &ListFilter::default(), NOW).unwrap().into_iter().map(|r| (r.id, r.text, r.times_seen, r.valid_to, r.superseded_by)).collect::<Vec<_>>();
        prop_assert_eq!(strip(&one), strip(&batch));
    }
}
