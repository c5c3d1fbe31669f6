//! Compaction of old episodes: episodes not rewritten for [`super::Compaction::min_age_ms`]
//! fold, per calendar month (UTC) of the session they summarise, into one longer episode —
//! their lines, the heaviest within a token budget, facts first. The folded episodes are
//! kept as history (superseded by the compacted one, as a newer value supersedes a fact:
//! out of recall, listed with `include_superseded`) or deleted, by [`super::Folded`].
//!
//! Only `Episode` records fold: the facts and preferences a user stated are records of
//! their own and are never touched. The compacted episode's id comes from the month, and
//! with history kept its text is computed from the episodes it supersedes, so replicas
//! that compact the same episodes write the same record and a late episode joins it.

use std::collections::{BTreeMap, BTreeSet};

use crate::consolidate::episode::{episode_record, EPISODE_TAG};
use crate::consolidate::lines::{choose, join, line_weight, Line};
use crate::consolidate::Folded;
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::limits::{MAX_TAGS, MAX_TAG_LEN};
use crate::model::{Kind, Record, Scope};
use crate::store::ops::{Op, OpBody};
use crate::text::content_hash;

/// The tag a compacted episode carries beside [`EPISODE_TAG`].
pub const COMPACTED_TAG: &str = "compacted";
/// The prefix of the tag naming the month a compacted episode covers (`month:2026-01`).
pub const MONTH_PREFIX: &str = "month:";
/// The prefix of the tag naming an episode folded into a compacted one.
pub const FROM_PREFIX: &str = "from:";

/// The id of the compacted episode of `month` (`YYYY-MM`) for the scope's user and agent.
pub fn compacted_id(scope: &Scope, month: &str) -> String {
    let agent = scope.agent.as_deref().unwrap_or_default();
    format!("ec{:016x}", content_hash(&format!("{agent}\u{1f}{month}")))
}

/// The calendar month (UTC) of a moment, as `YYYY-MM`.
pub fn month_of(at: Millis) -> String {
    let (year, month, _) = crate::calendar::civil(at);
    format!("{year:04}-{month:02}")
}

/// What one compaction wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    /// The compacted episode's id.
    pub id: String,
    /// The month it covers, `YYYY-MM`.
    pub month: String,
    /// The episodes it folds, by id (kept as its history or deleted).
    pub folded: Vec<String>,
    /// Its tokens, within the budget.
    pub tokens: usize,
}

fn is_compacted(r: &Record) -> bool {
    r.tags.iter().any(|t| t == COMPACTED_TAG)
}

/// An episode line's weight: a turn line (`user: …`) weighs what the turn did; any other
/// line is a fact the extractor found or a summary line, and weighs as a fact.
fn episode_line_weight(line: &str) -> f32 {
    match line.split_once(": ") {
        Some(("user" | "assistant" | "tool" | "system", _)) => line_weight(line),
        _ => 0.8,
    }
}

