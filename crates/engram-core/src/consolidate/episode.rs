//! Episode summaries: when a session ends or idles past its TTL, an `Episode` memory
//! summarises it — its important turns and the facts the rule extractor finds in them
//! (and, for turns folded away, the lines of its rolling summary), the heaviest within a
//! token budget — tagged `turn:<id>` with the turns it cites. The record's id comes from
//! the session, so a session that goes on and ends again rewrites its one episode, and two
//! replicas that summarise the same session write the same record (last writer wins).

use std::collections::BTreeSet;

use crate::consolidate::lines::{choose, join, line_weight, turn_line, Line};
use crate::engram::Engram;
use crate::error::Result;
use crate::extract::extract;
use crate::hlc::Millis;
use crate::model::limits::{MAX_TAGS, MAX_TAG_LEN};
use crate::model::{Kind, Record, Scope, Source};
use crate::store::ops::{Op, OpBody};
use crate::text::content_hash;

/// The tag every episode carries; each turn it cites adds `turn:<id>`.
pub const EPISODE_TAG: &str = "episode";
/// The prefix of a cited turn's tag.
pub const CITES_PREFIX: &str = "turn:";
/// The prefix of the tag naming the newest turn an episode covers (`upto:<turn id>`): an
/// episode rewritten by an LLM after its session went on is newer than turns it does not
/// cover, so the tag, not its stamp, says whether the session needs a new episode.
pub const UPTO_PREFIX: &str = "upto:";

/// The id of the episode of `session` (of `agent`, when the scope names one).
pub fn episode_id(scope: &Scope) -> String {
    let session = scope.session.as_deref().unwrap_or_default();
    let agent = scope.agent.as_deref().unwrap_or_default();
    format!("ep{:016x}", content_hash(&format!("{agent}\u{1f}{session}")))
}

/// An episode as consolidation writes it (a session's, or a month's compacted ones):
/// rule-extracted, importance 0.6, confidence 0.8; callers set its times and sealed values.
pub(crate) fn episode_record(id: String, scope: Scope, text: String, tags: Vec<String>, stamp: crate::hlc::Stamp, now: Millis) -> Record {
    Record { importance: 0.6, confidence: 0.8, source: Source::RuleExtracted, tags, ..Record::fresh(id, scope, Kind::Episode, text, stamp, now) }
}

