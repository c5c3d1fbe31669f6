//! One-call writes over the pipeline: a turn, or what user turns state, prepared and
//! committed at once — and the graph step of committing an extracted fact.

use crate::write::prepare::WriteBatch;
use crate::store::working::Turn;
use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::extract::{extract, Link, USER_ENTITY};
use crate::knowledge::graph::{EntityRef, Relation};
use crate::hlc::Millis;
use crate::model::{Scope, WriteAction, WriteOutcome};

impl Engram {
    /// Append a turn to the scope's session; refreshes the session's TTL. Returns its id.
    /// One [`Engram::prepare`] and [`Engram::commit`] with the turn's own embedding.
    pub fn append_turn(&mut self, scope: &Scope, turn: Turn, now: Millis) -> Result<String> {
        let session = scope.require_session()?.to_owned();
        let batch = WriteBatch { turns: vec![turn], session: Some(session), ..WriteBatch::default() };
        let prepared = self.prepare(&Scope { session: None, ..scope.clone() }, batch, now)?;
        let mut done = self.commit(prepared, Vec::new(), now)?;
        done.turns.pop().ok_or_else(|| Error::invalid("turn", "nothing to append"))
    }

    /// Extract what is worth remembering from the user's turns and remember it through
    /// the normal write path. Returns one outcome per stored fact. Facts that state a
    /// relation also join the graph (`user —works_at→ Alibaba`, citing the record); when a
    /// fact supersedes another, the relations the old one stated are removed. (To record
    /// the turns as well, prepare a [`WriteBatch`] with `turns` and `extract`.)
    pub fn observe(&mut self, scope: &Scope, user_texts: &[&str], now: Millis) -> Result<Vec<WriteOutcome>> {
        let facts = user_texts.iter().flat_map(|t| extract(t)).collect();
        let prepared = self.prepare(scope, WriteBatch { facts, ..WriteBatch::default() }, now)?;
        let none = vec![None; prepared.texts().len()];
        Ok(self.commit(prepared, none, now)?.remembered)
    }

    /// The graph side of remembering an extracted fact: relations of the facts it
    /// superseded are removed, and its own relation (if newly stored) is added.
    pub fn link_extracted(&mut self, scope: &Scope, link: Option<Link>, outcome: &WriteOutcome, now: Millis) -> Result<()> {
        self.unlink_records(scope, &outcome.superseded, now)?;
        if let (Some(link), WriteAction::Inserted) = (link, &outcome.action) {
            let user = EntityRef::new(USER_ENTITY, "person");
            self.relate(scope, Relation::new(user, &link.rel, link.object).citing(&outcome.id), now)?;
        }
        Ok(())
    }
}
