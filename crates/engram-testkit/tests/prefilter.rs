//! The sign-code pre-filter of large int8 indexes (`index::vector::prefilter`) against the
//! exact scan, on text no one here wrote: the 27,704 turns of persona-dev
//! (Synthetic-Persona-Chat, CC BY 4.0) embedded with the default table, searched with its
//! 8,952 persona lines as queries.

use engram_core::index::vector::prefilter::{pool, SignCodes, MIN_ROWS};
use engram_core::index::vector::{AnnParams, Precision, VectorIndex};
use engram_testkit::qa_eval::load_default_table;

fn persona_texts() -> (Vec<String>, Vec<String>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/eval/persona-dev/persona-dev.json");
    let raw = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e} (../shared beside the clone holds the evaluation data)"));
    let json: serde_json::Value = serde_json::from_str(&raw).expect("persona-dev.json");
    let (mut turns, mut lines) = (Vec::new(), Vec::new());
    for c in json["valid"].as_array().expect("valid") {
        for t in c["turns"].as_array().expect("turns") {
            turns.push(t["text"].as_str().unwrap_or_default().to_owned());
        }
        for p in ["persona1", "persona2"] {
            lines.extend(c[p].as_array().expect("persona").iter().filter_map(|l| l.as_str()).map(str::to_owned));
        }
    }
    (turns, lines)
}

#[test]
fn on_real_turns_the_prefiltered_scan_finds_what_the_exact_scan_finds() {
    let emb = load_default_table();
    let (turns, lines) = persona_texts();
    let vectors: Vec<Vec<f32>> = turns.iter().map(|t| emb.embed(t)).filter(|v| v.iter().any(|x| *x != 0.0)).collect();
    assert!(vectors.len() >= MIN_ROWS, "{} rows: the pre-filter must be on", vectors.len());
    let mut ix = VectorIndex::new(emb.dim(), Precision::Int8, usize::MAX, AnnParams::default());
    for (i, v) in vectors.iter().enumerate() {
        ix.insert(i as u32, v);
    }
    let queries: Vec<Vec<f32>> = lines.iter().step_by(20).map(|l| emb.embed(l)).filter(|v| v.iter().any(|x| *x != 0.0)).collect();
    let (mut found, mut identical) = (0usize, 0usize);
    for q in &queries {
        let fast = ix.search(q, 10, -1.0, |_| true);
        let exact = ix.search_exact(q, 10);
        found += fast.iter().filter(|h| exact.iter().any(|e| e.0 == h.0)).count();
        identical += usize::from(fast.iter().map(|h| h.0).eq(exact.iter().map(|h| h.0)));
    }
    let recall = found as f64 / (10 * queries.len()) as f64;
    // What the pool size buys, beside the shipped one (for the record in the test log).
    let codes = SignCodes::build(emb.dim(), vectors.iter().map(|v| Some(v.clone())));
    for div in [50usize, 25, 10] {
        let p = (vectors.len() / div).max(1);
        let mut hit = 0usize;
        for q in &queries {
            let near = codes.nearest(&codes.code(q), vectors.len(), |_| true, p);
            hit += ix.search_exact(q, 10).iter().filter(|e| near.contains(&e.0)).count();
        }
        eprintln!("pool 1/{div} ({p} rows): {:.4} of the exact top 10 in the pool", hit as f64 / (10 * queries.len()) as f64);
    }
    eprintln!("shipped pool {} rows: recall@10 {recall:.4}, identical top 10 in {identical} of {}", pool(vectors.len(), 10), queries.len());
    assert!(recall >= 0.99, "recall@10 against the exact scan {recall}");
}
