//! The recall channels that are not indexes of their own: exact fact keys (with aliases in
//! other words and languages), the graph (records cited by edges of mentioned entities) and
//! the date channel (what was written within the period a query names).

use rustc_hash::FxHashSet;

use crate::read::dated::Period;
use crate::store::partition::Partition;
use crate::read::ranks::{tied_ranks, LEXICAL_TIE};
use crate::index::lexical::terms::terms;
use crate::model::FactKey;
use crate::index::vector::top_k_by_score;

/// Records cited by edges touching entities the query names (by their name, case-folded),
/// nearest first: edges of a mentioned entity, then edges one hop further.
pub(crate) fn graph_channel(p: &Partition, query: &str, n: usize, accept: impl Fn(u32) -> bool) -> Vec<u32> {
    if p.graph().is_empty() {
        return Vec::new();
    }
    let q = query.to_lowercase();
    let mentioned: Vec<&str> =
        p.graph().entities().filter(|e| e.name.chars().count() >= 2 && q.contains(&e.name.to_lowercase())).map(|e| e.id.as_str()).collect();
    let mut out: Vec<u32> = Vec::new();
    let push = |record: &Option<String>, out: &mut Vec<u32>| {
        if let Some(slot) = record.as_deref().and_then(|r| p.slot_of(r)) {
            if accept(slot) && !out.contains(&slot) {
                out.push(slot);
            }
        }
    };
    for id in &mentioned {
        for (_, e) in p.graph().out(id, None).chain(p.graph().incoming(id, None)) {
            push(&e.record, &mut out);
        }
    }
    for id in &mentioned {
        for nb in p.graph().neighbours(id) {
            for (_, e) in p.graph().out(&nb, None).chain(p.graph().incoming(&nb, None)) {
                push(&e.record, &mut out);
            }
        }
    }
    out.truncate(n);
    out
}

/// The `n` `accept`ed memories written within `period`, ranked: first the period's word
/// matches (`words_within`: the lexical channel restricted to an acceptance), equal scores
/// sharing a rank, then — so "what did we talk about yesterday?", which shares no word with
/// yesterday's lines, still finds them — the period's other memories, nearest its middle
/// first (its edges are slack: "yesterday" must not start with this morning's lines).
pub(crate) fn date_channel(
    p: &Partition,
    period: Period,
    n: usize,
    accept: &dyn Fn(u32) -> bool,
    words_within: impl FnOnce(&dyn Fn(u32) -> bool) -> Vec<(u32, f32)>,
) -> Vec<(u32, u32)> {
    let said_then = |slot: u32| accept(slot) && p.at(slot).is_some_and(|r| period.holds(r.created_at));
    let matched = words_within(&said_then);
    let mut ranked: Vec<(u32, u32)> = matched.iter().map(|d| d.0).zip(tied_ranks(&matched, |top| top * (1.0 - LEXICAL_TIE))).collect();
    if ranked.len() < n {
        let seen: FxHashSet<u32> = ranked.iter().map(|r| r.0).collect();
        let after = ranked.len();
        let rest = p.written_within(period).filter(|&s| accept(s) && !seen.contains(&s)).take(n - after);
        ranked.extend(rest.zip(after as u32 + 1..));
    }
    ranked
}

/// Words that name a key attribute in queries in other words or languages. The Chinese
/// entries are two-character words, which are exactly BM25's CJK bigram terms.
fn aliases(attribute_word: &str) -> &'static [&'static str] {
    match attribute_word {
        "name" => &["名字", "姓名", "called"],
        "occupation" => &["职业", "工作", "job", "profession", "work"],
        "employer" => &["公司", "单位", "company", "work", "employer"],
        "location" => &["住在", "哪里", "城市", "live", "city", "where"],
        "language" => &["语言"],
        "preferred" => &["偏好", "喜欢", "prefer", "like", "favorite", "favourite"],
        "programming" => &["编程"],
        "database" => &["数据", "据库"],
        "editor" => &["编辑", "辑器"],
        "drink" => &["喝什", "饮料"],
        "skill" => &["擅长", "技能", "skills"],
        _ => &[],
    }
}

/// Current keyed records whose key the query names: explicit keys first, then keys with
/// attribute words among the query's terms (more matched words first). "Which language…"
/// finds the fact keyed `preferred_language` even when its text never says "language".
pub(crate) fn key_channel(p: &Partition, query: &str, explicit: &[FactKey], n: usize, accept: impl Fn(u32) -> bool) -> Vec<u32> {
    let qt: FxHashSet<String> = terms(query).into_iter().collect();
    let mut ranked: Vec<(u32, usize)> = Vec::new();
    for (key, slots) in p.keys() {
        let strength = if explicit.contains(key) {
            usize::MAX
        } else {
            let matched = key
                .attribute
                .split('_')
                .flat_map(terms)
                .filter(|w| qt.contains(w) || aliases(w).iter().any(|a| qt.contains(*a)))
                .count();
            if matched == 0 {
                continue;
            }
            matched
        };
        for &s in slots {
            if accept(s) {
                ranked.push((s, strength));
            }
        }
    }
    // Strongest first, then by slot: the vector index's top-k (one sort routine, not one
    // more; the strengths are small counts, exact as f32).
    let mut scored: Vec<(u32, f32)> = ranked.into_iter().map(|(s, m)| (s, m as f32)).collect();
    top_k_by_score(&mut scored, n);
    scored.into_iter().map(|(s, _)| s).collect()
}
