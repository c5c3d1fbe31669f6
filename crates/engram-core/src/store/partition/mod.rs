//! One user's partition: records by slot, and the indexes over them. Slots are never
//! reused within a partition's lifetime, so an index entry can never point at the wrong
//! record.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::read::cues::TextCues;
use crate::read::dated::Period;
pub use crate::store::session::Session;
use crate::read::timeline::Timeline;
use crate::knowledge::graph::Graph;
use crate::hlc::{Millis, Stamp};
use crate::index::lexical::Bm25;
use crate::model::{FactKey, Kind, Layer, Record, UserKey};
use crate::index::vector::VectorIndex;

/// An unkeyed fact at least this important describes the user (health 0.9; identity,
/// family and dates 0.85; work, place and study 0.8 — the extractor's tiers), beside the
/// keyed facts whose newest value always does (see `crate::profile`).
pub const PROFILE_IMPORTANCE: f32 = 0.8;

/// What recall filters on, per slot, packed so that filtering 100k candidates touches
/// 16 bytes each instead of whole records.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotMeta {
    pub kind: Kind,
    pub layer: Layer,
    /// Stored, not superseded.
    pub current: bool,
    /// `Millis::MAX` when the record has no TTL.
    pub expires_at: Millis,
    /// The model's words (a turn with `Source::Assistant`): a message of its session,
    /// never a memory that recall returns unless asked for by kind.
    pub from_model: bool,
    /// A fact or preference that describes the user whatever is asked: keyed, or at least
    /// [`PROFILE_IMPORTANCE`] (the profile and the context read these slots without
    /// touching the records).
    pub describes_user: bool,
}

impl SlotMeta {
    const GONE: SlotMeta = SlotMeta { kind: Kind::Message, layer: Layer::Working, current: false, expires_at: Millis::MIN, from_model: false, describes_user: false };

    fn of(r: &Record) -> Self {
        let describes_user = matches!(r.kind, Kind::Fact | Kind::Preference) && !r.pending_review && (r.key.is_some() || r.importance >= PROFILE_IMPORTANCE);
        SlotMeta {
            kind: r.kind,
            layer: r.layer,
            current: r.is_current(),
            expires_at: r.expires_at.unwrap_or(Millis::MAX),
            from_model: r.kind == Kind::Message && r.source == crate::model::Source::Assistant,
            describes_user,
        }
    }

    /// Current and not expired at `now`.
    #[inline]
    pub fn live(&self, now: Millis) -> bool {
        self.current && self.expires_at > now
    }
}

mod merge;
mod write;

/// The records a search runs over: a user's memories, or the chunks of their archived
/// documents. Each has its own lexical and vector index, so that 50k chunks neither cost
/// memory recall a scan nor change its word statistics, and memories do not crowd chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    Memories = 0,
    Archive = 1,
}

impl Pool {
    /// The pool records of `kind` are searched in.
    pub fn of(kind: Kind) -> Pool {
        if kind.is_archival() {
            Pool::Archive
        } else {
            Pool::Memories
        }
    }

    /// Both pools.
    pub const ALL: [Pool; 2] = [Pool::Memories, Pool::Archive];
}

/// One user's records and indexes, and the replicated state filed under the user
/// (sessions, tombstones, graph). Ops are merged by the methods in [`merge`]; readers go
/// through accessors.
#[derive(Debug)]
pub struct Partition {
    key: UserKey,
    records: Vec<Option<Record>>,
    meta: Vec<SlotMeta>,
    /// Per slot, what its text offers to a query's cues (read once, when stored).
    cues: Vec<TextCues>,
    /// How many stored texts each speaker (a [`TextCues`] speaker) wrote, so a query knows
    /// whether naming one can boost anything.
    speakers: FxHashMap<Box<str>, u32>,
    /// Per slot, a weight read from its text once asked for (see [`Partition::weight`]).
    weights: Vec<std::sync::OnceLock<f32>>,
    by_id: FxHashMap<String, u32>,
    by_hash: FxHashMap<u64, Vec<u32>>,
    by_key: FxHashMap<FactKey, Vec<u32>>,
    /// The lexical index of current records, per [`Pool`].
    bm25: [Bm25; 2],
    timeline: Timeline,
    /// The vector index of current records, per [`Pool`] (read through [`Partition::vectors`]).
    vectors: [Option<VectorIndex>; 2],
    /// Working memory by session name ([`Partition::session`], [`Partition::session_mut`],
    /// [`Partition::sessions`]).
    sessions: BTreeMap<String, Session>,
    tombstones: FxHashMap<String, Stamp>,
    graph: Graph,
    /// Stored document chunks (so recall of memories can skip document search cheaply).
    chunks: usize,
}

