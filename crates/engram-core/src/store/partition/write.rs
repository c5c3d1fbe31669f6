//! How a partition's records change: stored (and indexed in their pool), updated in place,
//! removed, and re-read after a snapshot — every index kept in step with the records.

use crate::config::Config;
use crate::read::cues::TextCues;
use crate::model::{Kind, Record};
use crate::text::{content_hash, normalize};
use crate::index::vector::VectorIndex;

use super::{Partition, Pool, SlotMeta};

impl Partition {
    /// Store `record` (its embedding, already unit-length, goes to the vector index) and
    /// index it. Replaces a record with the same id.
    pub fn put(&mut self, mut record: Record, config: &Config) -> u32 {
        if let Some(slot) = self.by_id.remove(&record.id) {
            self.detach(slot);
        }
        let slot = self.records.len() as u32;
        let embedding = record.embedding.take();
        let current = !record.is_superseded();
        let pool = Pool::of(record.kind) as usize;
        if current {
            if let Some(v) = &embedding {
                let ix = self.vectors[pool].get_or_insert_with(|| {
                    VectorIndex::new(v.len(), config.precision, config.ann_threshold, config.ann)
                });
                ix.insert(slot, v);
            }
            // A document record is its chunk list: not searched. Chunks are not said
            // together with anything: they stay out of the timeline.
            if record.kind != Kind::Document {
                self.bm25[pool].add(slot, &record.text);
            }
            if !record.kind.is_archival() {
                self.timeline.insert(&record, slot);
            }
            if record.kind.is_memory() {
                self.by_hash.entry(content_hash(&normalize(&record.text))).or_default().push(slot);
            }
        }
        if let Some(k) = &record.key {
            self.by_key.entry(k.clone()).or_default().push(slot);
        }
        self.by_id.insert(record.id.clone(), slot);
        self.chunks += usize::from(record.kind == Kind::Chunk);
        self.meta.push(SlotMeta::of(&record));
        self.weights.push(std::sync::OnceLock::new());
        let cues = TextCues::of(&record.text);
        if let Some(name) = cues.speaker() {
            *self.speakers.entry(name.into()).or_default() += 1;
        }
        self.cues.push(cues);
        self.records.push(Some(record));
        slot
    }

    /// Change a stored record in place (metadata only: reinforcement, supersession).
    /// A record that becomes superseded leaves the search indexes.
    pub fn update(&mut self, slot: u32, f: impl FnOnce(&mut Record)) {
        let Some(Some(rec)) = self.records.get_mut(slot as usize) else { return };
        let was_current = !rec.is_superseded();
        f(rec);
        self.meta[slot as usize] = SlotMeta::of(rec);
        self.weights[slot as usize] = std::sync::OnceLock::new();
        let now_current = !rec.is_superseded();
        if was_current && !now_current {
            let h = content_hash(&normalize(&rec.text));
            let pool = Pool::of(rec.kind) as usize;
            self.bm25[pool].remove(slot);
            self.timeline.remove(rec);
            if let Some(v) = self.vectors[pool].as_mut() {
                v.remove(slot);
            }
            if let Some(list) = self.by_hash.get_mut(&h) {
                list.retain(|&s| s != slot);
            }
        }
    }

    /// Remove the record with `id` entirely. Returns it.
    pub fn remove(&mut self, id: &str) -> Option<Record> {
        let slot = self.by_id.remove(id)?;
        let rec = self.detach(slot);
        if rec.as_ref().is_some_and(|r| r.kind == Kind::Message) {
            for s in self.sessions.values_mut() {
                s.remove_turn(id);
            }
            self.retouch();
        }
        rec
    }

    /// Recompute each session's `touched_at` from what it holds now — state stamps,
    /// summary, clears, surviving turns — so that replicas agree after removals whatever
    /// order the ops came in.
    pub fn retouch(&mut self) {
        let by_id = &self.by_id;
        let records = &self.records;
        for s in self.sessions.values_mut() {
            let latest_turn = s
                .turns()
                .iter()
                .filter_map(|t| by_id.get(t).and_then(|&slot| records[slot as usize].as_ref()))
                .map(|r| r.stamp.wall_ms)
                .max();
            s.retouch(latest_turn);
        }
    }

    /// Take the record out of `slot` and out of every index.
    fn detach(&mut self, slot: u32) -> Option<Record> {
        self.unindex(slot);
        if let Some(k) = self.records[slot as usize].as_ref().and_then(|r| r.key.clone()) {
            if let Some(list) = self.by_key.get_mut(&k) {
                list.retain(|&s| s != slot);
                if list.is_empty() {
                    self.by_key.remove(&k);
                }
            }
        }
        self.meta[slot as usize] = SlotMeta::GONE;
        self.weights[slot as usize] = std::sync::OnceLock::new();
        let cues = std::mem::take(&mut self.cues[slot as usize]);
        if let Some(name) = cues.speaker() {
            if let Some(n) = self.speakers.get_mut(name) {
                *n -= 1;
                if *n == 0 {
                    self.speakers.remove(name);
                }
            }
        }
        let rec = self.records[slot as usize].take();
        self.chunks -= usize::from(rec.as_ref().is_some_and(|r| r.kind == Kind::Chunk));
        rec
    }

    fn unindex(&mut self, slot: u32) {
        if let Some(rec) = self.records[slot as usize].as_ref() {
            let pool = Pool::of(rec.kind) as usize;
            self.bm25[pool].remove(slot);
            if let Some(v) = self.vectors[pool].as_mut() {
                v.remove(slot);
            }
            self.timeline.remove(rec);
            let h = content_hash(&normalize(&rec.text));
            if let Some(list) = self.by_hash.get_mut(&h) {
                list.retain(|&s| s != slot);
            }
        }
    }
}
