//! The engine snapshot: configuration, clock, embedder, every partition's records (with
//! embeddings), sessions and tombstones, forgotten users and unsent ops. Indexes are not
//! stored; they are rebuilt on load through the same code that builds them on write.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::codec::{open, seal, SNAPSHOT_MAGIC};
use crate::engine::config::Config;
use crate::engine::partition::{Partition, Session};
use crate::engine::sync::Op;
use crate::engine::{EmbedderInfo, Engram};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::hlc::{Hlc, Stamp};
use crate::model::{Record, UserKey};
use crate::tokens::Tokenizer;
use crate::vector::unit;

const WHAT: &str = "snapshot";

#[derive(Debug, Serialize, Deserialize)]
struct PartitionImage {
    user: UserKey,
    records: Vec<Record>,
    sessions: Vec<(String, Session)>,
    tombstones: Vec<(String, Stamp)>,
    graph: Graph,
}

#[derive(Serialize, Deserialize)]
struct Image {
    config: Config,
    hlc: Hlc,
    embedder: Option<EmbedderInfo>,
    partitions: Vec<PartitionImage>,
    forgotten: Vec<(UserKey, Stamp)>,
    pending: Vec<Op>,
}

impl Engram {
    /// The whole engine as versioned, checksummed bytes.
    pub fn snapshot(&self) -> Result<Vec<u8>> {
        let partitions = self
            .partitions
            .values()
            .map(|p| {
                let mut tombstones: Vec<(String, Stamp)> = p.tombstones.iter().map(|(k, v)| (k.clone(), *v)).collect();
                tombstones.sort();
                PartitionImage {
                    user: p.key.clone(),
                    records: p.iter().filter_map(|(s, _)| p.full_record(s)).collect(),
                    sessions: p.sessions.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    tombstones,
                    graph: p.graph.clone(),
                }
            })
            .collect();
        let image = Image {
            config: self.config.clone(),
            hlc: self.hlc.clone(),
            embedder: self.embedder.clone(),
            partitions,
            forgotten: self.forgotten.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            pending: self.pending.clone(),
        };
        seal(SNAPSHOT_MAGIC, WHAT, &image)
    }

    /// The replicated state only — records (with embeddings), sessions, tombstones, graphs,
    /// forgotten users — in a canonical order, without the clock, pending ops or config.
    /// Two replicas that have applied the same ops have equal canonical states; sync tests
    /// compare these bytes.
    pub fn canonical_state(&self) -> Result<Vec<u8>> {
        let (partitions, forgotten) = self.canonical_image();
        postcard::to_allocvec(&(partitions, forgotten)).map_err(|e| Error::Decode { what: WHAT, reason: e.to_string() })
    }

    /// [`Engram::canonical_state`] as readable text, to show how two replicas differ.
    pub fn canonical_state_text(&self) -> String {
        format!("{:#?}", self.canonical_image())
    }

    fn canonical_image(&self) -> (Vec<PartitionImage>, Vec<(UserKey, Stamp)>) {
        let partitions: Vec<PartitionImage> = self
            .partitions
            .values()
            .map(|p| {
                let mut tombstones: Vec<(String, Stamp)> = p.tombstones.iter().map(|(k, v)| (k.clone(), *v)).collect();
                tombstones.sort();
                let mut records: Vec<Record> = p.iter().filter_map(|(s, _)| p.full_record(s)).collect();
                records.sort_by(|a, b| a.id.cmp(&b.id));
                PartitionImage {
                    user: p.key.clone(),
                    records,
                    // An all-default session is the same as none (an entry made by a read
                    // or a refused write).
                    sessions: p.sessions.iter().filter(|(_, v)| **v != Session::default()).map(|(k, v)| (k.clone(), v.clone())).collect(),
                    tombstones,
                    graph: p.graph.clone(),
                }
            })
            .filter(|p| !(p.records.is_empty() && p.sessions.is_empty() && p.tombstones.is_empty() && p.graph.entities.is_empty()))
            .collect();
        let forgotten: Vec<(UserKey, Stamp)> = self.forgotten.iter().map(|(k, v)| (k.clone(), *v)).collect();
        (partitions, forgotten)
    }

    /// Rebuild an engine from [`Engram::snapshot`] bytes. The tokenizer is not part of a
    /// snapshot; set it again with [`Engram::set_tokenizer`].
    pub fn from_snapshot(bytes: &[u8]) -> Result<Self> {
        let image: Image = open(SNAPSHOT_MAGIC, WHAT, bytes)?;
        let bad = |reason: String| Error::Decode { what: WHAT, reason };
        let mut partitions = BTreeMap::new();
        for pi in image.partitions {
            let mut p = Partition::new(pi.user.clone());
            for mut r in pi.records {
                if r.scope.user_key() != pi.user {
                    return Err(bad(format!("record {} is filed under another user", r.id)));
                }
                if let Some(v) = r.embedding.take() {
                    let dim = image.embedder.as_ref().map_or(v.len(), |e| e.dim);
                    r.embedding = Some(unit(&v, dim).map_err(|e| bad(format!("record {}: {e}", r.id)))?);
                }
                p.put(r, &image.config);
            }
            p.sessions = pi.sessions.into_iter().collect();
            p.tombstones = pi.tombstones.into_iter().collect();
            p.graph = pi.graph;
            partitions.insert(pi.user, p);
        }
        Ok(Engram {
            config: image.config,
            hlc: image.hlc,
            embedder: image.embedder,
            partitions,
            forgotten: image.forgotten.into_iter().collect(),
            pending: image.pending,
            tokenizer: Tokenizer::Heuristic,
            redaction_key: None,
        })
    }
}