impl Partition {
    /// An empty partition.
    pub fn new(key: UserKey) -> Self {
        Partition {
            key,
            records: Vec::new(),
            meta: Vec::new(),
            cues: Vec::new(),
            speakers: FxHashMap::default(),
            weights: Vec::new(),
            by_id: FxHashMap::default(),
            by_hash: FxHashMap::default(),
            by_key: FxHashMap::default(),
            bm25: [Bm25::new(), Bm25::new()],
            timeline: Timeline::default(),
            vectors: [None, None],
            sessions: BTreeMap::new(),
            tombstones: FxHashMap::default(),
            graph: Graph::default(),
            chunks: 0,
        }
    }

    /// The user this partition holds.
    pub fn key(&self) -> &UserKey {
        &self.key
    }

    /// The lexical index over the pool's current records.
    pub fn bm25(&self, pool: Pool) -> &Bm25 {
        &self.bm25[pool as usize]
    }

    /// The vector index over the pool's current records with an embedding, once one has
    /// arrived.
    pub fn vectors(&self, pool: Pool) -> Option<&VectorIndex> {
        self.vectors[pool as usize].as_ref()
    }

    /// The pool's vector index, to compact or rebuild it.
    pub fn vectors_mut(&mut self, pool: Pool) -> Option<&mut VectorIndex> {
        self.vectors[pool as usize].as_mut()
    }

    /// The user's graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The session named `name`, if it holds anything.
    pub fn session(&self, name: &str) -> Option<&Session> {
        self.sessions.get(name)
    }

    /// Every session, by name.
    pub fn sessions(&self) -> impl Iterator<Item = (&String, &Session)> {
        self.sessions.iter()
    }

    /// The session named `name`, made empty when absent.
    pub fn session_mut(&mut self, name: String) -> &mut Session {
        self.sessions.entry(name).or_default()
    }

    /// The stamp of the delete of `id`, if it was deleted.
    pub fn tombstone(&self, id: &str) -> Option<Stamp> {
        self.tombstones.get(id).copied()
    }

    /// Deleted ids with the stamp of their delete, sorted by id.
    pub fn tombstones(&self) -> Vec<(&String, &Stamp)> {
        let mut t: Vec<(&String, &Stamp)> = self.tombstones.iter().collect();
        crate::sort::sort(&mut t);
        t
    }

    /// True when `id` was deleted (its tombstone is held).
    pub fn is_deleted(&self, id: &str) -> bool {
        self.tombstones.contains_key(id)
    }

    /// Put back what a snapshot holds beside the records: sessions, tombstones, graph.
    pub fn restore(&mut self, sessions: Vec<(String, Session)>, tombstones: Vec<(String, Stamp)>, graph: Graph) {
        self.sessions = crate::sort::map(sessions);
        self.tombstones = tombstones.into_iter().collect();
        self.graph = graph;
    }

    /// Make room for `n` more records at once (a snapshot being loaded knows its count):
    /// no doubling growth, and no freed halves left behind in memory that never shrinks.
    pub fn reserve(&mut self, n: usize) {
        self.records.reserve_exact(n);
        self.meta.reserve_exact(n);
        self.cues.reserve_exact(n);
        self.weights.reserve_exact(n);
        self.by_id.reserve(n);
        self.by_hash.reserve(n);
    }

