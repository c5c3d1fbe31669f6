//! Precision, recall and F1 of the rule-based extractor on `data/extraction_cases.tsv`.

use std::collections::BTreeSet;

use crate::score::Counts;
use engram_core::extract::{extract, Extracted};
use engram_core::Kind;

/// The corpus, compiled in.
pub const CASES: &str = include_str!("../data/extraction_cases.tsv");

/// Figures of one run.
#[derive(Debug, Default)]
pub struct ExtractionReport {
    pub cases: usize,
    pub counts: Counts,
    pub errors: Vec<String>,
}


/// The label of an extracted fact.
pub fn label(e: &Extracted) -> &'static str {
    let attr = e.key.as_ref().map_or("", |k| k.attribute.as_str());
    match e.kind {
        Kind::Event => "decision",
        Kind::Task => "task",
        _ if e.tags.iter().any(|t| t == "correction") => "correction",
        Kind::Preference if e.text.contains("dislikes") || e.text.contains("不喜欢") => "dislike",
        Kind::Preference => "preference",
        _ if attr == "name" => "name",
        _ if attr == "occupation" => "occupation",
        _ if attr == "employer" => "employer",
        _ if attr == "location" => "location",
        _ if attr.starts_with("skill") => "skill",
        _ if attr.starts_with("uses") => "uses",
        _ => "other",
    }
}

/// Run the extractor over every case.
pub fn evaluate() -> ExtractionReport {
    let mut r = ExtractionReport::default();
    for line in CASES.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let Some((labels, text)) = line.split_once('\t') else { continue };
        r.cases += 1;
        let expected: BTreeSet<&str> = labels.split(';').filter(|l| *l != "none").collect();
        let got_all = extract(text);
        let got: BTreeSet<&str> = got_all.iter().map(label).collect();
        let fp = got.difference(&expected).count();
        let fneg = expected.difference(&got).count();
        r.counts.add(expected.intersection(&got).count(), fp, fneg);
        if fp + fneg > 0 {
            r.errors.push(format!("expected {expected:?}, got {got:?} {:?}: {text}", got_all.iter().map(|e| &e.text).collect::<Vec<_>>()));
        }
    }
    r
}
