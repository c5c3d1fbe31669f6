//! The long-conversation recall harness (issue 15): LoCoMo's development split, read from
//! `../shared/eval/locomo-dev/locomo-dev.json` when it exists (CC BY-NC 4.0: never copied
//! into the repository). Every turn is remembered as one memory, `"<speaker>: <text>"`, at
//! its session's date; questions of categories 1–4 are asked one day after the last
//! session; a recalled memory maps back to the turn it came from.

use std::path::{Path, PathBuf};

use engram_core::calendar::{day_start, MONTH_NAMES};
use serde::Deserialize;
use serde_json::Value;

mod evaluate;
mod measures;
mod peer;

pub use evaluate::{evaluate, evaluate_sessions};
pub use measures::{Embed, Measures, Run, CUTS};
pub use peer::bm25_peer;

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
    let month = MONTH_NAMES.iter().position(|n| n.starts_with(&month.to_ascii_lowercase()))? as u32 + 1;
    let midnight = day_start(year.parse().ok()?, month, day.parse().ok()?);
    Some(midnight + (h * 60 + m) * 60_000)
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

