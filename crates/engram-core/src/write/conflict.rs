//! Conflicts (seed 002): a new memory with the key of a current one but other text.
//! Four outcomes — keep new, keep old, merge, flag for review — chosen by rules over
//! confidence, source reliability and recency, overridable per store and per write.
//! Every version stays in the audit trail whatever the outcome. The rules themselves are
//! pure ([`crate::write::resolution`]); this is the engine applying their outcome and the
//! review queue.

pub use crate::write::resolution::Resolution;
use crate::store::ops::{Op, OpBody};
use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::{Record, Scope, WriteAction, WriteOutcome};

impl Engram {
    /// Close a current memory without a successor (it stopped being true, or an extractor
    /// proposed deleting it): it leaves recall and stays in the audit trail. Unlike
    /// [`Engram::forget`], nothing is erased.
    pub fn retract(&mut self, scope: &Scope, id: &str, now: Millis) -> Result<()> {
        let stamp = self.next_stamp(now);
        let user = scope.user_key();
        let part = self.partition_mut(scope)?;
        let slot = part.slot_of(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        if !part.at(slot).is_some_and(Record::is_current) {
            return Err(Error::invalid("id", format!("{id:?} is not a current memory")));
        }
        part.update(slot, |r| {
            r.valid_to = Some(now);
            r.updated_at = now;
            r.stamp = stamp;
        });
        if let Some(rec) = part.full_record(slot) {
            self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        }
        Ok(())
    }

    /// Settle a value flagged for review: `KeepNew` puts it in force and closes the values
    /// it conflicted with; `KeepOld` closes it; `Merge` lets both hold.
    pub fn resolve_review(&mut self, scope: &Scope, id: &str, decision: Resolution, now: Millis) -> Result<WriteOutcome> {
        if decision == Resolution::Flag {
            return Err(Error::invalid("decision", "a review is settled by keep-new, keep-old or merge"));
        }
        let stamp = self.next_stamp(now);
        let user = scope.user_key();
        let part = self.partition_mut(scope)?;
        let slot = part.slot_of(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let Some(flagged) = part.at(slot).filter(|r| r.pending_review).cloned() else {
            return Err(Error::invalid("id", format!("{id:?} is not waiting for review")));
        };
        let others: Vec<u32> = flagged
            .key
            .as_ref()
            .map(|k| part.with_key(k).iter().copied().filter(|&s| s != slot && part.at(s).is_some_and(Record::is_current)).collect())
            .unwrap_or_default();
        let mut touched = vec![slot];
        let mut superseded = Vec::new();
        match decision {
            Resolution::KeepNew => {
                for &s in &others {
                    part.update(s, |r| {
                        r.valid_to = Some(now);
                        r.superseded_by = Some(flagged.id.clone());
                        r.updated_at = now;
                        r.stamp = stamp;
                    });
                    superseded.extend(part.at(s).map(|r| r.id.clone()));
                }
                touched.extend(&others);
            }
            Resolution::KeepOld => {
                let winner = others.first().and_then(|&s| part.at(s)).map(|r| r.id.clone());
                part.update(slot, |r| {
                    r.valid_to = Some(now);
                    r.superseded_by = winner;
                });
            }
            Resolution::Merge | Resolution::Flag => {}
        }
        part.update(slot, |r| {
            r.pending_review = false;
            r.updated_at = now;
            r.stamp = stamp;
        });
        let ops: Vec<Op> = touched
            .iter()
            .filter_map(|&s| part.full_record(s))
            .map(|rec| Op { user: user.clone(), stamp, body: OpBody::Upsert(Box::new(rec)) })
            .collect();
        self.pending.extend(ops);
        let action = if decision == Resolution::KeepOld { WriteAction::Rejected } else { WriteAction::Inserted };
        Ok(WriteOutcome { id: id.to_owned(), action, similarity: None, superseded, redacted: Vec::new(), conflict: Some(decision) })
    }
}
