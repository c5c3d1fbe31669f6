//! The working memory of one session: key/value state, the ids of its turns and a rolling
//! summary. Every write carries the stamp it was made at, and a session merges writes from
//! other replicas by last-writer-wins per key, so replicas agree whatever order ops come in.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::hlc::{Millis, Stamp};

/// Working memory of one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Key/value state; values are opaque strings (the SDK stores JSON).
    state: BTreeMap<String, String>,
    /// Last write to the session; the state expires `session_ttl_ms` after it.
    touched_at: Millis,
    /// Ids of the session's turns, oldest first.
    turns: Vec<String>,
    /// The rolling summary of turns that left the recent window.
    summary: Option<String>,
    /// Stamp of the last write of each state key (last writer wins across replicas).
    stamps: BTreeMap<String, Stamp>,
    /// Stamp of the last summary write.
    summary_stamp: Stamp,
    /// Stamp of the last clear (expiry or end of the session): state written before it is
    /// gone on every replica, whatever order the ops arrive in.
    cleared: Stamp,
}

impl Session {
    /// Key/value state; values are opaque strings (the SDK stores JSON).
    pub fn state(&self) -> &BTreeMap<String, String> {
        &self.state
    }

    /// Wall time of the last write to the session.
    pub fn touched_at(&self) -> Millis {
        self.touched_at
    }

    /// Ids of the session's turns, oldest first.
    pub fn turns(&self) -> &[String] {
        &self.turns
    }

    /// The rolling summary, if one was written.
    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    /// Drop a turn id (its record was removed).
    pub(crate) fn remove_turn(&mut self, id: &str) {
        self.turns.retain(|t| t != id);
    }

    /// Insert a turn id keeping ids (stamp-ordered) sorted: every replica lists turns alike.
    pub fn add_turn(&mut self, id: &str) {
        if let Err(at) = self.turns.binary_search_by(|t| t.as_str().cmp(id)) {
            self.turns.insert(at, id.to_owned());
        }
    }

    /// Merge a state write. False when a newer write of the key or a later clear beats it.
    pub fn merge_set(&mut self, key: String, value: String, stamp: Stamp) -> bool {
        if stamp <= self.cleared || self.stamps.get(&key).is_some_and(|s| *s >= stamp) {
            return false;
        }
        self.stamps.insert(key.clone(), stamp);
        self.state.insert(key, value);
        self.touch(stamp);
        true
    }

    /// Merge a summary write. False when a newer summary is held.
    pub fn merge_summary(&mut self, text: String, stamp: Stamp) -> bool {
        if self.summary_stamp >= stamp {
            return false;
        }
        self.summary_stamp = stamp;
        self.summary = Some(text);
        self.touch(stamp);
        true
    }

    /// Merge a clear: the state written before `stamp` goes, and older writes are refused
    /// from now on. False when a later clear is held.
    pub fn merge_clear(&mut self, stamp: Stamp) -> bool {
        if self.cleared >= stamp {
            return false;
        }
        self.cleared = self.cleared.max(stamp);
        self.drop_before(stamp);
        self.touch(stamp);
        true
    }

    /// Forget what was written before `stamp` (the user is forgotten): state, the summary,
    /// and turns not in `surviving`. Nothing is recorded here: the forget's own stamp
    /// refuses older writes.
    pub fn forget_before(&mut self, stamp: Stamp, surviving: &BTreeSet<String>) {
        self.drop_before(stamp);
        self.turns.retain(|t| surviving.contains(t));
        if self.summary_stamp < stamp {
            self.summary = None;
            self.summary_stamp = Stamp::default();
        }
        // A clear older than the forget is subsumed by it: a replica that received the
        // clear after the forget refused it, so one that received it before drops it too.
        if self.cleared < stamp {
            self.cleared = Stamp::default();
        }
    }

    /// True when nothing is left: no state, no turns, no summary.
    pub fn is_vacant(&self) -> bool {
        self.state.is_empty() && self.turns.is_empty() && self.summary.is_none()
    }

    /// Stamp of the last clear (`Stamp::default()` when never cleared).
    pub fn cleared(&self) -> Stamp {
        self.cleared
    }

    /// Each state value with its key and the stamp it was written at.
    pub fn stamped_state(&self) -> impl Iterator<Item = (&str, &str, Stamp)> + '_ {
        self.state.iter().map(|(k, v)| (k.as_str(), v.as_str(), self.stamps.get(k).copied().unwrap_or_default()))
    }

    /// The summary with the stamp it was written at.
    pub fn stamped_summary(&self) -> Option<(&str, Stamp)> {
        self.summary.as_deref().map(|s| (s, self.summary_stamp))
    }

    /// Recompute `touched_at` from what the session holds — state stamps, summary, clear —
    /// and the wall time of its latest surviving turn.
    pub(crate) fn retouch(&mut self, latest_turn: Option<Millis>) {
        let state = self.stamps.values().map(|st| st.wall_ms);
        let marks = [self.summary_stamp.wall_ms, self.cleared.wall_ms];
        self.touched_at = latest_turn.into_iter().chain(state).chain(marks).max().unwrap_or(0);
    }

    /// A write at `stamp` refreshes the session.
    pub(crate) fn touch(&mut self, stamp: Stamp) {
        self.touched_at = self.touched_at.max(stamp.wall_ms);
    }

    fn drop_before(&mut self, stamp: Stamp) {
        let stamps = &mut self.stamps;
        self.state.retain(|k, _| stamps.get(k).is_some_and(|s| *s > stamp));
        stamps.retain(|_, s| *s > stamp);
    }
}