impl Engram {
    /// Write (or rewrite) the `Episode` memory of the scope's session: its lines — a user
    /// turn's extracted facts, or the turn itself, and the rolling summary's lines — of at
    /// least [`super::Episodes::min_importance`], the heaviest within
    /// [`super::Episodes::budget_tokens`], in the order they were said. Its id is
    /// [`episode_id`]; its tags are [`EPISODE_TAG`], [`UPTO_PREFIX`] with the session's
    /// newest turn, and `turn:<id>` per cited turn (up to the tag limit, heaviest first).
    /// `None` when episodes are off, the session has nothing worth a line, or its episode
    /// already covers its newest turn and summary.
    pub fn write_episode(&mut self, scope: &Scope, now: Millis) -> Result<Option<String>> {
        let Some(settings) = self.consolidation.episodes.clone() else { return Ok(None) };
        let session = scope.require_session()?.to_owned();
        scope.validate()?;
        let turns = self.recent_turns(scope, Some(usize::MAX))?;
        let summary = self.partition(scope)?.and_then(|p| p.session(&session)).and_then(|s| s.stamped_summary().map(|(t, st)| (t.to_owned(), st)));
        let id = episode_id(scope);
        let last = turns.iter().max_by_key(|t| t.stamp);
        let Some(newest) = last.map(|t| t.stamp).into_iter().chain(summary.as_ref().map(|s| s.1)).max() else { return Ok(None) };
        let existing = self.partition(scope)?.and_then(|p| p.get(&id)).cloned();
        if existing.as_ref().is_some_and(|e| covers(e, last.map(|t| t.id.as_str()), summary.as_ref().map(|s| s.1), newest)) {
            return Ok(None);
        }
        let mut lines: Vec<Line> = Vec::new();
        if let Some((text, _)) = &summary {
            lines.extend(text.lines().filter(|l| !l.trim().is_empty()).map(|l| Line { text: l.to_owned(), weight: line_weight(l), cites: None }));
        }
        for t in &turns {
            let facts = if t.source == Source::User { extract(&t.text) } else { Vec::new() };
            if facts.is_empty() {
                lines.push(Line { text: turn_line(&self.tokenizer, t), weight: t.importance, cites: Some(t.id.clone()) });
            }
            for f in facts {
                lines.push(Line { text: f.text, weight: f.importance, cites: Some(t.id.clone()) });
            }
        }
        let mut seen = BTreeSet::new();
        lines.retain(|l| l.weight >= settings.min_importance && seen.insert(l.text.clone()));
        let chosen = choose(&self.tokenizer, &lines, settings.budget_tokens);
        if chosen.is_empty() {
            return Ok(None);
        }
        let text = join(&lines, &chosen);
        // Heaviest first, earlier first among equals.
        let mut ranked: Vec<(u32, f32)> = chosen.iter().map(|&i| (i as u32, lines[i].weight)).collect();
        let n = ranked.len();
        crate::index::vector::top_k_by_score(&mut ranked, n);
        let by_weight: Vec<usize> = ranked.into_iter().map(|(i, _)| i as usize).collect();
        let mut tags = vec![EPISODE_TAG.to_owned()];
        // A turn id too long for a tag (another replica's) leaves the episode to its stamp.
        tags.extend(last.map(|t| format!("{UPTO_PREFIX}{}", t.id)).filter(|t| t.len() <= MAX_TAG_LEN));
        for i in by_weight {
            if let Some(turn) = &lines[i].cites {
                let tag = format!("{CITES_PREFIX}{turn}");
                // A cite that would not pass as a tag (a long turn id from another replica) is left out.
                if tags.len() < MAX_TAGS && tag.len() <= MAX_TAG_LEN && !tags.contains(&tag) {
                    tags.push(tag);
                }
            }
        }
        let sealed = turns.iter().flat_map(|t| t.sealed.iter()).filter(|s| text.contains(&s.placeholder)).cloned().collect();
        let stamp = self.next_stamp(now);
        let record = Record {
            created_at: existing.as_ref().map_or(now, |e| e.created_at),
            valid_from: turns.first().map_or(now, |t| t.created_at),
            sealed,
            ..episode_record(id.clone(), scope.clone(), text, tags, stamp, now)
        };
        self.write_op(Op { user: scope.user_key(), stamp, body: OpBody::Upsert(Box::new(record)) })?;
        Ok(Some(id))
    }

    /// Write the episodes of the user's sessions idle past `session_ttl_ms` at `now` whose
    /// episode is missing or older than their turns (the SDK calls it when idle); then,
    /// when any session is idle, learn patterns and compact old episodes. Returns the ids
    /// written (episodes first).
    pub fn consolidate_idle(&mut self, scope: &Scope, now: Millis) -> Result<Vec<String>> {
        scope.validate()?;
        let c = &self.consolidation;
        if c.episodes.is_none() && c.patterns.is_none() && c.compaction.is_none() {
            return Ok(Vec::new());
        }
        let ttl = self.config.session_ttl_ms;
        let idle: Vec<String> = self
            .partition(scope)?
            .map(|p| p.sessions().filter(|(_, s)| !s.turns().is_empty() && now.saturating_sub(s.touched_at()) >= ttl).map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        let any = !idle.is_empty();
        for name in idle {
            if let Some(id) = self.write_episode(&Scope { session: Some(name), ..scope.clone() }, now)? {
                out.push(id);
            }
        }
        if any {
            out.extend(self.after_session(scope, now)?);
        }
        Ok(out)
    }
}

/// Whether an existing episode already says everything the session holds: its `upto:` tag
/// names the session's newest turn and no summary is newer than it — or, without the tag
/// (an episode written before it existed, or a turn id too long for a tag), it is newer
/// than every turn and the summary.
fn covers(episode: &Record, last_turn: Option<&str>, summary: Option<crate::hlc::Stamp>, newest: crate::hlc::Stamp) -> bool {
    match episode.tags.iter().find_map(|t| t.strip_prefix(UPTO_PREFIX)) {
        Some(upto) => last_turn == Some(upto) && summary.is_none_or(|s| s <= episode.stamp),
        None => episode.stamp >= newest,
    }
}
