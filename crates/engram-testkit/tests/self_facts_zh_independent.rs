//! Chinese everyday self-facts as people type them (issue 35), on sentences three helpers
//! wrote and labelled without reading the rules. The first and third corpora are split per
//! category into halves: the rules were fixed against `data/self_facts_zh_dev.tsv`, the
//! second corpus `data/self_facts_zh_fresh.tsv` and `data/self_facts_zh_third_dev.tsv`;
//! `data/self_facts_zh_heldout.tsv` and `data/self_facts_zh_third_heldout.tsv` were only
//! measured. Thresholds: the figures measured on 2026-12-07 minus a margin
//! (docs/self-facts.md has them by category).

use engram_testkit::self_facts_eval::{evaluate, table, Report};

/// The report on `data/self_facts_<lang>.tsv`, printed, with at least `rows` rows to keep
/// and `rows` not to keep.
fn corpus(lang: &str, rows: usize) -> Report {
    let r = evaluate(lang).unwrap_or_else(|| unreachable!("data/self_facts_{lang}.tsv is part of the repository"));
    println!("{}", table(&r));
    assert!(r.total.kept_rows >= rows && r.total.reject_rows >= rows, "corpus too small: {} / {}", r.total.kept_rows, r.total.reject_rows);
    r
}

/// The corpus `lang` (at least `rows` each way) keeps `recall` of its statements at
/// `precision`, and keeps at most `most` sentence of each of `kinds` not to keep.
fn keeps(lang: &str, rows: usize, recall: f64, precision: f64, kinds: &[&str], most: usize) {
    let r = corpus(lang, rows);
    assert!(r.recall() >= recall, "recall {:.3}\n{}", r.recall(), r.errors.join("\n"));
    assert!(r.precision() >= precision, "precision {:.3}\n{}", r.precision(), r.errors.join("\n"));
    for kind in kinds {
        assert!(r.by_category[&format!("not:{kind}")].false_pos <= most, "{kind}\n{}", r.errors.join("\n"));
    }
}

#[test]
fn the_development_half_keeps_most_statements_and_nothing_refused() {
    keeps("zh_dev", 150, 0.78, 0.97, &["question", "negation", "hypothetical", "reported", "instruction"], 0);
}

#[test]
fn the_second_corpus_keeps_most_statements_and_nothing_refused() {
    keeps("zh_fresh", 300, 0.68, 0.97, &["question", "negation", "hypothetical", "reported", "instruction", "other"], 1);
}

#[test]
fn the_third_corpus_with_code_switching_and_long_messages_keeps_most_statements_and_nothing_refused() {
    keeps("zh_third_dev", 150, 0.85, 0.97, &["question", "negation", "hypothetical", "reported", "instruction", "other"], 1);
}

#[test]
fn the_held_out_halves_stay_at_their_measured_figures() {
    for (lang, recall, precision) in [("zh_heldout", 0.60, 0.95), ("zh_third_heldout", 0.68, 0.92)] {
        let r = corpus(lang, 150);
        assert!(r.recall() >= recall, "{lang}: recall {:.3}", r.recall());
        assert!(r.precision() >= precision, "{lang}: precision {:.3}", r.precision());
    }
}
