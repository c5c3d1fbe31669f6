//! MongoDB: the archival copy and the sync log.
//!
//! Database `ai_agent_memory` (configurable). The sync log is `ops` (one document per pushed
//! batch, numbered per user); everything else is a view kept up to date from
//! the accepted ops: `memories` (one document per record, last writer wins by stamp, deletes
//! as tombstones), `relations` (graph edges, multi-hop by `$graphLookup`), `session_memories`
//! and `user_profiles` (the seed schemas), and `forgotten` (each forgotten user's stamp).
//! Every query filters by the authenticated `tenant` + `user_id`.

mod log;
mod profile;
pub mod query;
mod schema;
mod statements;
mod view;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mongodb::bson::{doc, Document};
use mongodb::options::ClientOptions;
use mongodb::{Client, Collection, Database};

use crate::error::ApiResult;
use engram_core::{Stamp, UserKey};

pub use log::{PullPage, PushReport};
pub use query::{DocumentPage, GraphEdgeOut, ListPage};

/// Handle to the origin's database.
#[derive(Clone)]
pub struct Store {
    db: Database,
    /// Serialises pushes per user in this process (across processes, sequence numbers are
    /// taken under a unique index, see `append`).
    locks: Arc<Mutex<HashMap<UserKey, Arc<tokio::sync::Mutex<()>>>>>,
}

impl Store {
    /// Connect and make sure collections, validators and indexes exist.
    pub async fn connect(uri: &str, database: &str, server_selection: std::time::Duration) -> ApiResult<Store> {
        let mut opts = ClientOptions::parse(uri).await?;
        opts.server_selection_timeout = Some(server_selection);
        opts.app_name = Some("engram-origin".into());
        let client = Client::with_options(opts)?;
        let store = Store { db: client.database(database), locks: Arc::default() };
        schema::ensure(&store.db).await?;
        Ok(store)
    }

    /// Whether MongoDB answers.
    pub async fn ping(&self) -> ApiResult<()> {
        self.db.run_command(doc! { "ping": 1 }).await?;
        Ok(())
    }

    fn coll(&self, name: &str) -> Collection<Document> {
        self.db.collection(name)
    }

    fn lock_for(&self, user: &UserKey) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|e| e.into_inner());
        if locks.len() > 10_000 {
            locks.retain(|_, l| Arc::strong_count(l) > 1);
        }
        locks.entry(user.clone()).or_default().clone()
    }
}

/// The filter every query of a user starts from.
pub(crate) fn owner(user: &UserKey) -> Document {
    doc! { "tenant": &user.tenant, "user_id": &user.user }
}

/// A stamp as a fixed-width string whose byte order is the stamp order, so MongoDB
/// comparisons (`$lt`, `$max`, sort) agree with the core's last-writer-wins.
pub(crate) fn stamp_key(s: Stamp) -> String {
    format!("{:016x}{:08x}{:016x}", (s.wall_ms as u64) ^ (1 << 63), s.counter, s.replica)
}

/// The stamp a [`stamp_key`] encodes.
pub(crate) fn parse_stamp_key(key: &str) -> Option<Stamp> {
    if key.len() != 40 || !key.is_ascii() {
        return None;
    }
    let wall = u64::from_str_radix(&key[..16], 16).ok()? ^ (1 << 63);
    Some(Stamp { wall_ms: wall as i64, counter: u32::from_str_radix(&key[16..24], 16).ok()?, replica: u64::from_str_radix(&key[24..], 16).ok()? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_keys_sort_like_stamps_and_parse_back() {
        let stamps = [
            Stamp { wall_ms: -5, counter: 0, replica: 9 },
            Stamp { wall_ms: 0, counter: 0, replica: 0 },
            Stamp { wall_ms: 1_700_000_000_000, counter: 0, replica: u64::MAX },
            Stamp { wall_ms: 1_700_000_000_000, counter: 1, replica: 0 },
            Stamp { wall_ms: 1_700_000_000_001, counter: 0, replica: 0 },
        ];
        for w in stamps.windows(2) {
            assert!(stamp_key(w[0]) < stamp_key(w[1]), "{:?} < {:?}", w[0], w[1]);
        }
        for s in stamps {
            assert_eq!(parse_stamp_key(&stamp_key(s)), Some(s));
        }
        assert_eq!(parse_stamp_key("zz"), None);
    }
}
