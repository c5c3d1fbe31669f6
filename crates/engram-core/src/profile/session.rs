//! Session metadata (seed 000's `sessions.metadata`): what one conversation holds — its
//! turns and their tokens, the entities it names, and how important it was: the most
//! important fact the user stated in it (the extractor's tiers; 0 when they stated none).

use serde::{Deserialize, Serialize};

use super::Topic;
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::index::vector::top_k_by_score;
use crate::extract::{extract, USER_ENTITY};
use crate::knowledge::graph::norm;
use crate::model::{Kind, Scope, Source};

/// How many entities a session's metadata names.
const ENTITIES: usize = 8;

/// What one session holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionMetadata {
    pub turns: u32,
    pub user_turns: u32,
    /// Tokens of its turns' texts, counted with the engine's tokenizer.
    pub tokens: u64,
    /// True when `tokens` is exact (a rank table is loaded).
    pub exact: bool,
    /// Facts the user stated in it (what `observe` reads from its turns).
    pub facts: u32,
    /// The importance of the most important of those facts; 0 when there is none.
    pub importance: f32,
    /// The entities of the user's graph its turns name, and what its facts link to, by
    /// how many of its turns name each.
    pub entities: Vec<Topic>,
    pub started_at: Option<Millis>,
    pub last_activity: Option<Millis>,
}

/// True when `needle` (lower-case) is in `hay` (lower-case) with no letter or digit on
/// either side; Chinese anywhere.
fn names(hay: &str, needle: &str) -> bool {
    if needle.chars().any(crate::index::lexical::terms::is_cjk) {
        return hay.contains(needle);
    }
    let mut from = 0;
    while let Some(at) = hay[from..].find(needle) {
        let (i, end) = (from + at, from + at + needle.len());
        let before = hay[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        if before && hay[end..].chars().next().is_none_or(|c| !c.is_alphanumeric()) {
            return true;
        }
        from = i + hay[i..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

impl Engram {
    /// The metadata of the scope's session (the scope must name one).
    pub fn session_metadata(&self, scope: &Scope) -> Result<SessionMetadata> {
        let session = scope.require_session()?;
        let mut m = SessionMetadata { exact: self.tokenizer.is_exact(), ..SessionMetadata::default() };
        let Some(p) = self.partition(&Scope { session: None, ..scope.clone() })? else { return Ok(m) };
        let turns: Vec<&crate::model::Record> = p.iter().map(|(_, r)| r).filter(|r| r.kind == Kind::Message && r.scope.session.as_deref() == Some(session)).collect();
        let mut named: Vec<String> = Vec::new();
        for r in &turns {
            m.turns += 1;
            m.tokens += self.tokenizer.count(&r.text).tokens as u64;
            m.started_at = Some(m.started_at.map_or(r.created_at, |t| t.min(r.created_at)));
            m.last_activity = Some(m.last_activity.map_or(r.created_at, |t| t.max(r.created_at)));
            if r.source == Source::User {
                m.user_turns += 1;
                for e in extract(&r.text) {
                    m.facts += 1;
                    m.importance = m.importance.max(e.importance);
                    if let Some(l) = e.link {
                        named.push(l.object.name);
                    }
                }
            }
        }
        // The user's graph's entities (but the user), and what the session's facts link to.
        let g = p.graph();
        named.extend(g.entities().filter(|e| e.id != norm(USER_ENTITY)).map(|e| e.name.clone()));
        // One of each name (by its lower case, the first spelling kept), in name order.
        let mut seen: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        named.retain(|n| seen.insert(n.to_lowercase()));
        let texts: Vec<String> = turns.iter().map(|r| r.text.to_lowercase()).collect();
        let counted: Vec<(String, u32)> = named
            .into_iter()
            .map(|n| {
                let lower = n.to_lowercase();
                let c = texts.iter().filter(|t| names(t, &lower)).count() as u32;
                (n, c)
            })
            .filter(|(n, c)| *c > 0 && n.chars().count() >= 2)
            .collect();
        let mut ranked: Vec<(u32, f32)> = counted.iter().enumerate().map(|(i, (_, c))| (i as u32, *c as f32)).collect();
        top_k_by_score(&mut ranked, ENTITIES);
        m.entities = ranked.into_iter().map(|(i, _)| Topic { name: counted[i as usize].0.clone(), mentions: counted[i as usize].1 }).collect();
        Ok(m)
    }
}
