//! The engine snapshot: configuration, clock, embedder, every partition's records (with
//! embeddings), sessions and tombstones, forgotten users and unsent ops. Indexes are not
//! stored; they are rebuilt on load through the same code that builds them on write.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::ser::{self, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::codec::{check_source, seal_into, ByteSink, ByteSource, HEADER, PIECE, SNAPSHOT_MAGIC};
#[cfg(test)]
use crate::codec::seal;
use crate::config::Config;
use crate::store::partition::{Partition, Session};
use crate::store::ops::Op;
use crate::engram::{EmbedderInfo, Engram};
use crate::error::{Error, Result};
use crate::knowledge::graph::Graph;
use crate::hlc::{Hlc, Stamp};
use crate::model::{Record, UserKey};
use crate::context::tokens::Tokenizer;
use crate::index::vector::unit;

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
/// streaming reader ([`Engram::read_snapshot`]) must match it byte for byte (tested).
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
                PartitionOut { user: p.key(), records: RecordsOut(p), sessions: p.sessions().collect(), tombstones: p.tombstones(), graph: p.graph() }
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
        postcard::to_allocvec(&(partitions, forgotten)).map_err(super::failed(WHAT))
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
                let tombstones: Vec<(String, Stamp)> = p.tombstones().into_iter().map(|(k, v)| (k.clone(), *v)).collect();
                let mut records: Vec<Record> = p.iter().filter_map(|(s, _)| p.full_record(s)).collect();
                crate::sort::sort_by(&mut records, |a, b| a.id.cmp(&b.id));
                PartitionImage {
                    user: p.key().clone(),
                    records,
                    // An all-default session is the same as none (an entry made by a read
                    // or a refused write).
                    sessions: p.sessions().filter(|(_, v)| **v != Session::default()).map(|(k, v)| (k.clone(), v.clone())).collect(),
                    tombstones,
                    graph: p.graph().clone(),
                }
            })
            .filter(|p| !(p.records.is_empty() && p.sessions.is_empty() && p.tombstones.is_empty() && p.graph.is_empty()))
            .collect();
        let forgotten: Vec<(UserKey, Stamp)> = self.forgotten.iter().map(|(k, v)| (k.clone(), *v)).collect();
        (partitions, forgotten)
    }

    /// Rebuild an engine from [`Engram::snapshot`] bytes. The tokenizer is not part of a
    /// snapshot; set it again with [`Engram::set_tokenizer`].
    pub fn from_snapshot(bytes: &[u8]) -> Result<Self> {
        Self::read_snapshot(&mut &bytes[..])
    }

    /// Whether `src` holds a whole snapshot (magic, version, length and checksum), without
    /// decoding it: how a store checks the generation it keeps only to fall back on.
    pub fn check_snapshot(src: &mut impl ByteSource) -> Result<()> {
        check_source(SNAPSHOT_MAGIC, WHAT, src).map(|_| ())
    }

    /// [`Engram::from_snapshot`] from bytes held by `src`, read in pieces: the checksum
    /// first, then one value at a time — each record decoded and indexed as it arrives —
    /// so the engine's memory never holds the whole snapshot (the binding reads it out of
    /// a JS buffer this way; wasm memory never shrinks).
    pub fn read_snapshot(src: &mut impl ByteSource) -> Result<Self> {
        let len = check_source(SNAPSHOT_MAGIC, WHAT, src)?;
        let mut r = Reader { src, next: HEADER, end: HEADER + len, buf: Vec::new(), start: 0 };
        // Values next to each other in the layout are taken as one tuple where they are
        // small (postcard writes a tuple as its fields in order): fewer decoders in wasm.
        let (config, hlc, embedder, count): (Config, Hlc, Option<EmbedderInfo>, usize) = r.take()?;
        let dim = embedder.as_ref().map(|e| e.dim);
        let mut partitions = BTreeMap::new();
        for _ in 0..count {
            let p = r.partition(&config, dim)?;
            partitions.insert(p.key().clone(), p);
        }
        let (forgotten, pending): (Vec<(UserKey, Stamp)>, Vec<Op>) = r.take()?;
        r.finish()?;
        Ok(Engram {
            config,
            hlc,
            embedder,
            partitions,
            forgotten: crate::sort::map(forgotten),
            pending,
            tokenizer: Tokenizer::Heuristic,
            redaction_key: None,
            consolidation: Default::default(),
        })
    }
}

