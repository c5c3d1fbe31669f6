use super::*;
use crate::config::Config;
use crate::context::build::ContextRequest;
use crate::model::MemoryInput;

const T0: Millis = 1_764_000_000_000;

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn bad_feedback_is_refused_with_the_field_it_names() {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u");
    let many: Vec<String> = (0..40).map(|i| format!("m{i}")).collect();
    for (r, field) in [
        (e.record_feedback(&s, true, &many, None, None, T0), "used"),
        (e.record_feedback(&s, true, &[], Some("bad\u{7}note"), None, T0), "note"),
        (e.record_feedback(&s, true, &[], None, Some(&"t".repeat(80)), T0), "task"),
        (e.record_feedback(&s, true, &ids(&[""]), None, None, T0), "used"),
    ] {
        assert!(matches!(r, Err(Error::InvalidInput { field: f, .. }) if f == field), "{field}: {r:?}");
    }
    assert_eq!(e.list(&s, &Default::default(), T0).expect("list").len(), 0, "nothing was written");
}

#[test]
fn repeated_outcomes_become_best_practices_pitfalls_task_patterns_and_preferences() {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u");
    let good = e.remember(&s, MemoryInput::fact("User deploys with Kubernetes"), T0).expect("good").id;
    let bad = e.remember(&s, MemoryInput::fact("User once tried Docker Swarm"), T0).expect("bad").id;
    for i in 0..3 {
        e.record_feedback(&s, true, &[good.clone()], None, Some("deploy help"), T0 + i).expect("helpful");
    }
    e.record_feedback(&s, false, &[bad.clone()], Some("Too long. Please keep your answers short."), Some("deploy help"), T0 + 10).expect("unhelpful");
    assert_eq!(e.learn_from_feedback(&s, 10, T0 + 20).expect("too few").patterns, Vec::<String>::new(), "nothing below the minimum");
    e.record_feedback(&s, false, &[bad.clone()], None, None, T0 + 11).expect("unhelpful");
    let d = e.learn_from_feedback(&s, 5, T0 + 20).expect("learn");
    assert_eq!(d.interactions, 5);
    assert_eq!((d.raised.clone(), d.lowered.clone()), (vec![good.clone()], vec![bad.clone()]));
    assert_eq!(d.patterns.len(), 3, "best practice, pitfall, recurring task: {d:?}");
    let texts: Vec<String> = e.list(&s, &Default::default(), T0 + 20).expect("list").into_iter().map(|r| r.text).collect();
    assert!(texts.iter().any(|t| t.starts_with("What helped in 3 uses: \"User deploys with Kubernetes\"")), "{texts:?}");
    assert!(texts.iter().any(|t| t.starts_with("Did not help in 2 uses (a pitfall)")), "{texts:?}");
    assert!(texts.iter().any(|t| t == "Recurring task \"deploy help\": helped in 3 of 4 uses"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "User prefers short answers"), "the note's preference: {texts:?}");
    assert!((e.get(&s, &bad).expect("bad").importance - 0.1).abs() < 1e-6);
    let again = e.learn_from_feedback(&s, 5, T0 + 30).expect("again");
    assert!(again.patterns.is_empty() && again.raised.is_empty() && again.lowered.is_empty(), "nothing new: {again:?}");
    assert_eq!(e.profile(&s, 20, T0 + 30).expect("profile").behaviour.detail.map(|v| v.value), Some("brief".to_owned()));
}

#[test]
fn what_was_learned_changes_what_a_later_context_carries() {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u");
    let swarm = e.remember(&s, MemoryInput::fact("User once deployed a service with Docker Swarm"), T0).expect("swarm").id;
    let query = "how should I deploy the new service?";
    let before = e.build_context(&s, &ContextRequest::new(query, 300), T0 + 1).expect("before");
    assert!(!before.text.contains("short answers"));
    for i in 0..3 {
        e.record_feedback(&s, false, &[swarm.clone()], Some("Way too long, keep it short"), None, T0 + 2 + i).expect("feedback");
    }
    e.learn_from_feedback(&s, 3, T0 + 10).expect("learn");
    let after = e.build_context(&s, &ContextRequest::new(query, 300), T0 + 11).expect("after");
    assert!(after.text.contains("User prefers short answers"), "{}", after.text);
    assert!(after.text.contains("a pitfall"), "{}", after.text);
}
