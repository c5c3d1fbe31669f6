//! `Engram`, one replica's memory: partitions per user, the change log, and the clock. Its
//! methods live in the folders named by what happens to a memory there (`write`, `store`, `read`,
//! `context`, `knowledge`, `consolidate`, `sync`): this file is the façade, holding only the state.
//!
//! ```
//! use engram_core::{Engram, Config, MemoryInput, Scope, RecallQuery};
//! let mut mem = Engram::new(Config::default(), 1);
//! let alice = Scope::user("acme", "alice");
//! let now = 1_700_000_000_000;
//! mem.remember(&alice, MemoryInput::fact("Alice is allergic to peanuts").with_key("alice", "allergy"), now).unwrap();
//! let hits = mem.recall(&alice, &RecallQuery::text("what is alice allergic to"), now).unwrap();
//! assert_eq!(hits.hits[0].record.text, "Alice is allergic to peanuts");
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::hlc::{Hlc, Millis, Stamp};
use crate::model::{Kind, Record, Scope, UserKey};
use crate::pii::RedactionKey;
use crate::context::tokens::{TokenCount, Tokenizer};
use crate::config::Config;
use crate::consolidate::settings::Consolidation;
use crate::store::partition::{Partition, Pool};
use crate::store::ops::Op;

/// Which embedder produced the vectors of this store. Mixing embedders is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedderInfo {
    pub id: String,
    pub dim: usize,
}

/// A memory engine: every user's partition, the replica's clock and pending ops.
#[derive(Debug)]
pub struct Engram {
    pub(crate) config: Config,
    pub(crate) hlc: Hlc,
    pub(crate) embedder: Option<EmbedderInfo>,
    pub(crate) partitions: BTreeMap<UserKey, Partition>,
    /// Users forgotten, with the stamp of the forget op: older ops for them are refused.
    pub(crate) forgotten: BTreeMap<UserKey, Stamp>,
    /// Ops made locally and not yet taken by the SDK.
    pub(crate) pending: Vec<Op>,
    pub(crate) tokenizer: Tokenizer,
    /// The user's key for reversible redaction. Held in memory only: never in the config,
    /// snapshots or ops.
    pub(crate) redaction_key: Option<RedactionKey>,
    /// What consolidation does (off by default). Like the tokenizer, not in snapshots: the
    /// caller gives it to every engine it opens (see [`consolidate`]).
    pub(crate) consolidation: Consolidation,
}

/// Which records `list` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListFilter {
    /// Only these kinds (all but documents and their chunks when empty).
    pub kinds: Vec<Kind>,
    /// Include every version: those replaced by newer facts, rejected and under review
    /// (the audit trail).
    pub include_superseded: bool,
    /// Include memories whose TTL has passed.
    pub include_expired: bool,
    /// Only the values waiting for review (conflicts flagged by the policy).
    pub pending_review: bool,
}

