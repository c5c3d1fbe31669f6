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

#[test]
fn what_is_said_of_someone_else_in_chinese_is_kept_as_theirs_not_the_users() {
    let r = evaluate("zh").unwrap_or_else(|| unreachable!("data/self_facts_zh.tsv is part of the repository"));
    assert_eq!(r.by_category["not:other"].false_pos, 0, "{}", r.errors.join("\n"));
    let facts = engram_core::extract::extract("我妈妈对花生过敏");
    assert_eq!(facts.len(), 1, "{facts:?}");
    assert_eq!(facts[0].text, "用户的妈妈对花生过敏");
    assert_eq!(facts[0].tags, vec!["category:people".to_owned()]);
    assert!(facts[0].key.is_none(), "{:?}", facts[0].key);
    // Reported speech about someone else is still refused outright.
    assert!(engram_core::extract::extract("我妈妈说她对花生过敏").is_empty());
}
