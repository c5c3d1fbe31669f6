//! Conflicts between a new value and the current value of its key (seed 002): keep new,
//! keep old, merge, flag for review — by rules, overridable — with every version audited.
//! And reversible redaction with a key only the user holds.

use engram_core::pii::RedactionKey;
use engram_core::{
    decode_ops, encode_ops, ConflictPolicy, Config, Engram, ListFilter, MemoryInput, RecallQuery, Record, Resolution, Scope, Source,
    WriteAction,
};

const T0: i64 = 1_764_000_000_000;

fn alice() -> Scope {
    Scope::user("acme", "alice")
}

fn current(e: &Engram) -> Vec<String> {
    e.list(&alice(), &ListFilter::default(), T0 + 10_000).expect("list").into_iter().map(|r| r.text).collect()
}

fn all_versions(e: &Engram) -> Vec<Record> {
    e.list(&alice(), &ListFilter { include_superseded: true, ..Default::default() }, T0 + 10_000).expect("list")
}

fn city(text: &str, source: Source, confidence: f32) -> MemoryInput {
    let mut m = MemoryInput::fact(text).with_key("user", "city").with_source(source);
    m.confidence = confidence;
    m
}

#[test]
fn a_newer_value_as_trusted_as_the_old_replaces_it_and_both_versions_stay_audited() {
    let mut e = Engram::new(Config::default(), 1);
    let old = e.remember(&alice(), city("Lives in Hangzhou", Source::User, 0.9), T0).expect("old");
    let new = e.remember(&alice(), city("Lives in Shanghai", Source::User, 0.9), T0 + 1).expect("new");
    assert_eq!(new.action, WriteAction::Inserted);
    assert_eq!(new.conflict, Some(Resolution::KeepNew));
    assert_eq!(new.superseded, vec![old.id.clone()]);
    assert_eq!(current(&e), vec!["Lives in Shanghai"]);
    let versions = all_versions(&e);
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0].superseded_by.as_deref(), Some(new.id.as_str()));
}

#[test]
fn an_llm_guess_against_what_the_user_said_is_flagged_and_never_recalled_until_reviewed() {
    let mut e = Engram::new(Config::default(), 1);
    let stated = e.remember(&alice(), city("Lives in Hangzhou", Source::User, 0.9), T0).expect("stated");
    let guess = e.remember(&alice(), city("Lives in Beijing", Source::LlmExtracted, 0.7), T0 + 1).expect("guess");
    assert_eq!(guess.action, WriteAction::Flagged);
    assert_eq!(guess.conflict, Some(Resolution::Flag));
    assert!(guess.superseded.is_empty());
    assert_eq!(current(&e), vec!["Lives in Hangzhou"]);
    let hits = e.recall(&alice(), &RecallQuery::text("where does the user live, Beijing or Hangzhou"), T0 + 2).expect("recall");
    assert!(hits.hits.iter().all(|h| h.record.id != guess.id), "a flagged value is not recalled");
    let review = e.list(&alice(), &ListFilter { pending_review: true, ..Default::default() }, T0 + 2).expect("review");
    assert_eq!(review.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), vec![guess.id.as_str()]);

    let settled = e.resolve_review(&alice(), &guess.id, Resolution::KeepNew, T0 + 3).expect("resolve");
    assert_eq!(settled.superseded, vec![stated.id.clone()]);
    assert_eq!(current(&e), vec!["Lives in Beijing"]);
    let hits = e.recall(&alice(), &RecallQuery::text("Beijing"), T0 + 4).expect("recall");
    assert_eq!(hits.hits.first().map(|h| h.record.id.as_str()), Some(guess.id.as_str()));
    assert_eq!(
        e.resolve_review(&alice(), &guess.id, Resolution::KeepOld, T0 + 5).map_err(|e| e.code()).err(),
        Some("INVALID_INPUT"),
        "a settled value cannot be settled again"
    );
}

#[test]
fn keeping_the_old_value_on_review_closes_the_flagged_one_for_audit() {
    let mut e = Engram::new(Config::default(), 1);
    let stated = e.remember(&alice(), city("Lives in Hangzhou", Source::User, 0.9), T0).expect("stated");
    let guess = e.remember(&alice(), city("Lives in Beijing", Source::LlmExtracted, 0.7), T0 + 1).expect("guess");
    let settled = e.resolve_review(&alice(), &guess.id, Resolution::KeepOld, T0 + 2).expect("resolve");
    assert_eq!(settled.action, WriteAction::Rejected);
    assert_eq!(current(&e), vec!["Lives in Hangzhou"]);
    let closed = all_versions(&e).into_iter().find(|r| r.id == guess.id).expect("audited");
    assert_eq!(closed.superseded_by.as_deref(), Some(stated.id.as_str()));
    assert!(!closed.pending_review);
}

