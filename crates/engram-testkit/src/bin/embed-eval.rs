//! The default embedder on the chatterbot question → answer task: each channel alone and
//! fused at several weights and several `rrf_k`, through the core's recall; and native
//! throughput.
//! The full MiniLM's figures come from `scripts/distill/distill.py` (it needs torch).
//! With `--accurate`, the same for the accurate embedder (the full model run by the core
//! from `$ENGRAM_MINILM_DIR`) instead of the table.

use std::time::Instant;

use engram_testkit::qa_eval::{embed_task, evaluate, evaluate_at_k, load_default_table, load_minilm, load_task, questions_in, Channels};

fn main() {
    let task = load_task();
    let t = Instant::now();
    let embed: Box<dyn Fn(&str) -> Vec<f32>> = if std::env::args().any(|a| a == "--accurate") {
        let emb = load_minilm();
        println!("model: {} ({} d) loaded in {:.1} ms", emb.id(), emb.dim(), t.elapsed().as_secs_f64() * 1e3);
        Box::new(move |t| emb.embed(t))
    } else {
        let emb = load_default_table();
        println!("table: {} ({} d) loaded in {:.1} ms", emb.id(), emb.dim(), t.elapsed().as_secs_f64() * 1e3);
        Box::new(move |t| emb.embed(t))
    };
    let t = Instant::now();
    let (a, q) = embed_task(&task, embed);
    let n = a.len() + q.len();
    let secs = t.elapsed().as_secs_f64();
    println!("embedded {n} sentences in {:.1} ms: {:.0} sentences/s natively", secs * 1e3, n as f64 / secs);
    println!("task: {} questions, {} answers", task.questions.len(), task.answers.len());
    let (english, english_q) = questions_in(&task, &q, false);
    let show = |name: &str, c: Channels| {
        let s = evaluate(&task, &a, &q, c);
        let e = evaluate(&english, &a, &english_q, c);
        println!("{name:<34} recall@1/@10 all {:.3}/{:.3}  English {:.3}/{:.3}", s.at1, s.at10, e.at1, e.at10);
    };
    show("vector only", Channels::Vector);
    show("BM25 only", Channels::Lexical);
    // Rank fusion is scale-free: only the ratio vector : lexical matters.
    for (v, l) in [(0.25, 1.0), (0.5, 1.0), (0.75, 1.0), (1.0, 1.2), (1.0, 1.0), (1.2, 1.0), (1.5, 1.0), (2.0, 1.0), (3.0, 1.0), (4.0, 1.0), (6.0, 1.0), (8.0, 1.0), (12.0, 1.0), (24.0, 1.0), (48.0, 1.0)] {
        show(&format!("hybrid vector : lexical {v} : {l}"), Channels::Hybrid(v, l));
    }
    let w = engram_core::ChannelWeights::default();
    // Fused scores are multiplied by importance × decay; the smaller k, the more steeply they
    // fall with rank and the less that weight overturns relevance (the default is 1).
    for k in [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 60.0] {
        let s = evaluate_at_k(&task, &a, &q, Channels::Hybrid(w.vector, w.lexical), k);
        let e = evaluate_at_k(&english, &a, &english_q, Channels::Hybrid(w.vector, w.lexical), k);
        println!("{:<34} recall@1/@10 all {:.3}/{:.3}  English {:.3}/{:.3}", format!("hybrid default weights, rrf k {k}"), s.at1, s.at10, e.at1, e.at10);
    }
    for (lang, chinese) in [("English", false), ("Chinese", true)] {
        let (sub, sq) = questions_in(&task, &q, chinese);
        println!("-- {lang} questions only ({}):", sub.questions.len());
        for (name, c) in [("vector only", Channels::Vector), ("BM25 only", Channels::Lexical), ("hybrid (default weights)", Channels::Hybrid(w.vector, w.lexical))] {
            let s = evaluate(&sub, &a, &sq, c);
            println!("   {name:<28} recall@1 {:.3}  recall@10 {:.3}", s.at1, s.at10);
        }
    }
}