/// Decodes a snapshot's payload value by value (the layout of [`PartitionImage`]s in
/// order) from a window over the source that holds one piece, or one value when a value
/// is longer.
struct Reader<'s, S: ByteSource> {
    src: &'s mut S,
    /// The next source offset not yet in the window, and the payload's end.
    next: usize,
    end: usize,
    buf: Vec<u8>,
    /// Where the undecoded part of `buf` starts.
    start: usize,
}

impl<S: ByteSource> Reader<'_, S> {
    /// The next value; the window grows until it holds the whole value.
    fn take<T: DeserializeOwned>(&mut self) -> Result<T> {
        loop {
            match postcard::take_from_bytes::<T>(&self.buf[self.start..]) {
                Ok((value, rest)) => {
                    self.start = self.buf.len() - rest.len();
                    return Ok(value);
                }
                Err(postcard::Error::DeserializeUnexpectedEnd) if self.next < self.end => self.fill(),
                Err(e) => return Err(decode(e)),
            }
        }
    }

    /// Drop what was decoded and read the next piece (as much again as the window holds,
    /// when one value is longer than a piece).
    fn fill(&mut self) {
        self.buf.drain(..self.start);
        self.start = 0;
        let n = PIECE.max(self.buf.len()).min(self.end - self.next);
        self.src.read(self.next, n, &mut self.buf);
        self.next += n;
    }

    /// Bytes of the payload not decoded yet.
    fn remaining(&self) -> usize {
        self.end - self.next + self.buf.len() - self.start
    }

    /// One partition, its records put straight into it as they are decoded.
    fn partition(&mut self, config: &Config, dim: Option<usize>) -> Result<Partition> {
        let (user, records): (UserKey, usize) = self.take()?;
        let mut p = Partition::new(user);
        // With headroom: exactly n would double (and leave the old block as a hole) on the
        // first write after opening. Never more than the bytes left could hold.
        p.reserve(records.saturating_add(records / 4).min(self.remaining() / MIN_RECORD_BYTES));
        for _ in 0..records {
            let mut r: Record = self.take()?;
            if r.scope.user_key() != *p.key() {
                return Err(invalid(format!("record {} is filed under another user", r.id)));
            }
            if let Some(v) = r.embedding.take() {
                let dim = dim.unwrap_or(v.len());
                r.embedding = Some(unit(&v, dim).map_err(|e| invalid(format!("record {}: {e}", r.id)))?);
            }
            p.put(r, config);
        }
        let (sessions, tombstones, graph): PartitionTail = self.take()?;
        p.restore(sessions, tombstones, graph);
        Ok(p)
    }

    /// Every byte of the payload was decoded.
    fn finish(&self) -> Result<()> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(invalid(format!("{n} bytes after the last value"))),
        }
    }
}

/// What follows a partition's records: its sessions, tombstones and graph.
type PartitionTail = (Vec<(String, Session)>, Vec<(String, Stamp)>, Graph);

/// A record's smallest encoding is well over this (ids, scope, stamps, kind): a bound on
/// how many records the bytes left can hold, whatever count the input claims.
const MIN_RECORD_BYTES: usize = 16;

fn decode(e: postcard::Error) -> Error {
    super::failed(WHAT)(e)
}

