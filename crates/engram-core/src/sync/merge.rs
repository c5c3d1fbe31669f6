//! Ops: the change log every replica exchanges. Merge is last-writer-wins per record by
//! HLC stamp; a delete leaves a tombstone that beats older writes; forgetting a user
//! records a stamp after which older ops for that user are refused, so a late sync from
//! another device cannot resurrect forgotten data. Applying an op twice is harmless.

use std::collections::BTreeMap;

use crate::store::partition::Partition;
use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::knowledge::graph::EntityRef;
use crate::hlc::{Millis, Stamp};
use crate::model::{Scope, UserKey};
pub use crate::store::ops::{Op, OpBody};

/// What applying an op did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The op changed local state.
    Changed,
    /// The op was already reflected, or lost to a newer write or tombstone.
    Ignored,
    /// The op is for a user forgotten after it was made.
    Refused,
}

impl Engram {
    /// Take the ops made locally since the last call (the SDK persists and syncs them).
    pub fn take_pending(&mut self) -> Vec<Op> {
        std::mem::take(&mut self.pending)
    }

    /// Write a local op: apply it here, as every replica will, then queue it for sync
    /// ([`Engram::take_pending`]); nothing is queued when applying it fails. Writes made of
    /// ops go through here.
    pub(crate) fn write_op(&mut self, op: Op) -> Result<()> {
        self.apply(op.clone())?;
        self.pending.push(op);
        Ok(())
    }

    /// Number of local ops not yet taken.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Delete one memory of the scope's user. Returns false when it did not exist.
    pub fn forget(&mut self, scope: &Scope, id: &str, now: Millis) -> Result<bool> {
        scope.validate()?;
        if id.starts_with("d/") || id.starts_with("c/") {
            // A document's chunks go with it: `delete_document` removes them all.
            return Err(Error::invalid("id", "documents and their chunks are removed with delete_document, not forget"));
        }
        let stamp = self.next_stamp(now);
        let op = Op { user: scope.user_key(), stamp, body: OpBody::Delete { id: id.to_owned() } };
        let existed = self.partitions.get(&op.user).is_some_and(|p| p.slot_of(id).is_some());
        self.write_op(op)?;
        Ok(existed)
    }

    /// Forget everything of the scope's user on this replica, and make the forget an op so
    /// every other replica and the origin do the same. Other users are untouched.
    pub fn forget_user(&mut self, scope: &Scope, now: Millis) -> Result<usize> {
        scope.validate()?;
        let n = self.partitions.get(&scope.user_key()).map_or(0, Partition::len);
        let stamp = self.next_stamp(now);
        self.write_op(Op { user: scope.user_key(), stamp, body: OpBody::ForgetUser })?;
        Ok(n)
    }

    /// Ops that rebuild this engine's whole replicated state on another replica: every
    /// record (with its embedding), tombstone, forget, session value, summary and clear,
    /// graph edge and attribute, each with the stamp it was written at — so applying them
    /// is idempotent and merges with whatever the other side holds by the usual rules.
    /// A store that kept history before it was first synced pushes these once.
    pub fn state_ops(&self) -> Vec<Op> {
        let mut ops = Vec::new();
        for (user, stamp) in &self.forgotten {
            ops.push(Op { user: user.clone(), stamp: *stamp, body: OpBody::ForgetUser });
        }
        for p in self.partitions.values() {
            let op = |stamp: Stamp, body: OpBody| Op { user: p.key().clone(), stamp, body };
            for r in p.iter().filter_map(|(slot, _)| p.full_record(slot)) {
                ops.push(op(r.stamp, OpBody::Upsert(Box::new(r))));
            }
            for (id, stamp) in p.tombstones() {
                ops.push(op(*stamp, OpBody::Delete { id: id.clone() }));
            }
            for (name, sess) in p.sessions() {
                let session = || name.clone();
                if sess.cleared() != Stamp::default() {
                    ops.push(op(sess.cleared(), OpBody::SessionClear { session: session() }));
                }
                for (key, value, stamp) in sess.stamped_state() {
                    ops.push(op(stamp, OpBody::SessionSet { session: session(), key: key.to_owned(), value: value.to_owned() }));
                }
                if let Some((text, stamp)) = sess.stamped_summary() {
                    ops.push(op(stamp, OpBody::SessionSummary { session: session(), text: text.to_owned() }));
                }
            }
            let g = p.graph();
            let entity = |id: &str| g.entity(id).map(|e| EntityRef { name: e.name.clone(), kind: e.kind.clone() });
            for (k, e) in g.edges() {
                let (Some(from), Some(to)) = (entity(&k.from), entity(&k.to)) else { continue };
                ops.push(op(e.stamp, OpBody::GraphEdge { from, rel: k.rel.clone(), to, present: e.present, record: e.record.clone() }));
            }
            for (e, attr, value, stamp) in g.attr_writes() {
                let ent = EntityRef { name: e.name.clone(), kind: e.kind.clone() };
                ops.push(op(stamp, OpBody::GraphAttr { entity: ent, attr: attr.to_owned(), value: value.to_owned() }));
            }
        }
        ops
    }

