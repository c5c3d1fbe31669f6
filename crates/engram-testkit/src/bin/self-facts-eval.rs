//! Print per-category precision and recall of the everyday self-fact rules, for every
//! language whose corpus exists (`data/self_facts_zh.tsv`, `data/self_facts_en.tsv`).
//! `cargo run -p engram-testkit --bin self-facts-eval [-- -v]` (-v lists the errors).

fn main() {
    let verbose = std::env::args().any(|a| a == "-v");
    for lang in ["en", "zh"] {
        match engram_testkit::self_facts_eval::evaluate(lang) {
            Some(r) => {
                print!("{}", engram_testkit::self_facts_eval::table(&r));
                if verbose {
                    for e in &r.errors {
                        println!("    {e}");
                    }
                }
            }
            None => println!("self-facts ({lang}): no corpus, skipped"),
        }
    }
}