impl Engram {
    /// A new, empty engine for replica `replica` (a random id chosen once per device by the SDK).
    pub fn new(config: Config, replica: u64) -> Self {
        Engram {
            config,
            hlc: Hlc::new(replica),
            embedder: None,
            partitions: BTreeMap::new(),
            forgotten: BTreeMap::new(),
            pending: Vec::new(),
            tokenizer: Tokenizer::Heuristic,
            redaction_key: None,
            consolidation: Consolidation::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Replace the configuration — a store restored from a snapshot carries the settings
    /// it was saved with, and the caller's settings must win over them. Refused, with the
    /// engine unchanged, when a number is invalid ([`Config::validate`]) or when `precision`
    /// differs from the store's while it holds vectors (they are stored at that precision).
    /// The vector indexes of users already loaded keep the ANN settings they were made with.
    pub fn set_config(&mut self, config: Config) -> Result<()> {
        config.validate()?;
        if config.precision != self.config.precision && self.has_vectors() {
            return Err(Error::invalid(
                "precision",
                format!("this store keeps its vectors as {:?}; open a new store for {:?}", self.config.precision, config.precision),
            ));
        }
        self.config = config;
        Ok(())
    }

    /// This replica's id.
    pub fn replica(&self) -> u64 {
        self.hlc.replica()
    }

    /// Issue this engine's stamps (and new ids) as `replica` from now on, keeping its
    /// clock. The SDK picks a fresh replica for every open instance: a snapshot carries
    /// the clock of the instance that wrote it, and two instances (or a copied store)
    /// continuing one stream would hand out the same ids.
    pub fn set_replica(&mut self, replica: u64) {
        self.hlc = self.hlc.clone().with_replica(replica);
    }

    /// Use `tokenizer` for budgets from now on.
    pub fn set_tokenizer(&mut self, tokenizer: Tokenizer) {
        self.tokenizer = tokenizer;
    }

    /// The tokenizer in use.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Count tokens with the current tokenizer, saying whether the count is exact.
    pub fn count_tokens(&self, text: &str) -> TokenCount {
        self.tokenizer.count(text)
    }

    /// Declare the embedder. Refused if vectors of another embedder are stored.
    pub fn set_embedder(&mut self, info: EmbedderInfo) -> Result<()> {
        if info.dim == 0 || info.dim > 8192 {
            return Err(Error::invalid("embedder.dim", "must be between 1 and 8192"));
        }
        match &self.embedder {
            Some(cur) if *cur != info && self.has_vectors() => Err(Error::invalid(
                "embedder",
                format!("this store holds {}-d vectors from {:?}; open a new store for {:?}", cur.dim, cur.id, info.id),
            )),
            _ => {
                self.embedder = Some(info);
                Ok(())
            }
        }
    }

    /// Make redaction reversible with the user's key from now on (`None`: irreversible).
    /// The key stays in memory; reveal with [`RedactionKey::reveal`] or [`Engram::reveal`].
    pub fn set_redaction_key(&mut self, key: Option<RedactionKey>) {
        self.redaction_key = key;
    }

    /// A record's text with its sealed PII values opened by `key`.
    pub fn reveal(&self, scope: &Scope, id: &str, key: &RedactionKey) -> Result<String> {
        let p = self.partition(scope)?.ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let r = p.slot_of(id).and_then(|s| p.at(s)).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        key.reveal(&r.text, &r.sealed)
    }

    /// The declared embedder.
    pub fn embedder(&self) -> Option<&EmbedderInfo> {
        self.embedder.as_ref()
    }

    fn has_vectors(&self) -> bool {
        self.partitions.values().any(|p| Pool::ALL.iter().any(|&pool| p.vectors(pool).is_some_and(|v| !v.is_empty())))
    }

    pub(crate) fn partition(&self, scope: &Scope) -> Result<Option<&Partition>> {
        scope.validate()?;
        Ok(self.partitions.get(&scope.user_key()))
    }

    pub(crate) fn partition_mut(&mut self, scope: &Scope) -> Result<&mut Partition> {
        scope.validate()?;
        let key = scope.user_key();
        Ok(self.partitions.entry(key.clone()).or_insert_with(|| Partition::new(key)))
    }

    /// What is remembered about the scope's user (transparency), oldest first.
    pub fn list(&self, scope: &Scope, filter: &ListFilter, now: Millis) -> Result<Vec<Record>> {
        Ok(Engram::list_in(self.partition(scope)?, filter, now))
    }

    /// [`Engram::list`] of partition `p` (the caller chose and checked it).
    pub(crate) fn list_in(p: Option<&Partition>, filter: &ListFilter, now: Millis) -> Vec<Record> {
        let Some(p) = p else { return Vec::new() };
        let mut out: Vec<Record> = p
            .iter()
            .map(|(_, r)| r)
            .filter(|r| if filter.kinds.is_empty() { !r.kind.is_archival() } else { filter.kinds.contains(&r.kind) })
            .filter(|r| if filter.pending_review { r.pending_review } else { filter.include_superseded || r.is_current() })
            .filter(|r| filter.include_expired || !r.is_expired(now))
            .cloned()
            .collect();
        crate::sort::sort_by(&mut out, |a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        out
    }

    /// One record of the scope's user, with its embedding.
    pub fn get(&self, scope: &Scope, id: &str) -> Result<Record> {
        let p = self.partition(scope)?.ok_or_else(|| Error::NotFound(id.to_owned()))?;
        p.slot_of(id).and_then(|s| p.full_record(s)).ok_or_else(|| Error::NotFound(id.to_owned()))
    }

    /// Number of records stored for the scope's user.
    pub fn count(&self, scope: &Scope) -> Result<usize> {
        Ok(self.partition(scope)?.map_or(0, Partition::len))
    }

    /// True when the user's vector index is past the ANN threshold and should be rebuilt
    /// (a native host calls [`Engram::rebuild_index`] when idle; the wasm binding does not
    /// bind it: in wasm, vector search is the exact scan at every size).
    pub fn needs_index_rebuild(&self, scope: &Scope) -> Result<bool> {
        Ok(self.partition(scope)?.is_some_and(|p| Pool::ALL.iter().any(|&pool| p.vectors(pool).is_some_and(|v| v.needs_ann_rebuild()))))
    }

    /// Compact the user's vector index and (above the threshold) build its HNSW main index.
    pub fn rebuild_index(&mut self, scope: &Scope) -> Result<()> {
        let p = self.partition_mut(scope)?;
        for pool in Pool::ALL {
            if let Some(v) = p.vectors_mut(pool) {
                v.rebuild();
            }
        }
        Ok(())
    }

    /// Issue a stamp and a fresh record id.
    pub(crate) fn next_stamp(&mut self, now: Millis) -> Stamp {
        self.hlc.tick(now)
    }
}

/// Record ids made from a stamp: unique per replica, roughly time-ordered.
pub(crate) fn id_from_stamp(s: Stamp) -> String {
    format!("m{:011x}{:04x}{:016x}", s.wall_ms.max(0), s.counter, s.replica)
}
