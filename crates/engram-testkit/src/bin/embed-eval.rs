//! The default embedder on the chatterbot question → answer task: each channel alone and
//! fused at several weights, through the core's recall; and native throughput.
//! The full MiniLM's figures come from `scripts/distill/distill.py` (it needs torch).

use std::time::Instant;

use engram_core::lexical::terms::is_cjk;
use engram_testkit::qa_eval::{embed_task, evaluate, load_default_table, load_task, Channels, QaTask};

fn main() {
    let t = Instant::now();
    let emb = load_default_table();
    println!("table: {} ({} d) loaded in {:.1} ms", emb.id(), emb.dim(), t.elapsed().as_secs_f64() * 1e3);
    let task = load_task();
    let t = Instant::now();
    let (a, q) = embed_task(&task, &emb);
    let n = a.len() + q.len();
    let secs = t.elapsed().as_secs_f64();
    println!("embedded {n} sentences in {:.1} ms: {:.0} sentences/s natively", secs * 1e3, n as f64 / secs);
    println!("task: {} questions, {} answers", task.questions.len(), task.answers.len());
    let show = |name: &str, c: Channels| {
        let s = evaluate(&task, &a, &q, c);
        println!("{name:<28} recall@1 {:.3}  recall@10 {:.3}", s.at1, s.at10);
    };
    show("vector (static table) only", Channels::Vector);
    show("BM25 only", Channels::Lexical);
    for (v, l) in [(0.5, 1.0), (0.8, 1.0), (1.0, 1.2), (1.0, 1.0), (1.2, 1.0), (1.5, 1.0), (2.0, 1.0)] {
        show(&format!("hybrid vector {v} / lexical {l}"), Channels::Hybrid(v, l));
    }
    for (lang, chinese) in [("English", false), ("Chinese", true)] {
        let keep: Vec<usize> = (0..task.questions.len()).filter(|&i| task.questions[i].0.chars().any(is_cjk) == chinese).collect();
        let sub = QaTask { answers: task.answers.clone(), questions: keep.iter().map(|&i| task.questions[i].clone()).collect() };
        let sq: Vec<Vec<f32>> = keep.iter().map(|&i| q[i].clone()).collect();
        println!("-- {lang} questions only ({}):", keep.len());
        for (name, c) in [("vector only", Channels::Vector), ("BM25 only", Channels::Lexical), ("hybrid (defaults 1.0 / 1.2)", Channels::Hybrid(1.0, 1.2))] {
            let s = evaluate(&sub, &a, &sq, c);
            println!("   {name:<28} recall@1 {:.3}  recall@10 {:.3}", s.at1, s.at10);
        }
    }
}
