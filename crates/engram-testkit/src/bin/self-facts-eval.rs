//! Print per-category precision and recall of the everyday self-fact rules, for every
//! corpus that exists: `data/self_facts_en.tsv`, the templated `data/self_facts_zh.tsv`, and
//! the independently written Chinese halves `data/self_facts_zh_dev.tsv` / `_heldout.tsv`
//! and the second independent corpus `data/self_facts_zh_fresh.tsv`.
//! `cargo run -p engram-testkit --bin self-facts-eval [-- -v]` (-v lists the errors).

fn main() {
    let verbose = std::env::args().any(|a| a == "-v");
    for lang in ["en", "en_chat_dev", "en_chat_heldout", "en_chat2", "zh", "zh_dev", "zh_heldout", "zh_fresh", "zh_third_dev", "zh_third_heldout"] {
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
