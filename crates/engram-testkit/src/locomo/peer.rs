//! The peers of the split's README, with no model: plain BM25 and BM25 over neighbours.

use std::collections::HashMap;

use super::{LocomoSample, Measures};

/// The peers of the split's README, measured in the same run: plain BM25 (k1 1.2, b 0.75,
/// a small stop list) and, with `neighbours`, the same with crude suffix stripping
/// (-ing/-ed/-es/-s) and each turn indexed with its ±2 neighbours of the session at
/// weight 0.3 (their term frequencies and length added at that weight) — no model.
pub fn bm25_peer(samples: &[LocomoSample], neighbours: bool) -> Measures {
    const STOP: &[&str] = &["a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "is", "are", "was", "were", "be", "it", "this", "that", "i", "you", "do", "did", "does", "what", "when", "how", "who", "which", "my", "your", "her", "his", "she", "he"];
    let strip = |w: &str| -> String {
        for suffix in ["ing", "ed", "es", "s"] {
            if neighbours && w.len() > suffix.len() + 2 && w.ends_with(suffix) {
                return w[..w.len() - suffix.len()].to_owned();
            }
        }
        w.to_owned()
    };
    let words = |t: &str| -> Vec<String> {
        t.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && !STOP.contains(w)).map(strip).collect()
    };
    let mut m = Measures::default();
    for s in samples {
        let own: Vec<Vec<String>> = s.turns.iter().map(|t| words(&format!("{}: {}", t.speaker, t.text))).collect();
        // Per turn: term → weighted frequency, and weighted length.
        let docs: Vec<(HashMap<&str, f64>, f64)> = (0..own.len())
            .map(|i| {
                let mut tf: HashMap<&str, f64> = HashMap::new();
                let mut len = 0.0;
                let near = [i.wrapping_sub(2), i.wrapping_sub(1), i, i + 1, i + 2];
                for j in near.into_iter().filter(|&j| j < own.len() && s.turns[j].session == s.turns[i].session) {
                    let w = if j == i { 1.0 } else if neighbours { 0.3 } else { 0.0 };
                    for t in &own[j] {
                        *tf.entry(t.as_str()).or_default() += w;
                    }
                    len += w * own[j].len() as f64;
                }
                tf.retain(|_, f| *f > 0.0);
                (tf, len)
            })
            .collect();
        let n = docs.len() as f64;
        let avg = docs.iter().map(|d| d.1).sum::<f64>() / n.max(1.0);
        let mut df: HashMap<&str, f64> = HashMap::new();
        for (tf, _) in &docs {
            for t in tf.keys() {
                *df.entry(t).or_default() += 1.0;
            }
        }
        for q in &s.questions {
            let mut qt = words(&q.question);
            qt.sort();
            qt.dedup();
            let mut order: Vec<(usize, f64)> = docs
                .iter()
                .enumerate()
                .map(|(i, (tf, len))| {
                    let score = qt
                        .iter()
                        .filter_map(|t| {
                            let f = *tf.get(t.as_str())?;
                            let d = df.get(t.as_str()).copied().unwrap_or(0.0);
                            Some((1.0 + (n - d + 0.5) / (d + 0.5)).ln() * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len / avg)))
                        })
                        .sum();
                    (i, score)
                })
                .collect();
            order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let ranked: Vec<Vec<String>> = order.iter().take(20).map(|(i, _)| vec![s.turns[*i].dia_id.clone()]).collect();
            m.add(&q.evidence, &[ranked.clone(), ranked.clone(), ranked.clone(), ranked]);
        }
    }
    m
}
