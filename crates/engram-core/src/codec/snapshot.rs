//! The engine snapshot: configuration, clock, embedder, every partition's records (with
//! embeddings), sessions and tombstones, forgotten users and unsent ops. Indexes are not
//! stored; they are rebuilt on load through the same code that builds them on write.

use std::collections::BTreeMap;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::ser::{self, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::codec::{payload, seal_into, ByteSink, SNAPSHOT_MAGIC};
#[cfg(test)]
use crate::codec::seal;
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

/// The snapshot's layout as one owned value; the borrowed writer ([`ImageOut`]) and the
/// streaming reader ([`ImageIn`]) must match it byte for byte (tested).
#[cfg(test)]
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
    /// The whole engine as versioned, checksummed bytes. Written from the engine's own
    /// state, one record at a time, straight into a buffer of the exact size: the peak is
    /// the snapshot itself plus one record, not a copy of the whole state.
    pub fn snapshot(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_snapshot(&mut out)?;
        Ok(out)
    }

    /// [`Engram::snapshot`]'s bytes handed to `sink` in pieces (the binding copies them
    /// straight into a JS buffer, so the snapshot never sits whole in wasm memory).
    pub fn write_snapshot(&self, sink: &mut impl ByteSink) -> Result<()> {
        let partitions: Vec<PartitionOut<'_>> = self
            .partitions
            .values()
            .map(|p| {
                let mut tombstones: Vec<(&String, &Stamp)> = p.tombstones.iter().collect();
                tombstones.sort();
                PartitionOut { user: &p.key, records: RecordsOut(p), sessions: p.sessions.iter().collect(), tombstones, graph: &p.graph }
            })
            .collect();
        let image = ImageOut {
            config: &self.config,
            hlc: &self.hlc,
            embedder: &self.embedder,
            partitions,
            forgotten: self.forgotten.iter().collect(),
            pending: &self.pending,
        };
        seal_into(SNAPSHOT_MAGIC, WHAT, &image, sink)
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
    /// snapshot; set it again with [`Engram::set_tokenizer`]. Records are decoded and
    /// indexed one at a time (never the whole decoded image at once beside the indexes).
    pub fn from_snapshot(bytes: &[u8]) -> Result<Self> {
        let payload = payload(SNAPSHOT_MAGIC, WHAT, bytes)?;
        let image: ImageIn = postcard::from_bytes(payload).map_err(|e| Error::Decode { what: WHAT, reason: e.to_string() })?;
        Ok(Engram {
            config: image.config,
            hlc: image.hlc,
            embedder: image.embedder,
            partitions: image.partitions,
            forgotten: image.forgotten.into_iter().collect(),
            pending: image.pending,
            tokenizer: Tokenizer::Heuristic,
            redaction_key: None,
        })
    }
}

/// What [`Engram::snapshot`] writes: the same layout as [`PartitionImage`], borrowed.
#[derive(Serialize)]
struct ImageOut<'a> {
    config: &'a Config,
    hlc: &'a Hlc,
    embedder: &'a Option<EmbedderInfo>,
    partitions: Vec<PartitionOut<'a>>,
    forgotten: Vec<(&'a UserKey, &'a Stamp)>,
    pending: &'a [Op],
}

#[derive(Serialize)]
struct PartitionOut<'a> {
    user: &'a UserKey,
    records: RecordsOut<'a>,
    sessions: Vec<(&'a String, &'a Session)>,
    tombstones: Vec<(&'a String, &'a Stamp)>,
    graph: &'a Graph,
}

/// A partition's records, each with its embedding re-attached as it is written.
struct RecordsOut<'a>(&'a Partition);

impl Serialize for RecordsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let p = self.0;
        let mut seq = s.serialize_seq(Some(p.iter().count()))?;
        for (slot, _) in p.iter() {
            match p.full_record(slot) {
                Some(r) => seq.serialize_element(&r)?,
                None => return Err(ser::Error::custom("a record slot vanished while writing")),
            }
        }
        seq.end()
    }
}

/// What [`Engram::from_snapshot`] reads: the image, with every partition rebuilt as its
/// records are decoded.
struct ImageIn {
    config: Config,
    hlc: Hlc,
    embedder: Option<EmbedderInfo>,
    partitions: BTreeMap<UserKey, Partition>,
    forgotten: Vec<(UserKey, Stamp)>,
    pending: Vec<Op>,
}

fn missing<E: de::Error>(what: &'static str) -> E {
    E::custom(format!("missing {what}"))
}

impl<'de> Deserialize<'de> for ImageIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ImageIn;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an engram snapshot")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<ImageIn, A::Error> {
                let config: Config = a.next_element()?.ok_or_else(|| missing("config"))?;
                let hlc = a.next_element()?.ok_or_else(|| missing("clock"))?;
                let embedder: Option<EmbedderInfo> = a.next_element()?.ok_or_else(|| missing("embedder"))?;
                let dim = embedder.as_ref().map(|e| e.dim);
                let partitions = a.next_element_seed(Partitions { config: &config, dim })?.ok_or_else(|| missing("partitions"))?;
                let forgotten = a.next_element()?.ok_or_else(|| missing("forgotten users"))?;
                let pending = a.next_element()?.ok_or_else(|| missing("pending ops"))?;
                Ok(ImageIn { config, hlc, embedder, partitions, forgotten, pending })
            }
        }
        d.deserialize_struct("Image", &["config", "hlc", "embedder", "partitions", "forgotten", "pending"], V)
    }
}

