//! Latency benchmark (seed 001's third evaluation): `recall` + `build_context` on one
//! user's memories at 1k / 10k / 100k × 384-d, natively. Prints median and p95, and the
//! speed of the same engine without vectors and of a brute-force scan as peers measured
//! in the same run. Not a test: figures depend on the machine.
//!
//! `--consolidation` turns every consolidation step on (compression keeping folded turns,
//! episodes, patterns, compaction) and `--turns N` sets the session's turns (default 12;
//! with compression on, past its threshold the oldest fold into the summary).
//!
//! `cargo run --release -p engram-testkit --bin bench [-- --sizes 1000,10000 --queries 200 --consolidation --turns 200]`

use std::time::Instant;

use engram_core::consolidate::{Compaction, Compression, Consolidation, Episodes, Patterns};
use engram_core::{Config, ContextRequest, Engram, MemoryInput, Precision, RecallQuery, Scope, Turn};
use engram_testkit::cli::{arg, pct};
use engram_testkit::{brute_force_top_k, clustered_vectors_spread, corpus, tables};

const T0: i64 = 1_764_000_000_000;
const DIM: usize = 384;

fn main() {
    let sizes: Vec<usize> = arg("--sizes")
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let queries: usize = arg("--queries").and_then(|s| s.parse().ok()).unwrap_or(200);
    let turns: usize = arg("--turns").and_then(|s| s.parse().ok()).unwrap_or(12);
    let consolidation = if std::env::args().any(|a| a == "--consolidation") {
        Consolidation {
            compression: Some(Compression::default()),
            episodes: Some(Episodes::default()),
            patterns: Some(Patterns::default()),
            compaction: Some(Compaction::default()),
        }
    } else {
        Consolidation::default()
    };
    println!("consolidation: {}; session turns: {turns}", if consolidation == Consolidation::default() { "off" } else { "every step on" });
    let ann_threshold: usize = arg("--ann-threshold").and_then(|s| s.parse().ok()).unwrap_or(Config::default().ann_threshold);
    let precisions: Vec<Precision> = match arg("--precision").as_deref() {
        Some("int8") => vec![Precision::Int8],
        Some("f32") => vec![Precision::F32],
        _ => vec![Precision::Int8, Precision::F32],
    };
    let t = Instant::now();
    let tok = tables::o200k();
    println!("o200k table load (export + parse, first use): {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let bytes = tables::table_bytes(engram_core::Encoding::O200kBase);
    let mut loads = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let b = engram_core::Bpe::from_table_bytes(bytes).expect("table");
        loads.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(b);
    }
    println!("o200k ready from {} bytes: median {:.1} ms", bytes.len(), pct(loads, 0.5));
    let t = Instant::now();
    let reference = tiktoken_rs::o200k_base().expect("tiktoken-rs");
    println!("peer: tiktoken-rs o200k_base() construction {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let text = corpus::multilingual(1_000_000, 1);
    let t = Instant::now();
    let ours = tables::bpe(engram_core::Encoding::O200kBase).count(&text);
    let ours_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let theirs = reference.encode_ordinary(&text).len();
    let theirs_s = t.elapsed().as_secs_f64();
    assert_eq!(ours, theirs, "token parity");
    println!(
        "count 1 MB multilingual: engram {:.1} MB/s, tiktoken-rs {:.1} MB/s (×{:.2})",
        1.0 / ours_s,
        1.0 / theirs_s,
        theirs_s / ours_s
    );

    println!("\n{:>7} {:>6} | {:>10} {:>10} | {:>10} {:>10} | {:>10} | {:>9}", "n", "store", "recall p50", "p95", "ctx p50", "p95", "scan p50", "ann");
    for &n in &sizes {
        for &precision in &precisions {
            let mut vecs = clustered_vectors_spread(n + queries, DIM, 64, 1.0, n as u64);
            let qv = vecs.split_off(n);
            let texts = corpus::memories(n, 2);
            let mut config = Config::default();
            config.precision = precision;
            // Loading known-distinct memories: skip the near-duplicate scan (O(n) per insert).
            config.dedup_threshold = 1.01;
            config.ann_threshold = ann_threshold;
            let mut e = Engram::new(config, 1);
            e.set_tokenizer(tok.clone());
            e.set_consolidation(consolidation.clone()).expect("valid settings");
            let s = Scope::user("bench", "u").with_session("s");
            let t = Instant::now();
            for (i, (v, txt)) in vecs.iter().zip(&texts).enumerate() {
                let m = MemoryInput::fact(txt.clone()).with_embedding(v.clone()).with_importance(0.5 + (i % 5) as f32 / 10.0);
                e.remember(&s, m, T0 + i as i64).expect("remember");
            }
            for i in 0..turns {
                e.append_turn(&s, Turn::user(texts[i % n].clone()), T0 + n as i64 + i as i64).expect("turn");
            }
            let insert_s = t.elapsed().as_secs_f64();
            let mut ann = "none";
            if e.needs_index_rebuild(&s).expect("scope") {
                let t = Instant::now();
                e.rebuild_index(&s).expect("rebuild");
                println!("  (HNSW build for {n} took {:.1} s)", t.elapsed().as_secs_f64());
                ann = "hnsw";
            }
            e.take_pending();
            assert_eq!(e.count(&s).expect("count"), n + turns, "every memory must be distinct (no dedup) for the figures to mean anything");
            let now = T0 + n as i64 + 1000;
            let (mut rec, mut ctx) = (Vec::new(), Vec::new());
            for (i, q) in qv.iter().enumerate() {
                let qt = &texts[(i * 31) % n];
                let t = Instant::now();
                let r = e.recall(&s, &RecallQuery::text(qt.clone()).with_embedding(q.clone()), now).expect("recall");
                rec.push(t.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(r);
                let mut req = ContextRequest::new(qt.clone(), 900);
                req.embedding = Some(q.clone());
                let t = Instant::now();
                let c = e.build_context(&s, &req, now).expect("ctx");
                ctx.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(c.tokens <= 900);
            }
            let mut lex = Vec::new();
            for i in 0..queries.min(100) {
                let qt = &texts[(i * 31) % n];
                let t = Instant::now();
                std::hint::black_box(e.recall(&s, &RecallQuery::text(qt.clone()), now).expect("recall"));
                lex.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let mut scan = Vec::new();
            for q in qv.iter().take(50) {
                let t = Instant::now();
                std::hint::black_box(brute_force_top_k(&vecs, q, 50));
                scan.push(t.elapsed().as_secs_f64() * 1e3);
            }
            println!(
                "{n:>7} {:>6} | {:>8.3}ms {:>8.3}ms | {:>8.3}ms {:>8.3}ms | {:>8.3}ms | {ann:>9}  (words-only recall p50 {:.3}ms, insert {:.0}/s)",
                format!("{precision:?}"),
                pct(rec.clone(), 0.5),
                pct(rec, 0.95),
                pct(ctx.clone(), 0.5),
                pct(ctx, 0.95),
                pct(scan, 0.5),
                pct(lex, 0.5),
                n as f64 / insert_s
            );
        }
    }
    println!("\nscan = naive f64 brute-force top-50 over the same vectors (peer baseline, vector channel only).");
}