impl Engram {
    /// Fold the scope's old episodes (of its agent, every session) month by month, as
    /// [`super::Compaction`] says: a month with two or more to fold gets one compacted
    /// episode (an upsert, id [`compacted_id`]) and its episodes are superseded by it or
    /// deleted. A month already compacted takes in episodes that have since grown old.
    /// Returns what was written; empty when compaction is off or nothing is old enough.
    /// [`Engram::end_session`] and the idle sweep call it.
    pub fn compact_episodes(&mut self, scope: &Scope, now: Millis) -> Result<Vec<Compacted>> {
        let Some(settings) = self.consolidation.compaction.clone() else { return Ok(Vec::new()) };
        scope.validate()?;
        let at = Scope { session: None, ..scope.clone() };
        let Some(p) = self.partition(&at)? else { return Ok(Vec::new()) };
        // Per month: the existing compacted episode, and the episodes it folds.
        let mut months: BTreeMap<String, (Option<Record>, Vec<Record>)> = BTreeMap::new();
        let mut compacted: BTreeMap<String, Record> = BTreeMap::new();
        for (_, r) in p.iter() {
            if r.kind == Kind::Episode && r.scope.agent == at.agent && is_compacted(r) && r.is_current() {
                compacted.insert(r.id.clone(), r.clone());
            }
        }
        for (_, r) in p.iter() {
            if r.kind != Kind::Episode || r.scope.agent != at.agent || is_compacted(r) || r.pending_review {
                continue;
            }
            let old = r.is_current() && now.saturating_sub(r.updated_at) >= settings.min_age_ms;
            // With history kept, what a compacted episode supersedes stays one of its sources.
            let folded_here = r.superseded_by.as_ref().is_some_and(|c| compacted.contains_key(c));
            if old || (folded_here && settings.folded == Folded::Keep) {
                let month = month_of(r.valid_from);
                months.entry(month).or_default().1.push(r.clone());
            }
        }
        // A month whose compacted episode was deleted is left as it is.
        months.retain(|month, _| !p.is_deleted(&compacted_id(&at, month)));
        for (month, entry) in &mut months {
            entry.0 = compacted.get(&compacted_id(&at, month)).cloned();
        }
        let mut out = Vec::new();
        for (month, (existing, mut sources)) in months {
            let fresh = sources.iter().filter(|r| r.is_current()).count();
            let enough = match settings.folded {
                // Recomputed from its sources: a late one, or a rewrite that lost the race, is mended.
                Folded::Keep => sources.len() >= 2,
                Folded::Remove => fresh >= 2 || existing.is_some() && fresh >= 1,
            };
            if !enough {
                continue;
            }
            crate::sort::sort_by(&mut sources, |a, b| a.valid_from.cmp(&b.valid_from).then(a.id.cmp(&b.id)));
            let mut lines: Vec<Line> = Vec::new();
            if settings.folded == Folded::Remove {
                if let Some(c) = &existing {
                    lines.extend(c.text.lines().filter(|l| !l.trim().is_empty()).map(|l| Line { text: l.to_owned(), weight: episode_line_weight(l), cites: None }));
                }
            }
            for r in &sources {
                lines.extend(r.text.lines().filter(|l| !l.trim().is_empty()).map(|l| Line { text: l.to_owned(), weight: episode_line_weight(l), cites: Some(r.id.clone()) }));
            }
            let mut seen = BTreeSet::new();
            lines.retain(|l| seen.insert(l.text.clone()));
            let chosen = choose(&self.tokenizer, &lines, settings.budget_tokens);
            let text = join(&lines, &chosen);
            if text.trim().is_empty() {
                continue;
            }
            let id = compacted_id(&at, &month);
            let mut tags = vec![EPISODE_TAG.to_owned(), COMPACTED_TAG.to_owned(), format!("{MONTH_PREFIX}{month}")];
            let mut from: BTreeSet<String> = crate::sort::set(existing.iter().flat_map(|c| c.tags.iter().filter(|t| t.starts_with(FROM_PREFIX)).cloned()));
            from.extend(sources.iter().map(|r| format!("{FROM_PREFIX}{}", r.id)));
            tags.extend(from.into_iter().filter(|t| t.len() <= MAX_TAG_LEN).take(MAX_TAGS - 3));
            let folded_ids: Vec<String> = sources.iter().map(|r| r.id.clone()).collect();
            let times = existing.as_ref().map_or(0, |c| if settings.folded == Folded::Remove { c.times_seen } else { 0 });
            let times = times.saturating_add(u32::try_from(sources.len()).unwrap_or(u32::MAX));
            let unchanged = existing.as_ref().is_some_and(|c| c.text == text && c.tags == tags && c.times_seen == times);
            if !unchanged {
                let stamp = self.next_stamp(now);
                let valid_from = sources.iter().map(|r| r.valid_from).chain(existing.as_ref().map(|c| c.valid_from)).min().unwrap_or(now);
                let record = Record {
                    created_at: existing.as_ref().map_or(now, |c| c.created_at),
                    times_seen: times,
                    valid_from,
                    // Lines kept from the compacted episode as it was keep their sealed values too
                    // (under `Folded::Remove` their sources are gone).
                    sealed: sources.iter().chain(existing.as_ref()).flat_map(|r| r.sealed.iter()).filter(|s| text.contains(&s.placeholder)).fold(Vec::new(), |mut out: Vec<crate::pii::Sealed>, s| {
                        if !out.iter().any(|o| o.placeholder == s.placeholder) {
                            out.push(s.clone());
                        }
                        out
                    }),
                    ..episode_record(id.clone(), at.clone(), text.clone(), tags, stamp, now)
                };
                self.write_op(Op { user: at.user_key(), stamp, body: OpBody::Upsert(Box::new(record)) })?;
            }
            for r in sources.iter().filter(|r| r.is_current()) {
                match settings.folded {
                    Folded::Keep => self.supersede_episode(&at, r, &id, now)?,
                    Folded::Remove => {
                        self.forget(&at, &r.id, now)?;
                    }
                }
            }
            if unchanged && fresh == 0 {
                continue;
            }
            out.push(Compacted { id, month, folded: folded_ids, tokens: self.tokenizer.count(&text).tokens });
        }
        Ok(out)
    }

    /// Rewrite an episode as superseded by the compacted one (an upsert: its history).
    fn supersede_episode(&mut self, at: &Scope, r: &Record, by: &str, now: Millis) -> Result<()> {
        let user = at.user_key();
        let Some(mut rec) = self.partitions.get(&user).and_then(|p| p.slot_of(&r.id).and_then(|s| p.full_record(s))) else { return Ok(()) };
        rec.superseded_by = Some(by.to_owned());
        rec.valid_to = Some(now);
        rec.stamp = self.next_stamp(now);
        self.write_op(Op { user, stamp: rec.stamp, body: OpBody::Upsert(Box::new(rec)) })?;
        Ok(())
    }
}