fn invalid(reason: String) -> Error {
    Error::Decode { what: WHAT, reason }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MemoryInput, Scope};
    use crate::store::working::Turn;

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
                PartitionImage {
                    user: p.key().clone(),
                    records: p.iter().filter_map(|(s, _)| p.full_record(s)).collect(),
                    sessions: p.sessions().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    tombstones: p.tombstones().into_iter().map(|(k, v)| (k.clone(), *v)).collect(),
                    graph: p.graph().clone(),
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

    /// A source that records how it is read.
    struct Counting<'a> {
        bytes: &'a [u8],
        largest: usize,
        total: usize,
    }

    impl ByteSource for Counting<'_> {
        fn len(&self) -> usize {
            self.bytes.len()
        }
        fn read(&mut self, at: usize, n: usize, out: &mut Vec<u8>) {
            self.largest = self.largest.max(n);
            self.total += n;
            out.extend_from_slice(&self.bytes[at..at + n]);
        }
    }

    #[test]
    fn a_large_snapshot_is_read_a_piece_at_a_time_checksum_first() {
        let mut e = Engram::new(Config::default(), 3);
        let s = Scope::user("t", "ana");
        for i in 0..3_000 {
            e.remember(&s, MemoryInput::fact(format!("note {i}: the parcel {} went to shelf {}", i * 7, i % 13)), 1_764_000_000_000 + i).expect("write");
        }
        e.take_pending(); // as the SDK does after every write (unsent ops are one value)
        let bytes = e.snapshot().expect("snapshot");
        assert!(bytes.len() > 4 * PIECE, "the test needs several pieces: {}", bytes.len());
        let mut src = Counting { bytes: &bytes, largest: 0, total: 0 };
        let back = Engram::read_snapshot(&mut src).expect("restore");
        assert_eq!(back.canonical_state().expect("state"), e.canonical_state().expect("state"));
        assert!(src.largest <= PIECE, "largest read {}", src.largest);
        assert!(src.total <= 2 * bytes.len(), "read {} of {} bytes", src.total, bytes.len());
    }

    #[test]
    fn a_value_longer_than_a_piece_is_still_read_whole() {
        let mut e = Engram::new(Config { max_text_bytes: 4 * PIECE, ..Config::default() }, 3);
        let long = "word ".repeat(3 * PIECE / 5);
        e.remember(&Scope::user("t", "ana"), MemoryInput::fact(long.clone()), 1_764_000_000_000).expect("write");
        let back = Engram::from_snapshot(&e.snapshot().expect("snapshot")).expect("restore");
        assert_eq!(back.canonical_state().expect("state"), e.canonical_state().expect("state"));
    }

    #[test]
    fn a_checksummed_snapshot_claiming_more_records_than_it_holds_is_a_decode_error() {
        let e = busy_engine();
        let mut image = owned_image(&e);
        image.partitions.truncate(1);
        let mut payload = postcard::to_allocvec(&image).expect("encode");
        let user = postcard::to_allocvec(&image.partitions[0].user).expect("user");
        let head = postcard::to_allocvec(&(&image.config, &image.hlc, &image.embedder, 1u8)).expect("head");
        // The record count follows the partition's user: claim u32::MAX records.
        let at = head.len() + user.len();
        payload.splice(at..at + 1, [0xff, 0xff, 0xff, 0xff, 0x0f]);
        let mut bytes = Vec::new();
        bytes.extend_from_slice(SNAPSHOT_MAGIC);
        bytes.extend_from_slice(&crate::codec::FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        assert_eq!(Engram::from_snapshot(&bytes).map(|_| ()).map_err(|err| err.code()), Err("DECODE"));
    }

    #[test]
    fn checking_a_snapshot_accepts_it_whole_and_refuses_one_flipped_byte() {
        let e = Engram::new(Config::default(), 1);
        let mut bytes = e.snapshot().expect("snapshot");
        assert!(Engram::check_snapshot(&mut &bytes[..]).is_ok());
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x20;
        assert_eq!(Engram::check_snapshot(&mut &bytes[..]).map_err(|err| err.code()), Err("CHECKSUM"));
        assert!(Engram::check_snapshot(&mut &bytes[..mid]).is_err(), "a truncated snapshot is refused");
    }

    #[test]
    fn a_corrupt_snapshot_is_a_checksum_error_before_anything_is_decoded() {
        let mut bytes = busy_engine().snapshot().expect("snapshot");
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x40;
        assert_eq!(Engram::from_snapshot(&bytes).map(|_| ()).map_err(|err| err.code()), Err("CHECKSUM"));
        assert_eq!(Engram::from_snapshot(&bytes[..bytes.len() - 1]).map(|_| ()).map_err(|err| err.code()), Err("TRUNCATED"));
    }
}
