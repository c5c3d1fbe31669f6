//! The long-conversation recall harness (issue 15): LoCoMo's development split, read from
//! `../shared/eval/locomo-dev/locomo-dev.json` when it exists (CC BY-NC 4.0: never copied
//! into the repository). Every turn is remembered as one memory, `"<speaker>: <text>"`, at
//! its session's date; questions of categories 1–4 are asked one day after the last
//! session; a recalled memory maps back to the turn it came from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use engram_core::engram::consolidate::{Consolidation, CITES_PREFIX};
use engram_core::model::Kind;
use engram_core::{Config, Engram, MemoryInput, RecallQuery, Scope, Turn};
use serde::Deserialize;
use serde_json::Value;

const DAY_MS: i64 = 86_400_000;

/// One turn of a conversation.
#[derive(Debug, Clone)]
pub struct LocomoTurn {
    pub dia_id: String,
    pub speaker: String,
    pub text: String,
    /// The session's date, in Unix milliseconds.
    pub at: i64,
    /// 1-based session number.
    pub session: usize,
}

/// One question and the turns that answer it.
#[derive(Debug, Clone)]
pub struct LocomoQuestion {
    pub question: String,
    pub category: u32,
    pub evidence: Vec<String>,
}

/// One conversation of the benchmark.
#[derive(Debug, Clone)]
pub struct LocomoSample {
    pub id: String,
    pub turns: Vec<LocomoTurn>,
    pub questions: Vec<LocomoQuestion>,
}

/// Where the development split lives, beside the repository.
pub fn default_path() -> PathBuf {
    std::env::var_os("ENGRAM_LOCOMO").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval/locomo-dev/locomo-dev.json"))
}

#[derive(Deserialize)]
struct RawSample {
    sample_id: Value,
    conversation: serde_json::Map<String, Value>,
    qa: Vec<RawQa>,
}

#[derive(Deserialize)]
struct RawQa {
    question: String,
    #[serde(default)]
    category: u32,
    #[serde(default)]
    evidence: Vec<Value>,
}

/// Read the split, keeping questions of categories 1–4 with evidence (the protocol).
pub fn load(path: &Path) -> Result<Vec<LocomoSample>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let raw: Vec<RawSample> = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    raw.into_iter().map(sample).collect()
}

fn sample(raw: RawSample) -> Result<LocomoSample, String> {
    let id = match raw.sample_id {
        Value::String(s) => s,
        v => v.to_string(),
    };
    let c = &raw.conversation;
    let mut turns = Vec::new();
    for session in 1.. {
        let Some(Value::Array(list)) = c.get(&format!("session_{session}")) else { break };
        let date = c.get(&format!("session_{session}_date_time")).and_then(Value::as_str).ok_or(format!("{id}: session {session} has no date"))?;
        let at = parse_date(date).ok_or(format!("{id}: cannot read the date {date:?}"))?;
        for t in list {
            let field = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            turns.push(LocomoTurn { dia_id: field("dia_id"), speaker: field("speaker"), text: field("text"), at, session });
        }
    }
    let questions = raw
        .qa
        .into_iter()
        .filter(|q| (1..=4).contains(&q.category))
        .map(|q| LocomoQuestion {
            question: q.question,
            category: q.category,
            // Some evidence lists hold "D8:6; D9:17" in one string.
            evidence: q.evidence.iter().filter_map(Value::as_str).flat_map(|e| e.split(';')).map(|e| e.trim().to_owned()).filter(|e| !e.is_empty()).collect(),
        })
        .filter(|q| !q.evidence.is_empty())
        .collect();
    Ok(LocomoSample { id, turns, questions })
}

