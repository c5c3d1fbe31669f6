//! Print PII detection precision and recall on the labelled corpus.
//! `cargo run --release -p engram-testkit --bin pii-eval`

fn main() {
    let r = engram_testkit::pii_eval::evaluate();
    println!(
        "PII corpus: {} cases ({} with PII): precision {:.3}, recall {:.3} (TP {}, FP {}, FN {}), {} leaked values",
        r.cases,
        r.positives,
        r.counts.precision(),
        r.counts.recall(),
        r.counts.true_pos,
        r.counts.false_pos,
        r.counts.false_neg,
        r.leaks.len()
    );
    for e in r.errors.iter().chain(&r.leaks) {
        println!("  {e}");
    }
}
