//! Ops: the change log every replica exchanges. Merge is last-writer-wins per record by
//! HLC stamp; a delete leaves a tombstone that beats older writes; forgetting a user
//! records a stamp after which older ops for that user are refused, so a late sync from
//! another device cannot resurrect forgotten data. Applying an op twice is harmless.

use crate::engine::partition::Partition;
use crate::graph::{norm, EdgeKey, EntityRef};
use crate::engine::Engram;
use crate::error::Result;
use crate::hlc::{Millis, Stamp};
use crate::model::Scope;
pub use crate::ops::{Op, OpBody};

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

    /// Number of local ops not yet taken.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Delete one memory of the scope's user. Returns false when it did not exist.
    pub fn forget(&mut self, scope: &Scope, id: &str, now: Millis) -> Result<bool> {
        scope.validate()?;
        let stamp = self.next_stamp(now);
        let op = Op { user: scope.user_key(), stamp, body: OpBody::Delete { id: id.to_owned() } };
        let existed = self.partitions.get(&op.user).is_some_and(|p| p.slot_of(id).is_some());
        self.apply(op.clone())?;
        self.pending.push(op);
        Ok(existed)
    }

    /// Forget everything of the scope's user on this replica, and make the forget an op so
    /// every other replica and the origin do the same. Other users are untouched.
    pub fn forget_user(&mut self, scope: &Scope, now: Millis) -> Result<usize> {
        scope.validate()?;
        let n = self.partitions.get(&scope.user_key()).map_or(0, Partition::len);
        let stamp = self.next_stamp(now);
        let op = Op { user: scope.user_key(), stamp, body: OpBody::ForgetUser };
        self.apply(op.clone())?;
        self.pending.push(op);
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
            let op = |stamp: Stamp, body: OpBody| Op { user: p.key.clone(), stamp, body };
            for r in p.iter().filter_map(|(slot, _)| p.full_record(slot)) {
                ops.push(op(r.stamp, OpBody::Upsert(Box::new(r))));
            }
            let mut tombstones: Vec<(&String, &Stamp)> = p.tombstones.iter().collect();
            tombstones.sort();
            for (id, stamp) in tombstones {
                ops.push(op(*stamp, OpBody::Delete { id: id.clone() }));
            }
            for (name, sess) in &p.sessions {
                if sess.cleared != Stamp::default() {
                    ops.push(op(sess.cleared, OpBody::SessionClear { session: name.clone() }));
                }
                for (key, value) in &sess.state {
                    let stamp = sess.stamps.get(key).copied().unwrap_or_default();
                    ops.push(op(stamp, OpBody::SessionSet { session: name.clone(), key: key.clone(), value: value.clone() }));
                }
                if let Some(text) = &sess.summary {
                    ops.push(op(sess.summary_stamp, OpBody::SessionSummary { session: name.clone(), text: text.clone() }));
                }
            }
            let g = &p.graph;
            let entity = |id: &str| g.entities.get(id).map(|e| EntityRef { name: e.name.clone(), kind: e.kind.clone() });
            for (k, e) in &g.edges {
                let (Some(from), Some(to)) = (entity(&k.from), entity(&k.to)) else { continue };
                ops.push(op(e.stamp, OpBody::GraphEdge { from, rel: k.rel.clone(), to, present: e.present, record: e.record.clone() }));
            }
            for ((id, attr), stamp) in &g.attr_stamps {
                let (Some(ent), Some(value)) = (entity(id), g.entities.get(id).and_then(|e| e.attributes.get(attr))) else { continue };
                ops.push(op(*stamp, OpBody::GraphAttr { entity: ent, attr: attr.clone(), value: value.clone() }));
            }
        }
        ops
    }

    /// Apply ops from another replica (or replay this replica's log). Idempotent.
    pub fn apply_ops(&mut self, ops: Vec<Op>) -> Result<Vec<Applied>> {
        ops.into_iter().map(|op| self.apply(op)).collect()
    }

    /// Apply one op.
    pub fn apply(&mut self, op: Op) -> Result<Applied> {
        op.validate()?;
        self.hlc.observe(op.stamp);
        if self.forgotten.get(&op.user).is_some_and(|f| *f >= op.stamp) {
            return Ok(Applied::Refused);
        }
        match op.body {
            OpBody::ForgetUser => {
                let f = self.forgotten.entry(op.user.clone()).or_insert(op.stamp);
                *f = (*f).max(op.stamp);
                let Some(p) = self.partitions.get_mut(&op.user) else { return Ok(Applied::Changed) };
                let doomed: Vec<String> = p.iter().filter(|(_, r)| r.stamp < op.stamp).map(|(_, r)| r.id.clone()).collect();
                for id in doomed {
                    p.remove(&id);
                }
                let surviving: std::collections::BTreeSet<String> = p.iter().map(|(_, r)| r.id.clone()).collect();
                for sess in p.sessions.values_mut() {
                    sess.drop_before(op.stamp);
                    sess.turns.retain(|t| surviving.contains(t));
                    if sess.summary_stamp < op.stamp {
                        sess.summary = None;
                    }
                }
                p.sessions.retain(|_, s| !(s.state.is_empty() && s.turns.is_empty() && s.summary.is_none()));
                p.retouch();
                p.tombstones.retain(|_, s| *s > op.stamp);
                p.graph.edges.retain(|_, e| e.stamp > op.stamp);
                p.graph.attr_stamps.retain(|_, s| *s > op.stamp);
                let keep: std::collections::BTreeSet<String> =
                    p.graph.edges.keys().flat_map(|k| [k.from.clone(), k.to.clone()]).chain(p.graph.attr_stamps.keys().map(|k| k.0.clone())).collect();
                p.graph.entities.retain(|id, _| keep.contains(id));
                for e in p.graph.entities.values_mut() {
                    let id = e.id.clone();
                    e.attributes.retain(|a, _| p.graph.attr_stamps.contains_key(&(id.clone(), a.clone())));
                }
                if p.is_empty() && p.graph.entities.is_empty() && p.sessions.is_empty() && p.tombstones.is_empty() {
                    self.partitions.remove(&op.user);
                }
                Ok(Applied::Changed)
            }
            OpBody::SessionSet { session, key, value } => {
                let p = self.partitions.entry(op.user.clone()).or_insert_with(|| Partition::new(op.user.clone()));
                let sess = p.sessions.entry(session).or_default();
                if op.stamp <= sess.cleared || sess.stamps.get(&key).is_some_and(|s| *s >= op.stamp) {
                    return Ok(Applied::Ignored);
                }
                sess.stamps.insert(key.clone(), op.stamp);
                sess.state.insert(key, value);
                sess.touched_at = sess.touched_at.max(op.stamp.wall_ms);
                Ok(Applied::Changed)
            }
            OpBody::SessionSummary { session, text } => {
                let p = self.partitions.entry(op.user.clone()).or_insert_with(|| Partition::new(op.user.clone()));
                let sess = p.sessions.entry(session).or_default();
                if sess.summary_stamp >= op.stamp {
                    return Ok(Applied::Ignored);
                }
                sess.summary_stamp = op.stamp;
                sess.summary = Some(text);
                sess.touched_at = sess.touched_at.max(op.stamp.wall_ms);
                Ok(Applied::Changed)
            }
            OpBody::SessionClear { session } => {
                let p = self.partitions.entry(op.user.clone()).or_insert_with(|| Partition::new(op.user.clone()));
                let sess = p.sessions.entry(session).or_default();
                if sess.cleared >= op.stamp {
                    return Ok(Applied::Ignored);
                }
                sess.clear_before(op.stamp);
                sess.touched_at = sess.touched_at.max(op.stamp.wall_ms);
                Ok(Applied::Changed)
            }
            OpBody::GraphEdge { from, rel, to, present, record } => {
                let p = self.partitions.entry(op.user.clone()).or_insert_with(|| Partition::new(op.user.clone()));
                let f = p.graph.ensure(&from.name, &from.kind);
                let t = p.graph.ensure(&to.name, &to.kind);
                let key = EdgeKey { from: f, rel: norm(&rel), to: t };
                Ok(if p.graph.put_edge(key, present, op.stamp, record) { Applied::Changed } else { Applied::Ignored })
            }
            OpBody::GraphAttr { entity, attr, value } => {
                let p = self.partitions.entry(op.user.clone()).or_insert_with(|| Partition::new(op.user.clone()));
                let id = p.graph.ensure(&entity.name, &entity.kind);
                Ok(if p.graph.put_attr(&id, &attr, &value, op.stamp) { Applied::Changed } else { Applied::Ignored })
            }
            OpBody::Delete { id } => {
                let p = self.partitions.entry(op.user.clone()).or_insert_with(|| Partition::new(op.user.clone()));
                let newer = p.tombstones.get(&id).is_none_or(|s| *s < op.stamp);
                if newer {
                    p.tombstones.insert(id.clone(), op.stamp);
                }
                match p.get(&id) {
                    Some(r) if r.stamp < op.stamp => {
                        p.remove(&id);
                        Ok(Applied::Changed)
                    }
                    _ if newer => Ok(Applied::Changed),
                    _ => Ok(Applied::Ignored),
                }
            }
            OpBody::Upsert(rec) => {
                let mut rec = *rec;
                if let Some(v) = rec.embedding.take() {
                    rec.embedding = Some(self.check_embedding(&v)?);
                }
                let p = self.partitions.entry(op.user.clone()).or_insert_with(|| Partition::new(op.user.clone()));
                if p.tombstones.get(&rec.id).is_some_and(|s| *s >= rec.stamp) {
                    return Ok(Applied::Ignored);
                }
                if p.get(&rec.id).is_some_and(|cur| cur.stamp >= rec.stamp) {
                    return Ok(Applied::Ignored);
                }
                let session = rec.scope.session.clone().filter(|_| rec.kind == crate::model::Kind::Message);
                let id = rec.id.clone();
                let stamp = rec.stamp;
                p.put(rec, &self.config);
                if let Some(s) = session {
                    let sess = p.sessions.entry(s).or_default();
                    sess.add_turn(&id);
                    sess.touched_at = sess.touched_at.max(stamp.wall_ms);
                }
                Ok(Applied::Changed)
            }
        }
    }
}
