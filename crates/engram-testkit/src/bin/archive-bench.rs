//! Archival benchmark (issue 19): 1,000 documents × ~50 chunks (≈50k chunks) for one user,
//! natively — time to add them through the write pipeline (chunking with exact o200k
//! counts, hashed 384-d vectors), `search_documents` p50/p95, `build_context` with the
//! documents section p50/p95, memory recall beside 50k chunks, snapshot size and the time
//! to open it. Not a test: figures depend on the machine.
//!
//! `cargo run --release -p engram-testkit --bin archive-bench [-- --docs 1000 --queries 200 --no-vectors]`

use std::time::Instant;

use engram_core::write::prepare::WriteBatch;
use engram_core::{Config, ContextRequest, DocumentInput, Engram, MemoryInput, RecallQuery, Scope};
use engram_testkit::cli::{arg, pct};
use engram_testkit::{corpus, embed::hashed_embedding, tables};

const T0: i64 = 1_764_000_000_000;
const DIM: usize = 384;

/// Document `d`: 100 paragraphs of three memory-like sentences under headings, so that
/// with a 128-token budget it makes about 50 chunks.
fn document(d: usize) -> String {
    let lines = corpus::memories(300, d as u64 + 1);
    let mut s = format!("# Document {d}\n\n");
    for (i, para) in lines.chunks(3).enumerate() {
        if i % 10 == 0 {
            s.push_str(&format!("## Section {i} of document {d}\n\n"));
        }
        s.push_str(&para.join(". "));
        s.push_str(".\n\n");
    }
    s
}

fn main() {
    let docs: usize = arg("--docs").and_then(|s| s.parse().ok()).unwrap_or(1_000);
    let queries: usize = arg("--queries").and_then(|s| s.parse().ok()).unwrap_or(200);
    let vectors = !std::env::args().any(|a| a == "--no-vectors");
    let me = Scope::user("bench", "alice");
    let mut e = Engram::new(Config::default(), 1);
    e.set_tokenizer(tables::o200k());
    let mut chunks = 0usize;
    let t = Instant::now();
    for d in 0..docs {
        let input = DocumentInput { title: format!("Document {d}"), ..DocumentInput::new(format!("doc-{d}"), document(d)) };
        let prepared = e.prepare(&me, WriteBatch { documents: vec![input], ..WriteBatch::default() }, T0 + d as i64).expect("prepare");
        let vs: Vec<Option<Vec<f32>>> = prepared.texts().iter().map(|t| vectors.then(|| hashed_embedding(t, DIM))).collect();
        let done = e.commit(prepared, vs, T0 + d as i64).expect("commit");
        chunks += done.documents[0].len();
        e.take_pending();
    }
    let add = t.elapsed().as_secs_f64();
    println!("added {docs} documents, {chunks} chunks ({:.1} per document){}: {:.2} s ({:.2} ms per document)", chunks as f64 / docs as f64, if vectors { ", 384-d vectors" } else { "" }, add, add * 1e3 / docs as f64);
    for m in corpus::memories(1_000, 99) {
        e.remember(&me, MemoryInput::fact(m.clone()).with_embedding(hashed_embedding(&m, DIM)), T0 + docs as i64).expect("remember");
    }
    e.take_pending();
    let qs = corpus::memories(queries, 7);
    let now = T0 + docs as i64 + 10;
    let q = |text: &str| {
        let mut q = RecallQuery::text(text).with_k(8);
        q.force = true;
        if vectors {
            q.embedding = Some(hashed_embedding(text, DIM));
        }
        q
    };
    let (mut search, mut ctx, mut recall) = (Vec::new(), Vec::new(), Vec::new());
    let mut found = 0usize;
    for text in &qs {
        let t = Instant::now();
        let hits = e.search_documents(&me, &q(text), now).expect("search");
        search.push(t.elapsed().as_secs_f64() * 1e3);
        found += usize::from(!hits.is_empty());
        let mut req = ContextRequest::new(text.clone(), 900);
        req.embedding = q(text).embedding;
        let t = Instant::now();
        std::hint::black_box(e.build_context(&me, &req, now).expect("context"));
        ctx.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        std::hint::black_box(e.recall(&me, &q(text), now).expect("recall"));
        recall.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!("search_documents (k 8, {queries} queries, {found} with hits): p50 {:.2} ms, p95 {:.2} ms", pct(search.clone(), 0.5), pct(search, 0.95));
    println!("build_context (900 tokens, with documents): p50 {:.2} ms, p95 {:.2} ms", pct(ctx.clone(), 0.5), pct(ctx, 0.95));
    println!("recall of 1,000 memories beside the chunks: p50 {:.2} ms, p95 {:.2} ms", pct(recall.clone(), 0.5), pct(recall, 0.95));
    let t = Instant::now();
    let snap = e.snapshot().expect("snapshot");
    println!("snapshot: {:.1} MB in {:.0} ms", snap.len() as f64 / 1e6, t.elapsed().as_secs_f64() * 1e3);
    let mut opens = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        std::hint::black_box(Engram::from_snapshot(&snap).expect("open"));
        opens.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!("open from snapshot: median {:.0} ms", pct(opens, 0.5));
}