/// "1:56 pm on 8 May, 2023" → Unix milliseconds (UTC).
pub fn parse_date(s: &str) -> Option<i64> {
    let (time, date) = s.split_once(" on ")?;
    let (hm, ampm) = time.trim().split_once(' ')?;
    let (h, m) = hm.split_once(':')?;
    let (mut h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    match ampm.to_ascii_lowercase().as_str() {
        "pm" if h != 12 => h += 12,
        "am" if h == 12 => h = 0,
        _ => {}
    }
    let parts: Vec<&str> = date.split([' ', ',']).filter(|p| !p.is_empty()).collect();
    let [day, month, year] = parts.as_slice() else { return None };
    const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
    let month = MONTHS.iter().position(|n| n.starts_with(&month.to_ascii_lowercase()))? as i64 + 1;
    let days = days_from_civil(year.parse().ok()?, month, day.parse().ok()?);
    Some(((days * 24 + h) * 60 + m) * 60_000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Turn-level retrieval measures over questions, at the cut-offs of [`CUTS`].
#[derive(Debug, Clone, Default)]
pub struct Measures {
    pub questions: usize,
    /// Per cut-off: share of evidence found, at least one found, all found (sums).
    pub recall: [f64; 4],
    pub hit: [f64; 4],
    pub all: [f64; 4],
    pub mrr: f64,
}

/// The cut-offs reported: recall@1, @5, @10, @20.
pub const CUTS: [usize; 4] = [1, 5, 10, 20];

impl Measures {
    /// Add one question's answers: `ranked[c]` is what a recall with `k = CUTS[c]`
    /// returned (per hit, the turns it stands for). Each cut is measured on its own call,
    /// as a user asking for that many memories gets them; MRR on the longest.
    pub fn add(&mut self, evidence: &[String], ranked: &[Vec<Vec<String>>; 4]) {
        self.questions += 1;
        for (c, &k) in CUTS.iter().enumerate() {
            let found = evidence.iter().filter(|e| ranked[c].iter().take(k).any(|ids| ids.contains(e))).count();
            self.recall[c] += found as f64 / evidence.len() as f64;
            self.hit[c] += f64::from(u8::from(found > 0));
            self.all[c] += f64::from(u8::from(found == evidence.len()));
        }
        if let Some(r) = ranked[3].iter().take(20).position(|ids| ids.iter().any(|id| evidence.contains(id))) {
            self.mrr += 1.0 / (r as f64 + 1.0);
        }
    }

    /// Mean of a sum over questions.
    pub fn mean(&self, sum: f64) -> f64 {
        sum / self.questions.max(1) as f64
    }
}

/// An embedder for the harness: text → vector.
pub type Embed<'a> = &'a dyn Fn(&str) -> Vec<f32>;

/// What one run measured.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub measures: Measures,
    /// Milliseconds per `recall` with `k = 10`, sorted.
    pub latencies: Vec<f64>,
    /// Questions that got no hit (the router took them for small talk, or nothing matched).
    pub empty: usize,
    /// Turns the write path merged into an earlier memory as near-duplicates.
    pub merged: usize,
    /// The session protocol: episodes written, turns folded into a summary (kept in the
    /// episodic layer or removed), and episodes among the hits at 10.
    pub episodes: usize,
    pub folded: usize,
    pub episode_hits: usize,
    /// The same measures per question category (1 multi-hop, 2 temporal, 3 open-domain,
    /// 4 single-hop).
    pub by_category: std::collections::BTreeMap<u32, Measures>,
    /// The same measures per conversation (by sample id), to see whether a change holds
    /// on each one rather than on their sum.
    pub by_sample: Vec<(String, Measures)>,
    /// Evidence turns that share no index term (stemmed, stop words and the speakers'
    /// names dropped) with their question, and all evidence turns: what the question's
    /// own words cannot find.
    pub unmatched_evidence: (usize, usize),
    /// Evidence turns missed from the top 10, and those of them that share no index term
    /// with their question (as in `unmatched_evidence`).
    pub missed_evidence: (usize, usize),
    /// Ceilings of words alone, summed over questions like recall: the share of a
    /// question's evidence turns that share an index term with it, and the share that do
    /// or have a turn within two of them in their session that does (what the spread over
    /// neighbours can reach).
    pub word_ceiling: (f64, f64),
    /// Per question whose evidence is not all in the top 10: the question, the turns
    /// missed and the first three recalled (for tuning; `locomo-eval --misses`).
    pub misses: Vec<String>,
}

impl Run {
    /// The `p` quantile of recall latency, in milliseconds.
    pub fn latency(&self, p: f64) -> f64 {
        self.latencies.get(((self.latencies.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
    }
}

/// Remember every turn of every sample through the core as the protocol says, at its
/// session's date (or all at the last session's, with `same_moment`), and ask each
/// question one day after the last session, once per cut-off.
pub fn evaluate(samples: &[LocomoSample], config: &Config, embed: Option<Embed>, same_moment: bool) -> Run {
    let mut run = Run::default();
    for s in samples {
        let mut per_sample = Measures::default();
        let mut mem = Engram::new(config.clone(), 1);
        let scope = Scope::user("locomo", &s.id);
        let mut turns_of: HashMap<String, Vec<String>> = HashMap::new();
        let last = s.turns.iter().map(|t| t.at).max().unwrap_or(0);
        for t in &s.turns {
            let text = format!("{}: {}", t.speaker, t.text);
            let mut input = MemoryInput::fact(&text);
            if let Some(v) = embed.map(|e| e(&text)).filter(|v| v.iter().any(|x| *x != 0.0)) {
                input = input.with_embedding(v);
            }
            let out = mem.remember(&scope, input, if same_moment { last } else { t.at }).unwrap_or_else(|e| panic!("remember {}: {e}", t.dia_id));
            let ids = turns_of.entry(out.id).or_default();
            run.merged += usize::from(!ids.is_empty());
            ids.push(t.dia_id.clone());
        }
        for q in &s.questions {
            let embedding = embed.map(|e| e(&q.question));
            let ranked = CUTS.map(|k| {
                let mut rq = RecallQuery::text(&q.question).with_k(k);
                rq.embedding = embedding.clone();
                let t = Instant::now();
                let r = mem.recall(&scope, &rq, last + DAY_MS).unwrap_or_else(|e| panic!("recall: {e}"));
                if k == 10 {
                    run.latencies.push(t.elapsed().as_secs_f64() * 1e3);
                    run.empty += usize::from(r.hits.is_empty());
                }
                r.hits.iter().map(|h| turns_of.get(&h.record.id).cloned().unwrap_or_default()).collect::<Vec<_>>()
            });
            let missed: Vec<&String> = q.evidence.iter().filter(|e| !ranked[2].iter().any(|ids| ids.contains(e))).collect();
            if !missed.is_empty() {
                let said = |id: &str| s.turns.iter().find(|t| t.dia_id == id).map_or(String::new(), |t| format!("{}: {}", t.speaker, t.text));
                let mut lines = vec![format!("[{} c{}] {}", s.id, q.category, q.question)];
                lines.extend(missed.iter().map(|m| format!("  missed {m}  {}", said(m))));
                lines.extend(ranked[2].iter().take(3).map(|ids| format!("  got {}  {}", ids.join(","), ids.first().map_or(String::new(), |i| said(i)))));
                run.misses.push(lines.join("\n"));
            }
            // The speakers' names are left out on both sides: every line carries one.
            let said_terms = |id: &str| s.turns.iter().find(|t| t.dia_id == id).map_or(Vec::new(), |t| engram_core::lexical::terms::index_terms(&t.text));
            let names: Vec<String> = s.turns.iter().flat_map(|t| engram_core::lexical::terms::index_terms(&t.speaker)).collect();
            let asked: Vec<String> = engram_core::lexical::terms::index_terms(&q.question).into_iter().filter(|t| !names.contains(t)).collect();
            run.unmatched_evidence.1 += q.evidence.len();
            let unmatched = |e: &String| !said_terms(e).iter().any(|t| asked.contains(t));
            let near_match = |e: &String| {
                let Some(i) = s.turns.iter().position(|t| &t.dia_id == e) else { return false };
                let session = s.turns[i].session;
                (i.saturating_sub(2)..(i + 3).min(s.turns.len())).any(|j| s.turns[j].session == session && !unmatched(&s.turns[j].dia_id))
            };
            let share = |f: &dyn Fn(&String) -> bool| q.evidence.iter().filter(|e| f(e)).count() as f64 / q.evidence.len() as f64;
            run.word_ceiling.0 += share(&|e| !unmatched(e));
            run.word_ceiling.1 += share(&near_match);
            run.unmatched_evidence.0 += q.evidence.iter().filter(|e| unmatched(e)).count();
            run.missed_evidence.0 += missed.len();
            run.missed_evidence.1 += missed.iter().filter(|e| unmatched(e)).count();
            run.measures.add(&q.evidence, &ranked);
            per_sample.add(&q.evidence, &ranked);
            run.by_category.entry(q.category).or_default().add(&q.evidence, &ranked);
        }
        run.by_sample.push((s.id.clone(), per_sample));
    }
    run.latencies.sort_by(f64::total_cmp);
    run
}

/// The session protocol, for consolidation on vs off (issue 19): every turn is appended to
/// its LoCoMo session (`s<n>`) as a user turn `"<speaker>: <text>"` with its vector, at its
/// session's date, and each session is ended after its last turn — so with `consolidation`
/// its old turns fold (compression) and its episode is written. Questions are asked as in
/// [`evaluate`]. A recalled turn maps to itself; a recalled episode to the turns it cites
/// (`turn:<id>` tags) when `credit_episodes`, else to nothing.
pub fn evaluate_sessions(samples: &[LocomoSample], config: &Config, consolidation: &Consolidation, embed: Option<Embed>, credit_episodes: bool) -> Run {
    let mut run = Run::default();
    for s in samples {
        let mut mem = Engram::new(config.clone(), 1);
        mem.set_consolidation(consolidation.clone()).unwrap_or_else(|e| panic!("consolidation: {e}"));
        let user = Scope::user("locomo", &s.id);
        let mut dia_of: HashMap<String, String> = HashMap::new();
        let last = s.turns.iter().map(|t| t.at).max().unwrap_or(0);
        for (i, t) in s.turns.iter().enumerate() {
            let at = user.clone().with_session(&format!("s{}", t.session));
            let text = format!("{}: {}", t.speaker, t.text);
            let mut turn = Turn::user(&text);
            turn.embedding = embed.map(|e| e(&text)).filter(|v| v.iter().any(|x| *x != 0.0));
            let id = mem.append_turn(&at, turn, t.at).unwrap_or_else(|e| panic!("append {}: {e}", t.dia_id));
            dia_of.insert(id, t.dia_id.clone());
            if s.turns.get(i + 1).is_none_or(|n| n.session != t.session) {
                mem.end_session(&at, t.at).unwrap_or_else(|e| panic!("end session {}: {e}", t.session));
            }
        }
        let all = mem.list(&user, &engram_core::ListFilter { include_superseded: true, ..Default::default() }, last).unwrap_or_default();
        run.episodes += all.iter().filter(|r| r.kind == Kind::Episode).count();
        run.folded += dia_of.len() - all.iter().filter(|r| r.kind == Kind::Message && r.layer == engram_core::model::Layer::Working).count();
        let covers = |r: &engram_core::model::Record| -> Vec<String> {
            if let Some(d) = dia_of.get(&r.id) {
                return vec![d.clone()];
            }
            if !credit_episodes || r.kind != Kind::Episode {
                return Vec::new();
            }
            r.tags.iter().filter_map(|t| t.strip_prefix(CITES_PREFIX)).filter_map(|id| dia_of.get(id).cloned()).collect()
        };
        for q in &s.questions {
            let embedding = embed.map(|e| e(&q.question));
            let ranked = CUTS.map(|k| {
                let mut rq = RecallQuery::text(&q.question).with_k(k);
                rq.embedding = embedding.clone();
                let t = Instant::now();
                let r = mem.recall(&user, &rq, last + DAY_MS).unwrap_or_else(|e| panic!("recall: {e}"));
                if k == 10 {
                    run.latencies.push(t.elapsed().as_secs_f64() * 1e3);
                    run.empty += usize::from(r.hits.is_empty());
                    run.episode_hits += r.hits.iter().filter(|h| h.record.kind == Kind::Episode).count();
                }
                r.hits.iter().map(|h| covers(&h.record)).collect::<Vec<_>>()
            });
            run.measures.add(&q.evidence, &ranked);
            run.by_category.entry(q.category).or_default().add(&q.evidence, &ranked);
        }
    }
    run.latencies.sort_by(f64::total_cmp);
    run
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_dates_read_as_utc_milliseconds() {
        // 2023-05-08 13:56 UTC
        assert_eq!(parse_date("1:56 pm on 8 May, 2023"), Some(1_683_554_160_000));
        assert_eq!(parse_date("12:04 am on 1 January, 2024"), Some(1_704_067_440_000));
        assert_eq!(parse_date("yesterday"), None);
    }

    #[test]
    fn measures_count_evidence_within_each_cut() {
        let mut m = Measures::default();
        let ev = vec!["D1:2".to_owned(), "D1:3".to_owned()];
        let ranked: Vec<Vec<String>> = ["D1:9", "D1:2", "D1:4", "D1:5", "D1:6", "D1:7", "D1:8", "D1:1", "D1:10", "D1:3"].iter().map(|s| vec![(*s).to_owned()]).collect();
        m.add(&ev, &[ranked.clone(), ranked.clone(), ranked.clone(), ranked]);
        assert_eq!(m.recall, [0.0, 0.5, 1.0, 1.0]);
        assert_eq!(m.hit, [0.0, 1.0, 1.0, 1.0]);
        assert_eq!(m.all, [0.0, 0.0, 1.0, 1.0]);
        assert!((m.mrr - 0.5).abs() < 1e-12);
    }
}
