//! How a partition merges the ops filed under its user: each method applies one op's
//! effect and says whether local state changed. Last writer wins per record by stamp; a
//! delete leaves a tombstone that beats older writes; forgetting the user drops all that
//! was written before the forget. Merging an op twice is harmless.

use std::collections::BTreeSet;

use super::Partition;
use crate::config::Config;
use crate::knowledge::graph::{norm, EdgeKey, EntityRef};
use crate::hlc::Stamp;
use crate::model::{Kind, Record};

impl Partition {
    /// Merge a record write (its embedding already checked). False when a tombstone or a
    /// stored version at least as new beats it. A message joins its session's turns.
    pub fn merge_upsert(&mut self, rec: Record, config: &Config) -> bool {
        if self.tombstones.get(&rec.id).is_some_and(|s| *s >= rec.stamp) {
            return false;
        }
        if self.get(&rec.id).is_some_and(|cur| cur.stamp >= rec.stamp) {
            return false;
        }
        let session = rec.scope.session.clone().filter(|_| rec.kind == Kind::Message);
        let id = rec.id.clone();
        let stamp = rec.stamp;
        self.put(rec, config);
        if let Some(s) = session {
            let sess = self.session_mut(s);
            sess.add_turn(&id);
            sess.touch(stamp);
        }
        true
    }

    /// Merge a delete: record the tombstone (if newer) and remove an older stored version.
    /// False when neither changed anything.
    pub fn merge_delete(&mut self, id: String, stamp: Stamp) -> bool {
        let newer = self.tombstones.get(&id).is_none_or(|s| *s < stamp);
        if newer {
            self.tombstones.insert(id.clone(), stamp);
        }
        match self.get(&id) {
            Some(r) if r.stamp < stamp => {
                self.remove(&id);
                true
            }
            _ => newer,
        }
    }

    /// Merge an edge write `from —rel→ to` (entities made as needed). False when a newer
    /// write of the edge is held.
    pub fn merge_edge(&mut self, from: &EntityRef, rel: &str, to: &EntityRef, present: bool, stamp: Stamp, record: Option<String>) -> bool {
        let f = self.graph.ensure(&from.name, &from.kind);
        let t = self.graph.ensure(&to.name, &to.kind);
        self.graph.put_edge(EdgeKey { from: f, rel: norm(rel), to: t }, present, stamp, record)
    }

    /// Merge an attribute write (the entity made as needed). False when a newer write of
    /// the attribute is held.
    pub fn merge_attr(&mut self, entity: &EntityRef, attr: &str, value: &str, stamp: Stamp) -> bool {
        let id = self.graph.ensure(&entity.name, &entity.kind);
        self.graph.put_attr(&id, attr, value, stamp)
    }

    /// Forget everything written before `stamp`: records, session state, summaries and
    /// turns, tombstones (the forget itself now refuses what they refused), graph edges
    /// and attributes, and entities nothing refers to any more.
    pub fn forget_before(&mut self, stamp: Stamp) {
        let doomed: Vec<String> = self.iter().filter(|(_, r)| r.stamp < stamp).map(|(_, r)| r.id.clone()).collect();
        for id in doomed {
            self.remove(&id);
        }
        let surviving: BTreeSet<String> = crate::sort::set(self.iter().map(|(_, r)| r.id.clone()));
        for sess in self.sessions.values_mut() {
            sess.forget_before(stamp, &surviving);
        }
        // A session cleared after the forget keeps its clear: a replica that received the
        // clear after the forget holds it, so one that received it before must too.
        self.sessions.retain(|_, s| !s.is_vacant() || s.cleared() > stamp);
        self.retouch();
        self.tombstones.retain(|_, s| *s > stamp);
        self.graph.forget_before(stamp);
    }

    /// True when the partition holds nothing at all: no records, entities, sessions or
    /// tombstones (a forgotten user's partition can then go).
    pub fn is_vacant(&self) -> bool {
        self.is_empty() && self.graph.is_empty() && self.sessions.is_empty() && self.tombstones.is_empty()
    }
}