#[test]
fn a_low_confidence_guess_is_rejected_but_kept_in_the_audit_trail() {
    let mut e = Engram::new(Config::default(), 1);
    let stated = e.remember(&alice(), city("Lives in Hangzhou", Source::User, 0.9), T0).expect("stated");
    let guess = e.remember(&alice(), city("Lives in Beijing", Source::LlmExtracted, 0.3), T0 + 1).expect("guess");
    assert_eq!(guess.action, WriteAction::Rejected);
    assert_eq!(current(&e), vec!["Lives in Hangzhou"]);
    let audited = all_versions(&e).into_iter().find(|r| r.id == guess.id).expect("kept for audit");
    assert_eq!(audited.superseded_by.as_deref(), Some(stated.id.as_str()));
}

#[test]
fn many_valued_attributes_merge_instead_of_replacing() {
    let mut e = Engram::new(Config::default(), 1);
    e.remember(&alice(), MemoryInput::fact("Knows Python").with_key("user", "skill"), T0).expect("a");
    let b = e.remember(&alice(), MemoryInput::fact("Knows Go").with_key("user", "skill"), T0 + 1).expect("b");
    assert_eq!(b.conflict, Some(Resolution::Merge));
    assert_eq!(current(&e), vec!["Knows Python", "Knows Go"]);
}

#[test]
fn a_statement_older_than_the_current_value_does_not_replace_it() {
    let mut e = Engram::new(Config::default(), 1);
    e.remember(&alice(), city("Lives in Shanghai", Source::User, 0.9), T0).expect("current");
    let mut late = city("Lives in Hangzhou", Source::User, 0.9);
    late.observed_at = Some(T0 - 86_400_000); // extracted late from last week's chat
    let out = e.remember(&alice(), late, T0 + 1).expect("late");
    assert_eq!(out.action, WriteAction::Rejected);
    assert_eq!(current(&e), vec!["Lives in Shanghai"]);
    let mut future = city("Lives in Paris", Source::User, 0.9);
    future.observed_at = Some(T0 + 1_000_000);
    assert_eq!(e.remember(&alice(), future, T0 + 2).map_err(|e| e.code()).err(), Some("INVALID_INPUT"));
}

#[test]
fn the_policy_and_each_write_can_override_the_rules() {
    let config = Config { conflicts: ConflictPolicy { always: Some(Resolution::Flag), ..Default::default() }, ..Default::default() };
    let mut e = Engram::new(config, 1);
    e.remember(&alice(), city("Lives in Hangzhou", Source::User, 0.9), T0).expect("a");
    let flagged = e.remember(&alice(), city("Lives in Shanghai", Source::User, 0.9), T0 + 1).expect("b");
    assert_eq!(flagged.action, WriteAction::Flagged, "the store's policy flags every conflict");
    let mut forced = city("Lives in Paris", Source::LlmExtracted, 0.2);
    forced.on_conflict = Some(Resolution::KeepNew);
    let out = e.remember(&alice(), forced, T0 + 2).expect("c");
    assert_eq!(out.action, WriteAction::Inserted, "the write's own choice wins over the policy");
    assert_eq!(current(&e), vec!["Lives in Paris"]);
}

#[test]
fn an_update_of_an_unkeyed_memory_closes_the_one_it_replaces() {
    let mut e = Engram::new(Config::default(), 1);
    let a = e.remember(&alice(), MemoryInput::fact("Working on the Q3 report"), T0).expect("a");
    let mut update = MemoryInput::fact("Finished the Q3 report");
    update.replaces = Some(a.id.clone());
    let b = e.remember(&alice(), update, T0 + 1).expect("b");
    assert_eq!(b.superseded, vec![a.id.clone()]);
    assert_eq!(current(&e), vec!["Finished the Q3 report"]);
    let mut again = MemoryInput::fact("Sent the Q3 report");
    again.replaces = Some(a.id);
    assert_eq!(e.remember(&alice(), again, T0 + 2).map_err(|e| e.code()).err(), Some("INVALID_INPUT"), "already replaced");
}

