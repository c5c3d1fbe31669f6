//! Everyday self-facts (issue 35): per-category precision and recall of the rule extractor
//! on a labelled corpus `data/self_facts_<lang>.tsv` (columns: category, keep 1|0, sentence,
//! expected fact text). A kept row is found when some extracted fact carries the tag
//! `category:<its category>`; a row not to keep is a false positive when anything is extracted.

use std::collections::BTreeMap;
use std::path::PathBuf;

use engram_core::extract::{extract, PEOPLE_TAG as PEOPLE};

/// One labelled sentence.
#[derive(Debug, Clone)]
pub struct Row {
    pub category: String,
    pub keep: bool,
    pub sentence: String,
    pub expected: String,
}

/// Counts for one category.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// keep=1 rows whose category was extracted.
    pub found: usize,
    /// keep=1 rows.
    pub kept_rows: usize,
    /// found rows whose text equals the expected text.
    pub exact: usize,
    /// Facts tagged with this category from rows that are not that category or not to keep.
    pub wrong: usize,
    /// keep=0 rows of this (negative) category that produced a fact.
    pub false_pos: usize,
    /// keep=0 rows of this category.
    pub reject_rows: usize,
    /// keep=1 rows that produced some fact of the user's, of whatever category (what the
    /// memory panel shows; the category is how it is grouped).
    pub kept_any: usize,
    /// keep=0 rows that produced only facts about someone else (`category:people`,
    /// "User's friend is allergic to peanuts"): kept about them, not as the user's.
    pub about_others: usize,
}

impl Counts {
    pub fn recall(&self) -> f64 {
        if self.kept_rows == 0 { 1.0 } else { self.found as f64 / self.kept_rows as f64 }
    }
    /// Precision of the category tag: found / (found + facts wrongly tagged with it).
    pub fn precision(&self) -> f64 {
        if self.found + self.wrong == 0 { 1.0 } else { self.found as f64 / (self.found + self.wrong) as f64 }
    }
}

/// The result over a corpus.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub lang: String,
    pub by_category: BTreeMap<String, Counts>,
    pub total: Counts,
    /// Rows to keep: true positives; rows not to keep: any output. Precision = TP / (TP + FP rows).
    pub errors: Vec<String>,
}

impl Report {
    pub fn recall(&self) -> f64 {
        self.total.recall()
    }
    /// Overall precision: found keep rows over found keep rows plus rejected rows that produced a fact.
    pub fn precision(&self) -> f64 {
        let d = self.total.found + self.total.false_pos;
        if d == 0 { 1.0 } else { self.total.found as f64 / d as f64 }
    }
    pub fn exact_rate(&self) -> f64 {
        if self.total.found == 0 { 0.0 } else { self.total.exact as f64 / self.total.found as f64 }
    }
}

/// The corpus file for a language (`zh`, `en`).
pub fn corpus_path(lang: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data").join(format!("self_facts_{lang}.tsv"))
}

/// Parse a corpus: `#` lines are comments.
pub fn parse(text: &str) -> Vec<Row> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split('\t');
            let category = f.next()?.trim().to_owned();
            let keep = f.next()?.trim() == "1";
            let sentence = f.next()?.trim().to_owned();
            let expected = f.next().unwrap_or("").trim().to_owned();
            Some(Row { category, keep, sentence, expected })
        })
        .collect()
}

/// Evaluate a language's corpus; `None` when its file does not exist.
pub fn evaluate(lang: &str) -> Option<Report> {
    let text = std::fs::read_to_string(corpus_path(lang)).ok()?;
    Some(evaluate_rows(lang, &parse(&text)))
}

pub fn evaluate_rows(lang: &str, rows: &[Row]) -> Report {
    let mut r = Report { lang: lang.to_owned(), ..Report::default() };
    for row in rows {
        let facts = extract(&row.sentence);
        let tag = format!("category:{}", row.category);
        let got: Vec<String> = facts.iter().map(|f| f.text.clone()).collect();
        if row.keep {
            let c = r.by_category.entry(row.category.clone()).or_default();
            c.kept_rows += 1;
            r.total.kept_rows += 1;
            if facts.iter().any(|f| !f.tags.iter().any(|t| t == PEOPLE)) {
                c.kept_any += 1;
                r.total.kept_any += 1;
            }
            match facts.iter().find(|f| f.tags.contains(&tag)) {
                Some(f) => {
                    c.found += 1;
                    r.total.found += 1;
                    if f.text == row.expected {
                        c.exact += 1;
                        r.total.exact += 1;
                    } else {
                        r.errors.push(format!("text   {}: {} → {:?} (want {})", row.category, row.sentence, got, row.expected));
                    }
                }
                None => r.errors.push(format!("missed {}: {} → {:?}", row.category, row.sentence, got)),
            }
        } else {
            let c = r.by_category.entry(format!("not:{}", row.category)).or_default();
            c.reject_rows += 1;
            r.total.reject_rows += 1;
            if facts.iter().all(|f| f.tags.iter().any(|t| t == PEOPLE)) && !facts.is_empty() {
                c.about_others += 1;
                r.total.about_others += 1;
            } else if !facts.is_empty() {
                c.false_pos += 1;
                r.total.false_pos += 1;
                r.errors.push(format!("kept   {}: {} → {:?}", row.category, row.sentence, got));
            }
        }
        // Facts tagged with a category the row is not (or from a row not to keep) count against that category's precision.
        for f in &facts {
            for t in f.tags.iter().filter_map(|t| t.strip_prefix("category:")) {
                if !(row.keep && t == row.category) && t != "people" {
                    r.by_category.entry(t.to_owned()).or_default().wrong += 1;
                }
            }
        }
    }
    r
}

/// The table, one line per category, then the totals.
pub fn table(r: &Report) -> String {
    let mut s = format!("self-facts ({}): category, kept rows, precision, recall, exact text\n", r.lang);
    for (c, n) in r.by_category.iter().filter(|(c, _)| !c.starts_with("not:")) {
        s += &format!("  {c:<11} {:>4}  P {:.3}  R {:.3}  exact {}/{}\n", n.kept_rows, n.precision(), n.recall(), n.exact, n.found);
    }
    for (c, n) in r.by_category.iter().filter(|(c, _)| c.starts_with("not:")) {
        s += &format!("  {c:<15} {:>4} rows, {} kept as the user's fact, {} kept about someone else\n", n.reject_rows, n.false_pos, n.about_others);
    }
    s += &format!(
        "  total: {} to keep, {} not to keep; recall {:.3}, precision {:.3} (FP rows {}), exact text {:.3}; kept in any category {:.3}\n",
        r.total.kept_rows, r.total.reject_rows, r.recall(), r.precision(), r.total.false_pos, r.exact_rate(), r.total.kept_any as f64 / r.total.kept_rows.max(1) as f64
    );
    s
}
