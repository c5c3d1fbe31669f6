//! Long-conversation recall through the core, natively, on LoCoMo's development split
//! (see `engram_testkit::locomo`): the tuning loop for issue 15. The figures users see are
//! measured through the SDK in wasm by `pkg/bench/locomo.mjs`, with the same protocol.
//!
//! `locomo-eval [--embedder table|accurate|none] [--same-moment]`; skips (exit 0) with a
//! message when the data is absent.

use std::collections::HashMap;
use std::time::Instant;

use engram_core::{Config, Engram, MemoryInput, RecallQuery, Scope};
use engram_testkit::locomo::{self, Measures, CUTS};
use engram_testkit::qa_eval::{load_default_table, load_minilm};

const DAY_MS: i64 = 86_400_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let path = locomo::default_path();
    if !path.exists() {
        println!("skipped: {} is absent (the LoCoMo development split; see its README)", path.display());
        return;
    }
    let samples = locomo::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let which = value("--embedder").unwrap_or_else(|| "table".into());
    let embed: Option<Box<dyn Fn(&str) -> Vec<f32>>> = match which.as_str() {
        "table" => {
            let e = load_default_table();
            Some(Box::new(move |t: &str| e.embed(t)))
        }
        "accurate" => {
            let e = load_minilm();
            Some(Box::new(move |t: &str| e.embed(t)))
        }
        "none" => None,
        other => panic!("--embedder table|accurate|none, not {other}"),
    };
    let same_moment = flag("--same-moment");
    let mut config = Config::default();
    if let Some(json) = value("--config") {
        config = serde_json::from_str(&json).unwrap_or_else(|e| panic!("--config: {e}"));
    }
    let mut m = Measures::default();
    let mut lat = Vec::new();
    let mut small_talk = 0;
    let mut merged = 0;
    for s in &samples {
        let mut mem = Engram::new(config.clone(), 1);
        let scope = Scope::user("locomo", &s.id);
        let mut turns_of: HashMap<String, Vec<String>> = HashMap::new();
        let last = s.turns.iter().map(|t| t.at).max().unwrap_or(0);
        for t in &s.turns {
            let text = format!("{}: {}", t.speaker, t.text);
            let mut input = MemoryInput::fact(&text);
            if let Some(e) = &embed {
                let v = e(&text);
                if v.iter().any(|x| *x != 0.0) {
                    input = input.with_embedding(v);
                }
            }
            let at = if same_moment { last } else { t.at };
            let out = mem.remember(&scope, input, at).unwrap_or_else(|e| panic!("remember {}: {e}", t.dia_id));
            let ids = turns_of.entry(out.id).or_default();
            if !ids.is_empty() {
                merged += 1;
            }
            ids.push(t.dia_id.clone());
        }
        let now = last + DAY_MS;
        for q in &s.questions {
            let mut rq = RecallQuery::text(&q.question).with_k(20);
            if let Some(e) = &embed {
                rq = rq.with_embedding(e(&q.question));
            }
            let t = Instant::now();
            let r = mem.recall(&scope, &rq, now).unwrap_or_else(|e| panic!("recall: {e}"));
            lat.push(t.elapsed().as_secs_f64() * 1e3);
            if r.hits.is_empty() {
                small_talk += 1;
            }
            let ranked: Vec<Vec<String>> = r.hits.iter().map(|h| turns_of.get(&h.record.id).cloned().unwrap_or_default()).collect();
            m.add(&q.evidence, &ranked);
        }
    }
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "embedder {which}{}: {} conversations, {} questions ({} without hits), {} turns merged as duplicates",
        if same_moment { ", one moment" } else { ", real timeline" },
        samples.len(),
        m.questions,
        small_talk,
        merged
    );
    let row = |name: &str, v: &[f64; 4]| {
        let cells: Vec<String> = CUTS.iter().zip(v).map(|(k, x)| format!("@{k} {:.3}", m.mean(*x))).collect();
        println!("  {name:<11} {}", cells.join("  "));
    };
    row("recall", &m.recall);
    row("hit", &m.hit);
    row("recall_all", &m.all);
    println!("  MRR@20 {:.3}   recall p50 {:.3} ms  p95 {:.3} ms (native)", m.mean(m.mrr), pct(0.5), pct(0.95));
}
