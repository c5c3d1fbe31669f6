//! Print the rule-based extractor's precision, recall and F1 on the labelled corpus.
//! `cargo run --release -p engram-testkit --bin extraction-eval`

fn main() {
    let r = engram_testkit::extraction_eval::evaluate();
    println!(
        "extraction corpus: {} cases: precision {:.3}, recall {:.3}, F1 {:.3} (TP {}, FP {}, FN {})",
        r.cases,
        r.counts.precision(),
        r.counts.recall(),
        r.counts.f1(),
        r.counts.true_pos,
        r.counts.false_pos,
        r.counts.false_neg
    );
    for e in &r.errors {
        println!("  {e}");
    }
}
