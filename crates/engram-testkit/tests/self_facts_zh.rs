//! Chinese everyday self-facts (issue 35): the rules keep what the user says about
//! themselves and nothing from questions, negations, hedges, reported speech, other people,
//! pronoun objects or small talk. Thresholds: measured figures minus a margin.

use engram_testkit::self_facts_eval::{evaluate, table};

#[test]
fn chinese_self_facts_meet_recall_and_precision_on_the_labelled_corpus() {
    let r = evaluate("zh").unwrap_or_else(|| unreachable!("data/self_facts_zh.tsv is part of the repository"));
    println!("{}", table(&r));
    assert!(r.total.kept_rows >= 300 && r.total.reject_rows >= 300, "corpus too small: {} / {}", r.total.kept_rows, r.total.reject_rows);
    for (c, n) in r.by_category.iter().filter(|(c, _)| !c.starts_with("not:")) {
        assert!(n.kept_rows >= 20, "category {c} has {} rows", n.kept_rows);
    }
    assert!(r.recall() >= 0.95, "recall {:.3}\n{}", r.recall(), r.errors.join("\n"));
    assert!(r.precision() >= 0.97, "precision {:.3}\n{}", r.precision(), r.errors.join("\n"));
}
