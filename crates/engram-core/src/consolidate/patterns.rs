//! Learned patterns (seed 002's third collection, its `batch_learn`): a signal repeated
//! across sessions — the user asks for Go in three sessions — becomes one `Pattern` memory
//! whose `times_seen` is the number of sessions that verified it (seed 002's
//! `times_verified`), citing the turns it came from.
//!
//! The batch buffer is not a store of its own: it is derived from replicated records — the
//! user turns still stored (any layer) and the evidence the pattern records already carry
//! (a `session:<hash>` tag per verifying session, a `turn:<id>` tag per cited turn) — so
//! two replicas holding the same records compute the same patterns. A pattern's id comes
//! from its signal's key, so both write the same record (last writer wins), and the
//! evidence only grows: a pattern keeps its count after the turns behind it are folded away.

use std::collections::{BTreeMap, BTreeSet};

use crate::consolidate::episode::CITES_PREFIX;
use crate::consolidate::signals::signals;
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::limits::{MAX_TAGS, MAX_TAG_LEN};
use crate::model::{Kind, Record, Scope, Source};
use crate::store::ops::{Op, OpBody};
use crate::text::content_hash;

/// The tag every pattern carries.
pub const PATTERN_TAG: &str = "pattern";
/// The prefix of the tag naming a pattern's signal key.
pub const SIGNAL_PREFIX: &str = "signal:";
/// The prefix of the tag naming a session that verified a pattern (a hash of its id).
pub const SESSION_PREFIX: &str = "session:";
/// Session tags a pattern keeps at most; past that its count still grows (it never drops).
const SESSION_TAGS: usize = 15;
/// What separates a pattern's words from its count in its text.
const SEEN: &str = " — seen in ";

/// The id of the pattern of signal `key` for the scope's user (and agent, when named).
pub fn pattern_id(scope: &Scope, key: &str) -> String {
    let agent = scope.agent.as_deref().unwrap_or_default();
    format!("pt{:016x}", content_hash(&format!("{agent}\u{1f}{key}")))
}

fn session_tag(session: &str) -> String {
    format!("{SESSION_PREFIX}{:016x}", content_hash(session))
}

/// What supports one signal: the sessions it was seen in and turns that said it.
#[derive(Default)]
struct Evidence {
    label: Option<String>,
    sessions: BTreeSet<String>,
    cites: BTreeSet<String>,
    since: Option<Millis>,
    existing: Option<Record>,
}

impl Engram {
    /// Learn patterns from the scope's user (and agent): every signal seen in at least
    /// [`super::Patterns::min_sessions`] sessions is written as a `Pattern` memory (an
    /// upsert, id [`pattern_id`]) — written again only when its count or citations change,
    /// never after it was deleted.
    /// Returns the ids written. [`Engram::end_session`] and the idle sweep call it.
    pub fn learn_patterns(&mut self, scope: &Scope, now: Millis) -> Result<Vec<String>> {
        let Some(settings) = self.consolidation.patterns.clone() else { return Ok(Vec::new()) };
        scope.validate()?;
        let at = Scope { session: None, ..scope.clone() };
        let Some(p) = self.partition(&at)? else { return Ok(Vec::new()) };
        let mut found: BTreeMap<String, Evidence> = BTreeMap::new();
        let mut turns: Vec<&Record> = p
            .iter()
            .map(|(_, r)| r)
            .filter(|r| r.kind == Kind::Message && r.source == Source::User && r.scope.agent == at.agent && r.scope.session.is_some())
            .collect();
        crate::sort::sort_by(&mut turns, |a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        for t in turns {
            let session = t.scope.session.as_deref().unwrap_or_default();
            for s in signals(&t.text) {
                // A key that cannot be a tag (too long, or holding a control character the
                // extractor's rules let through) is no signal: writing it would be refused,
                // and with it every session end after.
                if SIGNAL_PREFIX.len() + s.key.len() > MAX_TAG_LEN || s.key.chars().any(char::is_control) {
                    continue;
                }
                let ev = found.entry(s.key).or_default();
                ev.label.get_or_insert(s.label);
                ev.since.get_or_insert(t.created_at);
                // One cite per session: the first turn that said it there.
                if ev.sessions.insert(session_tag(session)) {
                    ev.cites.insert(t.id.clone());
                }
            }
        }
        for (_, r) in p.iter() {
            if r.kind != Kind::Pattern || r.scope.agent != at.agent || !r.tags.iter().any(|t| t == PATTERN_TAG) {
                continue;
            }
            let Some(key) = r.tags.iter().find_map(|t| t.strip_prefix(SIGNAL_PREFIX)) else { continue };
            let ev = found.entry(key.to_owned()).or_default();
            ev.sessions.extend(r.tags.iter().filter(|t| t.starts_with(SESSION_PREFIX)).cloned());
            ev.cites.extend(r.tags.iter().filter_map(|t| t.strip_prefix(CITES_PREFIX)).map(str::to_owned));
            ev.existing = Some(r.clone());
        }
        // A pattern the user deleted is not learned again.
        found.retain(|key, _| !p.is_deleted(&pattern_id(&at, key)));
        let mut out = Vec::new();
        for (key, ev) in found {
            let prior = ev.existing.as_ref().map_or(0, |r| r.times_seen as usize);
            let n = ev.sessions.len().max(prior);
            if n < settings.min_sessions {
                continue;
            }
            let label = ev.label.clone().or_else(|| ev.existing.as_ref().map(|r| r.text.split(SEEN).next().unwrap_or_default().to_owned())).unwrap_or_default();
            let text = format!("{label}{SEEN}{n} sessions");
            let mut tags = vec![PATTERN_TAG.to_owned(), format!("{SIGNAL_PREFIX}{key}")];
            tags.extend(ev.sessions.iter().take(SESSION_TAGS).cloned());
            for c in &ev.cites {
                let tag = format!("{CITES_PREFIX}{c}");
                if tags.len() < MAX_TAGS && tag.len() <= MAX_TAG_LEN {
                    tags.push(tag);
                }
            }
            let times = u32::try_from(n).unwrap_or(u32::MAX);
            if ev.existing.as_ref().is_some_and(|r| r.text == text && r.tags == tags && r.times_seen == times && r.is_current()) {
                continue;
            }
            let id = pattern_id(&at, &key);
            let stamp = self.next_stamp(now);
            let existing = ev.existing.as_ref();
            let record = Record {
                importance: 0.7,
                confidence: (0.5 + 0.1 * n as f32).min(0.95),
                source: Source::RuleExtracted,
                tags,
                created_at: existing.map_or(now, |e| e.created_at),
                times_seen: times,
                valid_from: existing.map(|e| e.valid_from).into_iter().chain(ev.since).min().unwrap_or(now),
                ..Record::fresh(id.clone(), at.clone(), Kind::Pattern, text, stamp, now)
            };
            self.write_op(Op { user: at.user_key(), stamp, body: OpBody::Upsert(Box::new(record)) })?;
            out.push(id);
        }
        Ok(out)
    }
}
