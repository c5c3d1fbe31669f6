//! The persona-dev figures of the extractor alone, natively and fast (no write path, no
//! wasm): `cargo run -p engram-testkit --bin persona-probe -- persona-dev.json [--misses N]
//! [--wrong N] [--dump N] [--empty]` (`--dump`: what the first N conversations keep;
//! `--empty`: the user turns of those that keep nothing). The measure of
//! record is the reference evaluator through the SDK (`bench/persona.mjs`); this one is for
//! looking at what is kept and what is missed.
use std::collections::BTreeSet;

use engram_core::extract::extract;
use engram_core::Kind;

const STOP: &str = "a an the and or but of to in on at for with from by as is am are was were be been being i me my mine myself we our you your he she it its they them their this that these those have has had do does did so very really just also too not no can could would will shall should may might must like love enjoy about into out up down over than then there here what who whom which when where why how all any some more most much many one two lot lots get got go going im ive id dont cant";

fn stem(w: &str) -> String {
    let mut s = w.to_owned();
    for suf in ["ing", "ed", "es", "s"] {
        if let Some(t) = s.strip_suffix(suf) {
            s = t.to_owned();
            break;
        }
    }
    let b = s.as_bytes();
    if b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2] {
        s.pop();
    }
    s
}

fn words(s: &str, stop: &BTreeSet<&str>) -> BTreeSet<String> {
    s.to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !stop.contains(w))
        .map(stem)
        .filter(|w| w.len() > 1)
        .collect()
}

fn states(mem: &BTreeSet<String>, line: &BTreeSet<String>) -> bool {
    !line.is_empty() && line.iter().filter(|w| mem.contains(*w)).count() >= line.len().div_ceil(2).max(1)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |f: &str| args.iter().position(|a| a == f).and_then(|i| args.get(i + 1)).and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
    let (show_misses, show_wrong, dump) = (flag("--misses"), flag("--wrong"), flag("--dump"));
    let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&args[1]).expect("read")).expect("json");
    let stop: BTreeSet<&str> = STOP.split(' ').collect();
    let (mut lines, mut covered, mut kept, mut precise, mut empty) = (0, 0, 0, 0, 0);
    let (mut misses, mut wrong) = (Vec::new(), Vec::new());
    let mut by_cat: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    let convs = data["valid"].as_array().expect("valid");
    for (ci, conv) in convs.iter().enumerate() {
        let strs = |k: &str| conv[k].as_array().map(|a| a.iter().filter_map(|l| l.as_str().map(str::to_owned)).collect::<Vec<_>>()).unwrap_or_default();
        let (p1, p2) = (strs("persona1"), strs("persona2"));
        let all: Vec<(bool, String)> = conv["turns"].as_array().expect("turns").iter().filter_map(|t| Some((t["speaker"] == 1, t["text"].as_str()?.to_owned()))).collect();
        let user: Vec<String> = conv["turns"].as_array().expect("turns").iter().filter(|t| t["speaker"] == 1).filter_map(|t| t["text"].as_str().map(str::to_owned)).collect();
        let mut texts: Vec<String> = Vec::new();
        let mut cats: Vec<String> = Vec::new();
        for (_, u) in all.iter().filter(|(is_user, _)| *is_user) {
            // As the reference evaluator counts: turns, episodes, summaries and events are not kept facts.
            for e in extract(u).into_iter().filter(|e| !matches!(e.kind, Kind::Event | Kind::Episode | Kind::Summary | Kind::Message)) {
                if !texts.contains(&e.text) {
                    texts.push(e.text);
                    cats.push(e.tags.iter().find(|t| t.starts_with("category:")).cloned().unwrap_or_else(|| "keyed rule".into()));
                }
            }
        }
        if texts.is_empty() {
            empty += 1;
            if args.iter().any(|a| a == "--empty") {
                println!("EMPTY {user:?}");
            }
        }
        if ci < dump {
            println!("CONVERSATION persona {p1:?}");
            for t in &texts {
                println!("  KEPT {t}");
            }
        }
        let sets: Vec<_> = texts.iter().map(|t| words(t, &stop)).collect();
        let uw: Vec<_> = user.iter().map(|t| words(t, &stop)).collect();
        for line in &p1 {
            let l = words(line, &stop);
            if !uw.iter().any(|u| states(u, &l)) {
                continue;
            }
            lines += 1;
            if sets.iter().any(|m| states(m, &l)) {
                covered += 1;
            } else if misses.len() < show_misses {
                let said: Vec<&String> = user.iter().filter(|u| states(&words(u, &stop), &l)).take(2).collect();
                misses.push(format!("LINE {line}\n   said: {said:?}\n   kept: {texts:?}"));
            }
        }
        for ((t, m), c) in texts.iter().zip(&sets).zip(&cats) {
            kept += 1;
            let e = by_cat.entry(c.clone()).or_insert((0, 0));
            e.0 += 1;
            if p1.iter().any(|l| states(m, &words(l, &stop))) {
                precise += 1;
                e.1 += 1;
            } else if wrong.len() < show_wrong {
                let _ = &p2;
                wrong.push(format!("{c}: {t}"));
            }
        }
    }
    for m in &misses {
        println!("{m}");
    }
    for w in &wrong {
        println!("WRONG {w}");
    }
    for (c, (k, p)) in &by_cat {
        println!("{c:22} kept {k:5} precise {p:5} ({:.3})", *p as f64 / *k as f64);
    }
    let n = convs.len() as f64;
    println!(
        "{{\"conversations\":{},\"stated_lines\":{lines},\"coverage\":{:.3},\"precision\":{:.3},\"kept_per_conversation\":{:.2},\"nothing_kept\":{empty}}}",
        convs.len(),
        covered as f64 / lines as f64,
        precise as f64 / kept.max(1) as f64,
        kept as f64 / n
    );
}
