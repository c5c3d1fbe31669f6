//! Precision and recall of PII detection on the labelled corpus `data/pii_cases.tsv`.

use std::collections::BTreeSet;

use crate::score::Counts;
use engram_core::pii::{detect, scrub, PiiKind, PiiPolicy, Scrubbed};
use engram_core::Sensitivity;

/// The corpus, compiled in so tests and the script read the same bytes.
pub const CASES: &str = include_str!("../data/pii_cases.tsv");

/// Figures of one evaluation run.
#[derive(Debug, Default)]
pub struct PiiReport {
    pub cases: usize,
    pub positives: usize,
    pub counts: Counts,
    /// Cases whose expected value survived redaction.
    pub leaks: Vec<String>,
    pub errors: Vec<String>,
}


fn kind_of(name: &str) -> Option<PiiKind> {
    Some(match name {
        "email" => PiiKind::Email,
        "phone" => PiiKind::Phone,
        "card" => PiiKind::Card,
        "china-id" => PiiKind::ChinaId,
        "iban" => PiiKind::Iban,
        "ip" => PiiKind::Ip,
        "api-key" => PiiKind::ApiKey,
        "secret" => PiiKind::Secret,
        _ => return None,
    })
}

/// Run the detector over every case.
pub fn evaluate() -> PiiReport {
    let mut r = PiiReport::default();
    for line in CASES.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut cols = line.splitn(3, '\t');
        let (Some(kinds), Some(values), Some(text)) = (cols.next(), cols.next(), cols.next()) else { continue };
        r.cases += 1;
        let expected: BTreeSet<PiiKind> = kinds.split(',').filter_map(kind_of).collect();
        if !expected.is_empty() {
            r.positives += 1;
        }
        let found: BTreeSet<PiiKind> = detect(text).into_iter().map(|m| m.kind).collect();
        let fp = found.difference(&expected).count();
        let fneg = expected.difference(&found).count();
        r.counts.add(expected.intersection(&found).count(), fp, fneg);
        if fp + fneg > 0 {
            r.errors.push(format!("expected {expected:?}, found {found:?}: {text}"));
        }
        if let Scrubbed::Store { text: stored, .. } = scrub(text, Sensitivity::Personal, &PiiPolicy::default(), None) {
            for v in values.split('|').filter(|v| !v.is_empty() && *v != "-") {
                if stored.contains(v) {
                    r.leaks.push(format!("{v:?} survived in {stored:?}"));
                }
            }
        }
    }
    r
}
