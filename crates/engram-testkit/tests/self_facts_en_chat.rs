//! English everyday self-facts as people type them in chat (issue 35): lower case, no
//! apostrophes, dropped subjects, facts said while asking for something. A helper who read
//! no file of the repository wrote and labelled the corpus on 2026-12-07; it is split per
//! category into a development half (`data/self_facts_en_chat_dev.tsv`), which the rules
//! were fixed against, and a held-out half (`data/self_facts_en_chat_heldout.tsv`), only
//! measured. Measured unseen: 0.479 / 0.919 and 0.388 / 0.955. A second corpus by another
//! helper (`data/self_facts_en_chat2.tsv`: task requests, voice-to-text, non-native and
//! regional English) was measured once as it came (0.600 / 0.957), then used for
//! development. Thresholds are the figures after the fixes minus a margin
//! (docs/self-facts.md has them by category).

use engram_testkit::self_facts_eval::{evaluate, table, Report};

fn corpus(lang: &str) -> Report {
    let r = evaluate(lang).unwrap_or_else(|| unreachable!("data/self_facts_{lang}.tsv is part of the repository"));
    println!("{}", table(&r));
    assert!(r.total.kept_rows >= 150 && r.total.reject_rows >= 150, "corpus too small: {} / {}", r.total.kept_rows, r.total.reject_rows);
    r
}

#[test]
fn the_development_half_keeps_most_statements_and_nothing_refused() {
    let r = corpus("en_chat_dev");
    assert!(r.recall() >= 0.80, "recall {:.3}\n{}", r.recall(), r.errors.join("\n"));
    assert!(r.precision() >= 0.97, "precision {:.3}\n{}", r.precision(), r.errors.join("\n"));
    for kind in ["question", "hypothetical", "hedge", "instruction", "pronoun", "smalltalk"] {
        assert_eq!(r.by_category[&format!("not:{kind}")].false_pos, 0, "{kind}\n{}", r.errors.join("\n"));
    }
}

#[test]
fn the_held_out_half_stays_at_its_measured_figures() {
    let r = corpus("en_chat_heldout");
    assert!(r.recall() >= 0.51, "recall {:.3}", r.recall());
    assert!(r.precision() >= 0.95, "precision {:.3}", r.precision());
    assert!(r.total.kept_any as f64 / r.total.kept_rows as f64 >= 0.67, "kept in any category {}", r.total.kept_any);
}

#[test]
fn the_second_corpus_keeps_most_statements_and_little_refused() {
    let r = corpus("en_chat2");
    assert!(r.recall() >= 0.67, "recall {:.3}\n{}", r.recall(), r.errors.join("\n"));
    assert!(r.precision() >= 0.97, "precision {:.3}\n{}", r.precision(), r.errors.join("\n"));
    for kind in ["hypothetical", "instruction", "smalltalk", "reported"] {
        assert_eq!(r.by_category[&format!("not:{kind}")].false_pos, 0, "{kind}\n{}", r.errors.join("\n"));
    }
}