/// Decodes the partitions, each into a live [`Partition`].
struct Partitions<'c> {
    config: &'c Config,
    dim: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for Partitions<'_> {
    type Value = BTreeMap<UserKey, Partition>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Partitions<'_> {
    type Value = BTreeMap<UserKey, Partition>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("partitions")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(p) = a.next_element_seed(OnePartition { config: self.config, dim: self.dim })? {
            out.insert(p.key.clone(), p);
        }
        Ok(out)
    }
}

struct OnePartition<'c> {
    config: &'c Config,
    dim: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for OnePartition<'_> {
    type Value = Partition;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Partition, D::Error> {
        d.deserialize_struct("PartitionImage", &["user", "records", "sessions", "tombstones", "graph"], self)
    }
}

impl<'de> Visitor<'de> for OnePartition<'_> {
    type Value = Partition;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a partition")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Partition, A::Error> {
        let user: UserKey = a.next_element()?.ok_or_else(|| missing("user"))?;
        let mut p = Partition::new(user);
        a.next_element_seed(Records { p: &mut p, config: self.config, dim: self.dim })?.ok_or_else(|| missing("records"))?;
        let sessions: Vec<(String, Session)> = a.next_element()?.ok_or_else(|| missing("sessions"))?;
        let tombstones: Vec<(String, Stamp)> = a.next_element()?.ok_or_else(|| missing("tombstones"))?;
        p.sessions = sessions.into_iter().collect();
        p.tombstones = tombstones.into_iter().collect();
        p.graph = a.next_element()?.ok_or_else(|| missing("graph"))?;
        Ok(p)
    }
}

/// Puts each decoded record straight into its partition.
struct Records<'p, 'c> {
    p: &'p mut Partition,
    config: &'c Config,
    dim: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for Records<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Records<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("records")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> std::result::Result<(), A::Error> {
        if let Some(n) = a.size_hint() {
            // With headroom: exactly n would double (and leave the old block as a hole) on
            // the first write after opening.
            self.p.reserve(n + n / 4);
        }
        while let Some(mut r) = a.next_element::<Record>()? {
            if r.scope.user_key() != self.p.key {
                return Err(de::Error::custom(format!("record {} is filed under another user", r.id)));
            }
            if let Some(v) = r.embedding.take() {
                let dim = self.dim.unwrap_or(v.len());
                r.embedding = Some(unit(&v, dim).map_err(|e| de::Error::custom(format!("record {}: {e}", r.id)))?);
            }
            self.p.put(r, self.config);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MemoryInput, Scope};
    use crate::engine::working::Turn;

    fn busy_engine() -> Engram {
        let mut e = Engram::new(Config::default(), 7);
        let t0 = 1_764_000_000_000;
        for (i, user) in ["ana", "ben"].iter().enumerate() {
            let s = Scope::user("t", *user).with_session("s1");
            e.remember(&s, MemoryInput::fact(format!("{user} prefers tea number {i}")).with_key(*user, "drink"), t0).expect("fact");
            e.remember(&s, MemoryInput::fact(format!("{user} switched to coffee")).with_key(*user, "drink"), t0 + 10).expect("newer");
            e.remember(&s, MemoryInput::fact("Lives in Lisbon").with_embedding(vec![0.5, -0.25, 1.0]), t0 + 20).expect("vector");
            e.append_turn(&s, Turn::user("hello there, how are you"), t0 + 30).expect("turn");
            e.session_set(&s, "mood", "fine", t0 + 40).expect("state");
            let gone = e.remember(&s, MemoryInput::fact("to be deleted"), t0 + 50).expect("doomed").id;
            e.forget(&s, &gone, t0 + 60).expect("forget");
        }
        e
    }

    fn owned_image(e: &Engram) -> Image {
        let partitions = e
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
        Image {
            config: e.config.clone(),
            hlc: e.hlc.clone(),
            embedder: e.embedder.clone(),
            partitions,
            forgotten: e.forgotten.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            pending: e.pending.clone(),
        }
    }

    #[test]
    fn the_borrowed_writer_produces_the_owned_layout_byte_for_byte() {
        let e = busy_engine();
        let written = e.snapshot().expect("snapshot");
        let owned = postcard::to_allocvec(&owned_image(&e)).expect("owned");
        assert_eq!(&written[written.len() - owned.len()..], &owned[..]);
        assert_eq!(written.capacity(), written.len(), "the buffer is sized exactly");
    }

    #[test]
    fn the_streaming_reader_rebuilds_what_the_owned_layout_decodes_to() {
        let e = busy_engine();
        let back = Engram::from_snapshot(&e.snapshot().expect("snapshot")).expect("restore");
        assert_eq!(back.canonical_state().expect("state"), e.canonical_state().expect("state"));
        assert_eq!(back.snapshot().expect("again"), e.snapshot().expect("again"));
        let owned: Image = postcard::from_bytes(&postcard::to_allocvec(&owned_image(&e)).expect("owned")).expect("decode");
        assert_eq!(owned.partitions.len(), back.partitions.len());
    }

    #[test]
    fn a_record_filed_under_another_user_is_a_decode_error() {
        let e = busy_engine();
        let mut image = owned_image(&e);
        image.partitions[0].records[0].scope.user = "mallory".into();
        let bytes = seal(SNAPSHOT_MAGIC, WHAT, &image).expect("seal");
        assert_eq!(Engram::from_snapshot(&bytes).map(|_| ()).map_err(|err| err.code()), Err("DECODE"));
    }
}
