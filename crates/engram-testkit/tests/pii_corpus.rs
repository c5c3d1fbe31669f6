//! PII detection on the labelled corpus (≥ 200 cases, English and Chinese, positives and
//! look-alike negatives): recall ≥ 0.99, precision ≥ 0.95, and no value survives redaction.

#[test]
fn pii_detection_meets_its_precision_and_recall_goals_on_the_labelled_corpus() {
    let r = engram_testkit::pii_eval::evaluate();
    assert!(r.cases >= 200, "corpus has {} cases", r.cases);
    assert!(r.counts.recall() >= 0.99, "recall {:.3}: {:#?}", r.counts.recall(), r.errors);
    assert!(r.counts.precision() >= 0.95, "precision {:.3}: {:#?}", r.counts.precision(), r.errors);
    assert!(r.leaks.is_empty(), "{:#?}", r.leaks);
}