#[test]
fn a_review_and_its_resolution_reach_another_replica_through_ops() {
    let mut a = Engram::new(Config::default(), 1);
    let mut b = Engram::new(Config::default(), 2);
    a.remember(&alice(), city("Lives in Hangzhou", Source::User, 0.9), T0).expect("stated");
    let guess = a.remember(&alice(), city("Lives in Beijing", Source::LlmExtracted, 0.7), T0 + 1).expect("guess");
    b.apply_ops(decode_ops(&encode_ops(&a.take_pending()).expect("enc")).expect("dec")).expect("apply");
    let review = |e: &Engram| e.list(&alice(), &ListFilter { pending_review: true, ..Default::default() }, T0 + 2).expect("list").len();
    assert_eq!(review(&b), 1);
    a.resolve_review(&alice(), &guess.id, Resolution::KeepNew, T0 + 3).expect("resolve");
    b.apply_ops(a.take_pending()).expect("apply");
    assert_eq!(review(&b), 0);
    assert_eq!(current(&b), vec!["Lives in Beijing"]);
}

#[test]
fn with_the_users_key_redaction_is_reversible_and_the_key_is_never_stored() {
    let secret = [42u8; 32];
    let key = RedactionKey::from_bytes(&secret).expect("key");
    let mut e = Engram::new(Config::default(), 1);
    e.set_redaction_key(Some(key.clone()));
    let out = e.remember(&alice(), MemoryInput::fact("My work email is li.lei@example.com"), T0).expect("write");
    let stored = e.get(&alice(), &out.id).expect("get");
    assert!(stored.text.starts_with("My work email is [EMAIL#"), "{}", stored.text);
    assert_eq!(e.reveal(&alice(), &out.id, &key).expect("reveal"), "My work email is li.lei@example.com");
    let wrong = RedactionKey::from_bytes(&[1u8; 32]).expect("key");
    assert_eq!(e.reveal(&alice(), &out.id, &wrong).map_err(|e| e.code()).err(), Some("REDACTION_KEY"));

    let snapshot = e.snapshot().expect("snapshot");
    let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(!contains(&snapshot, b"li.lei@example.com"), "the value is sealed, not stored");
    assert!(!contains(&snapshot, &secret[..16]), "the key is not in the snapshot");
    let restored = Engram::from_snapshot(&snapshot).expect("restore");
    assert_eq!(restored.reveal(&alice(), &out.id, &key).expect("reveal"), "My work email is li.lei@example.com");

    // Without a key (the default) redaction is irreversible: nothing sealed.
    let mut plain = Engram::new(Config::default(), 1);
    let out = plain.remember(&alice(), MemoryInput::fact("My work email is li.lei@example.com"), T0).expect("write");
    let r = plain.get(&alice(), &out.id).expect("get");
    assert_eq!(r.text, "My work email is [EMAIL]");
    assert!(r.sealed.is_empty());
}

#[test]
fn an_update_that_loses_its_conflict_replaces_nothing() {
    let mut e = Engram::new(Config::default(), 1);
    let stated = e.remember(&alice(), city("Lives in Hangzhou", Source::User, 0.9), T0).expect("stated");
    let mut update = city("Lives in Beijing", Source::LlmExtracted, 0.7);
    update.replaces = Some(stated.id.clone());
    let out = e.remember(&alice(), update, T0 + 1).expect("update");
    assert_eq!(out.action, WriteAction::Flagged);
    assert!(out.superseded.is_empty());
    assert_eq!(current(&e), vec!["Lives in Hangzhou"]);
}

#[test]
fn a_retracted_memory_leaves_recall_and_stays_audited() {
    let mut e = Engram::new(Config::default(), 1);
    let a = e.remember(&alice(), MemoryInput::fact("Has a meeting with Bob on Friday"), T0).expect("a");
    e.retract(&alice(), &a.id, T0 + 1).expect("retract");
    assert!(current(&e).is_empty());
    assert!(e.recall(&alice(), &RecallQuery::text("meeting with Bob"), T0 + 2).expect("recall").hits.is_empty());
    assert_eq!(all_versions(&e).len(), 1);
    assert_eq!(e.retract(&alice(), &a.id, T0 + 3).map_err(|e| e.code()).err(), Some("INVALID_INPUT"));
    assert_eq!(e.retract(&alice(), "nope", T0 + 3).map_err(|e| e.code()).err(), Some("NOT_FOUND"));
}
