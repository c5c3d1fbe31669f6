//! The recall channels that are not indexes of their own: exact fact keys (with aliases in
//! other words and languages) and the graph (records cited by edges of mentioned entities).

use rustc_hash::FxHashSet;

use crate::engram::partition::Partition;
use crate::lexical::terms::terms;
use crate::model::FactKey;

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
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().take(n).map(|(s, _)| s).collect()
}