    /// Number of stored document chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks
    }

    /// Number of stored records (including superseded versions).
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when no records are stored.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The slot of `id`.
    pub fn slot_of(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    /// The record in `slot`.
    pub fn at(&self, slot: u32) -> Option<&Record> {
        self.records.get(slot as usize).and_then(Option::as_ref)
    }

    /// The packed metadata of `slot`.
    #[inline]
    pub fn meta(&self, slot: u32) -> SlotMeta {
        self.meta.get(slot as usize).copied().unwrap_or(SlotMeta::GONE)
    }

    /// What the text in `slot` offers to a query's cues (see [`TextCues`]).
    #[inline]
    pub fn cues(&self, slot: u32) -> Option<&TextCues> {
        self.records.get(slot as usize)?.as_ref()?;
        self.cues.get(slot as usize)
    }

    /// A weight of the record in `slot` that is costly to read from its text (a turn's,
    /// through the rule extractor: consolidation asks it of the same turns at each append
    /// and each context), computed by `read` once and kept until the record changes.
    pub fn weight(&self, slot: u32, read: impl FnOnce(&Record) -> f32) -> Option<f32> {
        let rec = self.at(slot)?;
        Some(*self.weights.get(slot as usize)?.get_or_init(|| read(rec)))
    }

    /// True when some stored text was written by `name` (a lowercased first word, as
    /// [`TextCues`] reads speakers).
    pub fn has_speaker(&self, name: &str) -> bool {
        self.speakers.contains_key(name)
    }

    /// Slots whose metadata satisfies `f`, without touching the records.
    pub fn slots_where<'a>(&'a self, f: impl Fn(SlotMeta) -> bool + 'a) -> impl Iterator<Item = u32> + 'a {
        self.meta.iter().enumerate().filter(move |(_, m)| f(**m)).map(|(i, _)| i as u32)
    }

    /// The record with `id`.
    pub fn get(&self, id: &str) -> Option<&Record> {
        self.slot_of(id).and_then(|s| self.at(s))
    }

    /// Every stored record, in slot (insertion) order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Record)> {
        self.records.iter().enumerate().filter_map(|(i, r)| r.as_ref().map(|r| (i as u32, r)))
    }

    /// Slots of current (not superseded) memories whose normalized text hashes to `h`.
    pub fn with_hash(&self, h: u64) -> &[u32] {
        self.by_hash.get(&h).map_or(&[], Vec::as_slice)
    }

    /// Slots of every version stored under `key`.
    pub fn with_key(&self, key: &FactKey) -> &[u32] {
        self.by_key.get(key).map_or(&[], Vec::as_slice)
    }

    /// Every fact key in the partition.
    pub fn keys(&self) -> impl Iterator<Item = (&FactKey, &Vec<u32>)> {
        self.by_key.iter()
    }

    /// True when `slot` may appear in recall at `now`: current, unexpired.
    pub fn is_recallable(&self, slot: u32, now: Millis) -> bool {
        self.meta(slot).live(now)
    }

    /// The current records said together with the one in `slot` (see [`Timeline::around`]):
    /// up to `radius` on each side, in its scope, at most `gap` apart; nearest first.
    pub fn said_around(&self, slot: u32, radius: usize, gap: Millis) -> Vec<(u32, usize)> {
        let Some(rec) = self.at(slot) else { return Vec::new() };
        self.timeline.around(slot, radius, gap, |s| self.at(s).is_some_and(|r| r.scope == rec.scope))
    }

    /// The current records written within `period`, those nearest its middle first (its
    /// edges are slack: "yesterday" reaches into today).
    pub fn written_within(&self, period: Period) -> impl Iterator<Item = u32> + '_ {
        self.timeline.nearest_within(period.from, period.to, period.from / 2 + period.to / 2)
    }

    /// The record with its embedding re-attached (for ops and snapshots).
    pub fn full_record(&self, slot: u32) -> Option<Record> {
        let mut r = self.at(slot)?.clone();
        r.embedding = self.vectors(Pool::of(r.kind)).and_then(|v| v.get(slot));
        Some(r)
    }
}
