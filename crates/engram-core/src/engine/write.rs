//! The write path: validate → PII → normalize → exact dedup → near-duplicate → conflict
//! policy (supersession) → insert → op. Chat turns (see `working`) use the insert step only.

use crate::engine::resolution::{Incoming, Resolution};
use crate::engine::partition::Partition;
use crate::ops::{Op, OpBody};
use crate::engine::{id_from_stamp, EmbedderInfo, Engram};
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::{Layer, MemoryInput, Record, Scope, WriteAction, WriteOutcome};
use crate::pii::{scrub, Scrubbed};
use crate::text::{content_hash, normalize, same_substance};
use crate::vector::unit;

use crate::model::limits::{check_id, check_label, check_tags, check_text, MAX_KEY_PART, MAX_RECORD_ID};

impl Engram {
    /// Remember one memory for the scope's user.
    ///
    /// Same normalized text as a current memory → that memory is reinforced
    /// (`Duplicate`). A vector within `dedup_threshold` of a current memory without a key →
    /// reinforced (`Reinforced`). Same key as current memories with other text → a conflict,
    /// settled by [`crate::ConflictPolicy`]: by default the newer value closes the old ones
    /// (`valid_to`, `superseded_by`); a much less trusted one is flagged for review
    /// (`Flagged`) or kept only for audit (`Rejected`); many-valued attributes merge.
    pub fn remember(&mut self, scope: &Scope, input: MemoryInput, now: Millis) -> Result<WriteOutcome> {
        scope.validate()?;
        self.validate_input(&input, now)?;
        let embedding = match &input.embedding {
            Some(v) => Some(self.check_embedding(v)?),
            None => None,
        };
        if let Some(id) = &input.id {
            if self.partitions.get(&scope.user_key()).is_some_and(|p| p.slot_of(id).is_some()) {
                return Err(Error::invalid("id", format!("{id:?} already exists; use a new id")));
            }
        }
        // PII first: nothing below ever sees the raw value.
        let (text, redacted, sealed) = match scrub(input.text.trim(), input.sensitivity, &self.config.pii, self.redaction_key.as_ref()) {
            Scrubbed::Store { text, redacted, sealed } => (text, redacted, sealed),
            Scrubbed::Drop { found } => return Ok(WriteOutcome::nothing(WriteAction::Dropped, found)),
        };
        let hash = content_hash(&normalize(&text));
        let threshold = self.config.dedup_threshold;
        // Field borrows, not `partition_mut`: the policy is read while the partition is mutable.
        let policy = &self.config.conflicts;
        let part = self.partitions.entry(scope.user_key()).or_insert_with(|| Partition::new(scope.user_key()));
        if let Some(target) = &input.replaces {
            if !part.slot_of(target).and_then(|s| part.at(s)).is_some_and(Record::is_current) {
                return Err(Error::invalid("replaces", format!("{target:?} is not a current memory of this user")));
            }
        }

        // 1. Exact duplicate of a memory in force or under review (with the same key, if any).
        let exact = part.with_hash(hash).iter().copied().find(|&s| {
            part.at(s).is_some_and(|r| r.kind.is_memory() && !r.is_expired(now) && r.key == input.key && r.sealed == sealed)
        });
        if let Some(slot) = exact {
            return Ok(WriteOutcome { redacted, ..self.reinforce(scope, slot, &input, None, now) });
        }

        // 2. Near duplicate (only for unkeyed memories: same-key different-text is a conflict),
        //    and only with the same numbers, polarity and most words (`same_substance`).
        if input.key.is_none() && input.replaces.is_none() && threshold <= 1.0 {
            if let (Some(v), Some(ix)) = (&embedding, part.vectors.as_ref()) {
                let near = ix.search(v, 1, threshold, |s| {
                    part.at(s).is_some_and(|r| {
                        r.kind.is_memory() && r.key.is_none() && r.is_current() && !r.is_expired(now) && same_substance(&text, &r.text)
                    })
                });
                if let Some(&(slot, sim)) = near.first() {
                    return Ok(WriteOutcome { redacted, ..self.reinforce(scope, slot, &input, Some(sim), now) });
                }
            }
        }

        // 3. A conflict with the key's current values is settled by the policy; then insert.
        let observed_at = input.observed_at.unwrap_or(now);
        let mut closing: Vec<u32> = Vec::new();
        if let Some(target) = &input.replaces {
            closing.extend(part.slot_of(target));
        }
        let mut conflict = None;
        if let Some(key) = &input.key {
            let current: Vec<u32> = part.with_key(key).iter().copied().filter(|&s| part.at(s).is_some_and(Record::is_current)).collect();
            if !current.is_empty() {
                let records: Vec<&Record> = current.iter().filter_map(|&s| part.at(s)).collect();
                let incoming = Incoming {
                    key,
                    confidence: input.confidence,
                    source: input.source,
                    observed_at,
                    on_conflict: input.on_conflict,
                };
                let decision = policy.decide(&incoming, &records);
                if matches!(decision, Resolution::KeepOld | Resolution::Flag) {
                    closing.clear(); // a value that does not win replaces nothing, even when asked to
                }
                if decision == Resolution::KeepNew {
                    for s in &current {
                        if !closing.contains(s) {
                            closing.push(*s);
                        }
                    }
                }
                conflict = Some((decision, part.at(current[0]).map(|r| r.id.clone()).unwrap_or_default()));
            }
        }
        let stamp = self.next_stamp(now);
        let id = input.id.clone().unwrap_or_else(|| id_from_stamp(stamp));
        let user = scope.user_key();
        let part = self.partitions.entry(user.clone()).or_insert_with(|| Partition::new(user.clone()));
        let mut superseded = Vec::new();
        for &slot in &closing {
            part.update(slot, |r| {
                r.valid_to = Some(now);
                r.superseded_by = Some(id.clone());
                r.updated_at = now;
                r.stamp = stamp;
            });
            superseded.extend(part.at(slot).map(|r| r.id.clone()));
        }
        let (valid_to, superseded_by, pending_review, action) = match &conflict {
            Some((Resolution::KeepOld, winner)) => (Some(now), Some(winner.clone()), false, WriteAction::Rejected),
            Some((Resolution::Flag, _)) => (None, None, true, WriteAction::Flagged),
            _ => (None, None, false, WriteAction::Inserted),
        };
        let record = Record {
            id: id.clone(),
            scope: scope.clone(),
            kind: input.kind,
            layer: input.layer.unwrap_or_else(|| Layer::default_for(input.kind)),
            text,
            key: input.key,
            embedding,
            importance: input.importance,
            confidence: input.confidence,
            source: input.source,
            tags: input.tags,
            created_at: now,
            updated_at: now,
            last_accessed_at: now,
            times_seen: 1,
            valid_from: observed_at,
            valid_to,
            superseded_by,
            expires_at: input.ttl_ms.map(|t| now.saturating_add(t)),
            sensitivity: input.sensitivity,
            pending_review,
            sealed,
            stamp,
        };
        let slot = part.put(record, &self.config);
        for old in &superseded {
            if let Some(rec) = part.slot_of(old).and_then(|s| part.full_record(s)) {
                self.pending.push(Op { user: user.clone(), stamp, body: OpBody::Upsert(Box::new(rec)) });
            }
        }
        if let Some(rec) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        }
        Ok(WriteOutcome { id, action, similarity: None, superseded, redacted, conflict: conflict.map(|(d, _)| d) })
    }

    /// Remember several memories in order; stops at the first invalid one.
    pub fn remember_many(&mut self, scope: &Scope, inputs: Vec<MemoryInput>, now: Millis) -> Result<Vec<WriteOutcome>> {
        inputs.into_iter().map(|i| self.remember(scope, i, now)).collect()
    }

    fn reinforce(&mut self, scope: &Scope, slot: u32, input: &MemoryInput, sim: Option<f32>, now: Millis) -> WriteOutcome {
        let stamp = self.next_stamp(now);
        let user = scope.user_key();
        let Some(part) = self.partitions.get_mut(&user) else {
            return WriteOutcome::nothing(WriteAction::Duplicate, Vec::new());
        };
        part.update(slot, |r| {
            r.times_seen = r.times_seen.saturating_add(1);
            // Each confirmation moves importance a step towards 1 and never lowers it.
            r.importance = r.importance.max(input.importance).max((r.importance + 0.1).min(1.0));
            r.confidence = r.confidence.max(input.confidence);
            r.updated_at = now;
            r.last_accessed_at = now;
            r.stamp = stamp;
            for t in &input.tags {
                if !r.tags.contains(t) {
                    r.tags.push(t.clone());
                }
            }
        });
        let id = part.at(slot).map(|r| r.id.clone()).unwrap_or_default();
        if let Some(rec) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        }
        let action = if sim.is_some() { WriteAction::Reinforced } else { WriteAction::Duplicate };
        WriteOutcome { id, action, similarity: sim, superseded: Vec::new(), redacted: Vec::new(), conflict: None }
    }

    /// Apply the PII policy to `text` as the write path will: what the SDK embeds, so that
    /// vectors never encode a redacted value.
    pub fn scrub(&self, text: &str, tier: crate::model::Sensitivity) -> Scrubbed {
        scrub(text, tier, &self.config.pii, self.redaction_key.as_ref())
    }

    pub(crate) fn validate_text(&self, text: &str) -> Result<()> {
        check_text("text", text, self.config.max_text_bytes)
    }

    fn validate_input(&self, input: &MemoryInput, now: Millis) -> Result<()> {
        self.validate_text(&input.text)?;
        for (field, v) in [("importance", input.importance), ("confidence", input.confidence)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::invalid(field, format!("{v} is outside [0, 1]")));
            }
        }
        check_tags(&input.tags)?;
        if let Some(t) = input.observed_at {
            if t > now {
                return Err(Error::invalid("observed_at", "must not be in the future"));
            }
            if t < 0 {
                return Err(Error::invalid("observed_at", "must not be before 1970"));
            }
        }
        if let Some(ttl) = input.ttl_ms {
            if ttl <= 0 {
                return Err(Error::invalid("ttl_ms", "must be positive"));
            }
        }
        if let Some(id) = &input.id {
            check_id("id", id, MAX_RECORD_ID)?;
        }
        if let Some(k) = &input.key {
            check_label("key.subject", &k.subject, MAX_KEY_PART)?;
            check_label("key.attribute", &k.attribute, MAX_KEY_PART)?;
        }
        Ok(())
    }

    /// Check a vector against the store's embedder (fixing the dimension on first use)
    /// and return it unit-length.
    pub(crate) fn check_embedding(&mut self, v: &[f32]) -> Result<Vec<f32>> {
        let dim = match &self.embedder {
            Some(e) => e.dim,
            None => {
                if v.is_empty() || v.len() > 8192 {
                    return Err(Error::invalid("embedding", "must have 1..=8192 dimensions"));
                }
                self.embedder = Some(EmbedderInfo { id: "caller".into(), dim: v.len() });
                v.len()
            }
        };
        unit(v, dim)
    }
}
