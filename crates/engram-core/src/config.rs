//! Engine settings. Every default comes from the design notes and is documented here.

use serde::{Deserialize, Serialize};

use crate::read::decay::Decay;
use crate::write::resolution::ConflictPolicy;
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::pii::PiiPolicy;
use crate::index::vector::{AnnParams, Precision};

/// How much each recall channel counts in reciprocal-rank fusion.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChannelWeights {
    pub vector: f32,
    pub lexical: f32,
    pub key: f32,
    /// Records linked (as edge provenance) to entities the query mentions.
    pub graph: f32,
}

impl Default for ChannelWeights {
    fn default() -> Self {
        // Lexical over vector 2 : 1, measured on long conversations (LoCoMo's development
        // split, turn-level recall@10, `locomo-eval`) with BM25 stemmed and spread over
        // neighbouring turns: lexical alone 0.748; fused with the default table at
        // vector 0.5 : 0.737, 0.75 : 0.731, 1 : 0.715, 4 : 0.644 (the previous default,
        // 4 : 1 vector-led). The table's vectors rank chatty turns by the names and small
        // talk they share with a question, so on conversation they add breadth (recall@20
        // 0.803 → 0.811 at 0.25), not precision. On the chatterbot question → answer task
        // (one short answer each, where BM25 is weak) the vector-led 4 : 1 was better:
        // there the new default scores 0.432 recall@10 against 0.484 (`embed-eval`).
        // Conversation is what users store, so it sets the default; stores of short Q/A
        // pairs may prefer `ChannelWeights::SHORT_ANSWERS`. Fusion is rank-based and
        // scale-free: only the ratios matter. The key channel is precise when it fires.
        ChannelWeights { vector: 0.5, lexical: 1.0, key: 1.5, graph: 1.0 }
    }
}

impl ChannelWeights {
    /// Vector over lexical 6 : 1, for stores of short question → answer pairs, where BM25
    /// is weak: from `embed-eval`'s sweep on the chatterbot task, the ratio at which the
    /// fused list is at or above each channel alone with both embedders (table fused:
    /// recall@1 / @10 0.191 / 0.479, English 0.217 / 0.585, vector alone 0.149 / 0.392 and
    /// 0.217 / 0.576; accurate fused 0.279 / 0.539, English 0.393 / 0.711 against 0.392 /
    /// 0.707 alone). The previous default, 4 : 1, fell one English question short of the
    /// accurate vectors alone (0.706 < 0.707) once BM25 stemmed words. On long
    /// conversations vector-led weights fuse worse than BM25 alone (4 : 1: 0.644 against
    /// 0.748 recall@10 on LoCoMo's development split).
    pub const SHORT_ANSWERS: ChannelWeights = ChannelWeights { vector: 1.2, lexical: 0.2, key: 1.5, graph: 1.0 };
}

/// Engine configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    /// Cosine at or above which a new memory reinforces an existing one (seed 003: 0.85).
    /// Above 1.0 the near-duplicate check is off (bulk imports of known-distinct data).
    pub dedup_threshold: f32,
    /// Time decay of memory weight.
    pub decay: Decay,
    /// Memories whose `importance × decay` falls below this are not recalled (seed 002: 0.1).
    pub weak_threshold: f32,
    /// Session state expires after this much inactivity (seed 001: 1 hour).
    pub session_ttl_ms: Millis,
    /// Turns kept in a session's recent window (seed 001: 12).
    pub recent_turns: usize,
    /// Storage of vectors.
    pub precision: Precision,
    /// Live vectors per user above which an HNSW main index should be built.
    ///
    /// Default 200k, not the 20k first planned: measured natively at 100k × 384-d, the flat
    /// int8 scan answered recall in 10.4 ms p50 / 12.1 ms p95, while `instant-distance` at
    /// the `ef_search` that reaches recall@10 ≥ 0.95 answered in 15.0 / 23.7 ms after a
    /// 530 s build. Below this size the flat scan is both exact and faster.
    pub ann_threshold: usize,
    /// HNSW tuning.
    pub ann: AnnParams,
    /// Longest memory text accepted, in bytes.
    pub max_text_bytes: usize,
    /// The `k` of reciprocal-rank fusion, `1 / (k + rank)`.
    ///
    /// Default 1, not the 60 of the RRF paper: fused scores are multiplied by
    /// `importance × decay`, so they must fall steeply with rank for relevance to count.
    /// At 60, rank 1 and rank 10 differ by 15 %: a memory seen twice (importance 0.6 against
    /// 0.5) overtook better matches down to rank 9, and a fresh memory at any of the 50
    /// candidate ranks outranked a 60-day-old best match. At 1 the same boost moves a memory
    /// past at most its neighbour within the top ten, and the 60-day-old best match gives
    /// way only to fresh memories ranked 2 to 6 for the query.
    /// Measured on the chatterbot task (`embed-eval`, all questions, fused at 4 : 1): the
    /// accurate embedder's recall@1 / @10 went from 0.222 / 0.532 to 0.280 / 0.551, the
    /// table's from 0.193 / 0.474 to 0.191 / 0.485; the vector channel alone, whose order
    /// the weights no longer overturn, from 0.242 to 0.277 (accurate) and 0.137 to 0.149
    /// (table) at @1.
    pub rrf_k: f32,
    /// Channel weights for fusion.
    pub weights: ChannelWeights,
    /// Vector hits under this cosine are ignored.
    pub min_similarity: f32,
    /// Candidates each channel contributes before fusion.
    pub candidates_per_channel: usize,
    /// What happens to PII, per sensitivity tier, before anything is stored.
    pub pii: PiiPolicy,
    /// How a new value settles against the current value of its key.
    pub conflicts: ConflictPolicy,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dedup_threshold: 0.85,
            decay: Decay::default(),
            weak_threshold: 0.1,
            session_ttl_ms: 3_600_000,
            recent_turns: 12,
            precision: Precision::Int8,
            ann_threshold: 200_000,
            ann: AnnParams::default(),
            max_text_bytes: 32 * 1024,
            rrf_k: 1.0,
            weights: ChannelWeights::default(),
            min_similarity: 0.2,
            candidates_per_channel: 50,
            pii: PiiPolicy::default(),
            conflicts: ConflictPolicy::default(),
        }
    }
}

impl Config {
    /// Check the numbers a caller can set: a NaN, infinite or negative weight or `rrf_k`
    /// would order recall by garbage instead of failing.
    pub fn validate(&self) -> Result<()> {
        let w = self.weights;
        let non_negative = [
            ("weights.vector", w.vector),
            ("weights.lexical", w.lexical),
            ("weights.key", w.key),
            ("weights.graph", w.graph),
            ("rrfK", self.rrf_k),
            ("dedupThreshold", self.dedup_threshold),
            ("weakThreshold", self.weak_threshold),
        ];
        for (field, v) in non_negative {
            if !v.is_finite() || v < 0.0 {
                return Err(Error::invalid(field, format!("must be a finite number ≥ 0, got {}", crate::error::shown(v))));
            }
        }
        if !self.min_similarity.is_finite() {
            return Err(Error::invalid("minSimilarity", "must be a finite number"));
        }
        if self.session_ttl_ms <= 0 {
            return Err(Error::invalid("sessionTtlMs", "must be positive"));
        }
        use crate::model::limits::{check_at_most, MAX_K, MAX_TEXT_CEILING};
        check_at_most("maxTextBytes", self.max_text_bytes, MAX_TEXT_CEILING)?;
        check_at_most("candidatesPerChannel", self.candidates_per_channel, MAX_K)?;
        Ok(())
    }
}