    /// [`Engram::state_ops`] of the users' partitions only: what a user's store seeds its
    /// sync with. Tenants' procedures and libraries are the operator's and never leave
    /// through a user's sync (the origin refuses them from a user's token).
    pub fn user_state_ops(&self) -> Vec<Op> {
        let mut ops = self.state_ops();
        ops.retain(|op| !op.user.is_tenant_partition());
        ops
    }

    /// Apply ops from another replica (or replay this replica's log). Idempotent.
    pub fn apply_ops(&mut self, ops: Vec<Op>) -> Result<Vec<Applied>> {
        ops.into_iter().map(|op| self.apply(op)).collect()
    }

    /// Apply one op: refuse it if its user was forgotten after it was made, else hand it
    /// to the piece of state that owns what it changes (the user's partition, one of its
    /// sessions, its graph), which merges it.
    pub fn apply(&mut self, op: Op) -> Result<Applied> {
        op.validate()?;
        self.hlc.observe(op.stamp);
        if self.forgotten.get(&op.user).is_some_and(|f| *f >= op.stamp) {
            return Ok(Applied::Refused);
        }
        let Op { user, stamp, body } = op;
        let parts = &mut self.partitions;
        let changed = match body {
            OpBody::ForgetUser => {
                self.forget_user_before(user, stamp);
                true
            }
            OpBody::Upsert(mut rec) => {
                if let Some(v) = rec.embedding.take() {
                    rec.embedding = Some(self.check_embedding(&v)?);
                }
                partition(&mut self.partitions, user).merge_upsert(*rec, &self.config)
            }
            OpBody::Delete { id } => partition(parts, user).merge_delete(id, stamp),
            OpBody::SessionSet { session, key, value } => partition(parts, user).session_mut(session).merge_set(key, value, stamp),
            OpBody::SessionSummary { session, text } => partition(parts, user).session_mut(session).merge_summary(text, stamp),
            OpBody::SessionClear { session } => partition(parts, user).session_mut(session).merge_clear(stamp),
            OpBody::GraphEdge { from, rel, to, present, record } => partition(parts, user).merge_edge(&from, &rel, &to, present, stamp, record),
            OpBody::GraphAttr { entity, attr, value } => partition(parts, user).merge_attr(&entity, &attr, &value, stamp),
        };
        Ok(if changed { Applied::Changed } else { Applied::Ignored })
    }

    /// Record that `user` was forgotten at `stamp` (the later of two forgets wins), and
    /// drop what their partition holds from before it; an emptied partition goes.
    fn forget_user_before(&mut self, user: UserKey, stamp: Stamp) {
        let f = self.forgotten.entry(user.clone()).or_insert(stamp);
        *f = (*f).max(stamp);
        let Some(p) = self.partitions.get_mut(&user) else { return };
        p.forget_before(stamp);
        if p.is_vacant() {
            self.partitions.remove(&user);
        }
    }
}

/// The user's partition, made empty when absent.
fn partition(parts: &mut BTreeMap<UserKey, Partition>, user: UserKey) -> &mut Partition {
    parts.entry(user.clone()).or_insert_with(|| Partition::new(user))
}
