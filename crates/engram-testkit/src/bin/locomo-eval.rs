//! Long-conversation recall through the core, natively, on LoCoMo's development split
//! (see `engram_testkit::locomo`), beside the split's two BM25 peers measured in the same
//! run: the tuning loop for issue 15. `pkg/bench/locomo.mjs` measures the same through the
//! SDK in wasm.
//!
//! `locomo-eval [--embedder table|accurate|none] [--same-moment] [--config JSON] [--misses] [--consolidation]`
//! (`--misses` prints, on stderr, each question whose evidence is not all in the top 10;
//! `--consolidation` adds the session protocol — turns appended to their sessions, each
//! session ended — with consolidation off, and on: compression keeping folded turns and
//! episodes, an episode hit credited with nothing or with the turns it cites); skips (exit 0)
//! with a message when the data is absent.

use engram_core::consolidate::{Compression, Consolidation, Episodes, Folded};
use engram_core::Config;
use engram_testkit::locomo::{self, Measures, CUTS};
use engram_testkit::qa_eval::{load_default_table, load_minilm};

fn show(name: &str, m: &Measures) {
    let cells = |v: &[f64; 4]| CUTS.iter().zip(v).map(|(k, x)| format!("@{k} {:.3}", m.mean(*x))).collect::<Vec<_>>().join(" ");
    println!("  {name:<34} recall {}  hit@10 {:.3}  all@10 {:.3}  MRR {:.3}", cells(&m.recall), m.mean(m.hit[2]), m.mean(m.all[2]), m.mean(m.mrr));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
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
    let config: Config = value("--config").map_or_else(Config::default, |json| serde_json::from_str(&json).unwrap_or_else(|e| panic!("--config: {e}")));
    let questions: usize = samples.iter().map(|s| s.questions.len()).sum();
    println!("LoCoMo development split: {} conversations, {} questions (categories 1-4)", samples.len(), questions);
    show("peer: plain BM25", &locomo::bm25_peer(&samples, false));
    show("peer: BM25 + suffixes + neighbours", &locomo::bm25_peer(&samples, true));
    let moments: &[bool] = if args.iter().any(|a| a == "--same-moment") { &[true] } else { &[false, true] };
    for &same in moments {
        let run = locomo::evaluate(&samples, &config, embed.as_deref(), same);
        show(&format!("engram, {which}, {}", if same { "one moment" } else { "real timeline" }), &run.measures);
        if args.iter().any(|a| a == "--misses") {
            eprintln!("{}", run.misses.join("\n"));
        }
        for (c, m) in &run.by_category {
            let name = ["", "multi-hop", "temporal", "open-domain", "single-hop"].get(*c as usize).copied().unwrap_or("other");
            show(&format!("  category {c} {name} ({})", m.questions), m);
        }
        for (id, m) in &run.by_sample {
            show(&format!("  conversation {id} ({})", m.questions), m);
        }
        show(&format!("  naming no date ({})", run.undated.questions), &run.undated);
        let (unmatched, all) = run.unmatched_evidence;
        println!("  {:<34} {unmatched} of {all} evidence turns share no index term with their question", "");
        let (own, near) = run.word_ceiling;
        println!("  {:<34} ceiling of words: recall {:.3} with the question's own terms, {:.3} with them or a ±2 neighbour's", "", run.measures.mean(own), run.measures.mean(near));
        let (missed, missed_unmatched) = run.missed_evidence;
        println!("  {:<34} {missed} evidence turns missed from the top 10, {missed_unmatched} of them share no index term with their question", "");
        println!("  {:<34} recall p50 {:.3} ms, p95 {:.3} ms (native, k = 10); {} without hits, {} turns merged", "", run.latency(0.5), run.latency(0.95), run.empty, run.merged);
    }
    if args.iter().any(|a| a == "--consolidation") {
        let on = Consolidation { compression: Some(Compression { folded: Folded::Keep, ..Compression::default() }), episodes: Some(Episodes::default()), ..Consolidation::default() };
        let runs = [("consolidation off", Consolidation::default(), false), ("consolidation on", on.clone(), false), ("on, episode hits credited", on, true)];
        for (name, settings, credit) in runs {
            let run = locomo::evaluate_sessions(&samples, &config, &settings, embed.as_deref(), credit);
            show(&format!("engram, {which}, sessions, {name}"), &run.measures);
            println!(
                "  {:<34} recall p50 {:.3} ms, p95 {:.3} ms (native, k = 10); {} without hits; {} episodes, {} turns folded, {} episode hits in the top 10s",
                "",
                run.latency(0.5),
                run.latency(0.95),
                run.empty,
                run.episodes,
                run.folded,
                run.episode_hits
            );
        }
    }
}
