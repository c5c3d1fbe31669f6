//! English everyday self-facts (issue 35), on a corpus labelled by a helper who had not
//! read the rules (`data/self_facts_en.tsv`: 369 statements to keep in 11 categories, 360
//! not to keep — questions, negations, hedges, hypotheticals, reported speech, pronoun
//! objects, small talk, other people, injected instructions). The rules were then fixed
//! against its errors, so it is a development set now, not a held-out one. Thresholds:
//! the figures measured on 2026-12-07 (recall 0.894, precision 0.985) minus a margin.

use engram_testkit::self_facts_eval::{evaluate, table};

#[test]
fn english_self_facts_meet_recall_and_precision_on_the_labelled_corpus() {
    let r = evaluate("en").unwrap_or_else(|| unreachable!("data/self_facts_en.tsv is part of the repository"));
    println!("{}", table(&r));
    assert!(r.total.kept_rows >= 300 && r.total.reject_rows >= 300, "corpus too small: {} / {}", r.total.kept_rows, r.total.reject_rows);
    assert!(r.recall() >= 0.88, "recall {:.3}\n{}", r.recall(), r.errors.join("\n"));
    assert!(r.precision() >= 0.95, "precision {:.3}\n{}", r.precision(), r.errors.join("\n"));
    for (c, n) in r.by_category.iter().filter(|(c, _)| !c.starts_with("not:")) {
        assert!(n.kept_rows >= 30, "category {c} has {} rows", n.kept_rows);
        assert!(n.recall() >= 0.6, "category {c}: recall {:.3}\n{}", n.recall(), r.errors.join("\n"));
    }
}

#[test]
fn injected_instructions_hedges_reports_and_pronoun_objects_keep_nothing() {
    let r = evaluate("en").unwrap_or_else(|| unreachable!("data/self_facts_en.tsv is part of the repository"));
    for kind in ["instruction", "hedge", "hypothetical", "reported", "pronoun", "question"] {
        let n = &r.by_category[&format!("not:{kind}")];
        assert!(n.reject_rows >= 40, "{kind}: {} rows", n.reject_rows);
        assert_eq!(n.false_pos, 0, "{kind}: kept as the user's fact\n{}", r.errors.join("\n"));
    }
}

#[test]
fn what_is_said_of_someone_else_is_never_kept_as_the_users_fact() {
    let r = evaluate("en").unwrap_or_else(|| unreachable!("data/self_facts_en.tsv is part of the repository"));
    let n = &r.by_category["not:other"];
    // One row ("My cousin's birthday is tomorrow") is kept as a date of the user's, on purpose.
    assert!(n.false_pos <= 1, "{} rows about others kept as the user's\n{}", n.false_pos, r.errors.join("\n"));
    let facts = engram_core::extract::extract("My friend is allergic to peanuts");
    assert_eq!(facts.len(), 1, "{facts:?}");
    assert_eq!(facts[0].text, "User's friend is allergic to peanuts");
    assert_eq!(facts[0].tags, vec!["category:people".to_owned()]);
    assert!(facts[0].key.is_none(), "someone else's allergy must not take a key of the user's: {:?}", facts[0].key);
}
