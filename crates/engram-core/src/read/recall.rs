//! The read path. Channels rank candidates independently — vectors (meaning), BM25
//! (words), exact fact keys, and for a query naming a date what was written then, word
//! matches first (`read::dated`) — and reciprocal-rank fusion combines ranks, not raw
//! scores, because cosine and BM25 scores live on incomparable scales. Equal scores share
//! a rank. Fused scores are then weighted by `importance × decay(age)`, the time factor
//! floored at `read::decay::RANKING_FLOOR` — which is why fusion's `k` is small (see
//! `Config::rrf_k`): the fused score must fall steeply enough with rank that the weight
//! reorders close matches, not far ones. Expired and superseded memories are out; weak ones
//! (stale and unimportant) come last; texts already seen are skipped, preserving order.
//! Before the cut to `k`, the best fused candidates are reranked (`read::rerank`): a
//! named speaker's lines rise.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use crate::read::decay::ranking_weight;
use crate::read::channels::{date_channel, graph_channel, key_channel};
use crate::read::ranks::{tied_ranks, LEXICAL_TIE, VECTOR_TIE};
use crate::read::cues::QueryCues;
use crate::read::dated::{named_period, Period};
use crate::read::feedback::{with_feedback, FEEDBACK_TURNS};
use crate::config::ChannelWeights;
use crate::store::partition::{Partition, Pool};
use crate::read::rerank::rerank;
use crate::read::spread::said_together;
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::{FactKey, Kind, Layer, Record, Scope};
use crate::router::{route, Route};
use crate::text::{content_hash, normalize};

/// A recall request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RecallQuery {
    pub text: String,
    /// The query's embedding, from the same embedder as the store.
    pub embedding: Option<Vec<f32>>,
    /// How many hits to return.
    pub k: usize,
    /// Only these kinds (all but instructions, summaries and document chunks when empty;
    /// [`Engram::search_documents`] searches chunks).
    pub kinds: Vec<Kind>,
    /// Fact keys to look up exactly, in addition to those the query mentions.
    pub keys: Vec<FactKey>,
    /// Retrieve even when the router says small talk.
    pub force: bool,
    /// Leave out these record ids (e.g. turns already in the recent window).
    pub exclude: Vec<String>,
}

impl Default for RecallQuery {
    fn default() -> Self {
        RecallQuery::text("")
    }
}

impl RecallQuery {
    /// A text query for the top 8.
    pub fn text(text: impl Into<String>) -> Self {
        RecallQuery {
            text: text.into(),
            embedding: None,
            k: 8,
            kinds: Vec::new(),
            keys: Vec::new(),
            force: false,
            exclude: Vec::new(),
        }
    }

    /// Attach the query embedding.
    pub fn with_embedding(mut self, v: Vec<f32>) -> Self {
        self.embedding = Some(v);
        self
    }

    /// Return `k` hits.
    pub fn with_k(mut self, k: usize) -> Self {
        self.k = k;
        self
    }
}

/// Why a memory was recalled: its rank and raw score in each channel and the weights.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreParts {
    /// 1-based rank and cosine in the vector channel.
    pub vector: Option<(u32, f32)>,
    /// 1-based rank and BM25 score in the lexical channel.
    pub lexical: Option<(u32, f32)>,
    /// 1-based rank in the exact-key channel.
    pub key: Option<u32>,
    /// 1-based rank in the graph channel.
    pub graph: Option<u32>,
    /// 1-based rank in the date channel (memories written within the period the query names).
    #[serde(default)]
    pub date: Option<u32>,
    /// Reciprocal-rank fusion of the channels.
    pub fused: f32,
    /// The time factor of decay, in [0, 1].
    pub decay: f32,
    pub importance: f32,
    /// `importance × max(decay, RANKING_FLOOR)`: what orders the recalled (see `choose`);
    /// under the weak threshold a memory comes after the rest.
    pub weight: f32,
}

impl ScoreParts {
    /// `fused × weight`: a hit's score, what time and importance order the recalled by.
    pub(crate) fn score(&self) -> f32 {
        self.fused * self.weight
    }
}

/// One recalled memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub record: Record,
    /// `fused × weight`: what time and importance order hits by,
    /// before the speaker's lift (see `choose`).
    pub score: f32,
    pub parts: ScoreParts,
}

/// The result of a recall.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recall {
    pub route: RouteName,
    pub hits: Vec<Hit>,
}

/// The router's decision, serializable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouteName {
    Retrieve,
    SmallTalk,
    Empty,
}

impl From<Route> for RouteName {
    fn from(r: Route) -> Self {
        match r {
            Route::Retrieve => RouteName::Retrieve,
            Route::SmallTalk => RouteName::SmallTalk,
            Route::Empty => RouteName::Empty,
        }
    }
}

/// Reciprocal-rank fusion of a hit's channel ranks with the channels' weights. The date
/// channel is the lexical one read within the period a query names, and weighs as it does
/// (a weight of its own would change the snapshot's configuration, and with it its format).
pub(crate) fn fuse(sp: &ScoreParts, w: ChannelWeights, k: f32) -> f32 {
    let rr = |rank: u32| 1.0 / (k + rank as f32);
    sp.vector.map_or(0.0, |(r, _)| w.vector * rr(r)) + sp.lexical.map_or(0.0, |(r, _)| w.lexical * rr(r)) + sp.key.map_or(0.0, |r| w.key * rr(r)) + sp.graph.map_or(0.0, |r| w.graph * rr(r))
        + sp.date.map_or(0.0, |r| w.lexical * rr(r))
}

impl Engram {
    /// Recall the scope's user's memories relevant to `q` at time `now`.
    pub fn recall(&self, scope: &Scope, q: &RecallQuery, now: Millis) -> Result<Recall> {
        let p = self.partition(scope)?;
        self.recall_in(p, q, now)
    }

    /// [`Engram::recall`] in partition `p` (the caller chose it: a user's, or their
    /// tenant's library for [`Engram::search_documents`]).
    pub(crate) fn recall_in(&self, p: Option<&Partition>, q: &RecallQuery, now: Millis) -> Result<Recall> {
        let Candidates { route, scored, cues, certain } = self.candidates(p, None, q, now)?;
        let Some(p) = p else { return Ok(Recall { route, hits: Vec::new() }) };
        let said_by_named = |ranked: &mut [(u32, ScoreParts)]| rerank(ranked, &cues, |slot| p.cues(slot));
        let parts_of: FxHashMap<u32, ScoreParts> = certain.iter().filter_map(|s| scored.iter().find(|(t, _)| t == s).cloned()).collect();
        let mut chosen = choose(scored, q.k, self.config.weak_threshold, |&slot| p.at(slot).map(|r| r.text.as_str()), |&slot| slot, said_by_named);
        // A fact that is the only match of a specific word of the query is in the k, in the
        // place of the weakest other.
        let certain_set: FxHashSet<u32> = certain.iter().copied().collect();
        for slot in certain {
            if chosen.iter().any(|c| c.0 == slot) || q.k == 0 {
                continue;
            }
            let Some(sp) = parts_of.get(&slot).cloned() else { continue };
            let entry = (slot, sp.clone(), sp.score());
            match chosen.iter().rposition(|c| !certain_set.contains(&c.0)) {
                _ if chosen.len() < q.k => chosen.push(entry),
                Some(i) => chosen[i] = entry,
                None => {}
            }
        }
        let hits = chosen.into_iter().filter_map(|(slot, parts, score)| Some(Hit { record: p.at(slot)?.clone(), score, parts })).collect();
        Ok(Recall { route, hits })
    }

    /// Every slot of partition `p` a channel ranks for `q`, with its score parts (fused,
    /// decay, importance and weight filled), and the router's decision. With `also`, words
    /// are scored as in one index holding both partitions' texts (see `Bm25::scores_with`),
    /// so the candidates of two partitions can be ranked together.
    pub(crate) fn candidates(&self, p: Option<&Partition>, also: Option<&Partition>, q: &RecallQuery, now: Millis) -> Result<Candidates> {
        crate::model::limits::check_at_most("k", q.k, crate::model::limits::MAX_K)?;
        if q.kinds.iter().any(|k| k.is_archival()) && q.kinds.iter().any(|k| !k.is_archival()) {
            return Err(crate::error::Error::invalid("kinds", "document chunks and memories are searched apart: ask for chunks (search_documents) or for memories"));
        }
        let r = route(&q.text);
        let route_name = RouteName::from(r);
        let cues = QueryCues::of(&q.text);
        let Some(p) = p.filter(|_| r == Route::Retrieve || q.force) else { return Ok(Candidates { route: route_name, scored: Vec::new(), cues, certain: Vec::new() }) };
        let query_vec = match (&q.embedding, &self.embedder) {
            (Some(v), Some(e)) => Some(crate::index::vector::unit(v, e.dim)?),
            (Some(v), None) => Some(crate::index::vector::unit(v, v.len())?),
            (None, _) => None,
        };
        let exclude: FxHashSet<u32> = q.exclude.iter().filter_map(|id| p.slot_of(id)).collect();
        let accept = |slot: u32| {
            let m = p.meta(slot);
            m.live(now)
                && (exclude.is_empty() || !exclude.contains(&slot))
                && if q.kinds.is_empty() { m.layer != Layer::Procedural && m.kind != Kind::Summary && !m.kind.is_archival() && !m.from_model } else { q.kinds.contains(&m.kind) }
        };
        let n = self.config.candidates_per_channel.max(q.k);
        let mut parts: FxHashMap<u32, ScoreParts> = FxHashMap::default();
        // Chunks and memories are searched in their own pools: 50k chunks neither crowd
        // memories out of the lexical pool (taken before `accept`) nor cost their search.
        let pool = if q.kinds.iter().any(|k| k.is_archival()) { Pool::Archive } else { Pool::Memories };
        let raw = p.bm25(pool).scores_with(&q.text, also.map(|o| o.bm25(pool)));
        let live = |s: u32| p.meta(s).live(now);
        let max_boost = cues.max_boost(|w| p.has_speaker(w));
        // A boost lies in [1, max_boost]: with no cue in the query every boost is 1, and no
        // slot's record is read for it (tens of thousands reach the lexical pool's floor when
        // a name and a topic are each held by a tenth of a million memories).
        let boost = |s: u32| if max_boost > 1.0 { p.cues(s).map_or(1.0, |c| cues.boost_of(c)) } else { 1.0 };
        let words = |accept: &dyn Fn(u32) -> bool| said_together(p, &raw, &live, &boost, max_boost, n, &accept);
        let found = words(&accept);
        for ((slot, score), rank) in found.iter().zip(tied_ranks(&found, |top| top * (1.0 - LEXICAL_TIE))) {
            parts.entry(*slot).or_default().lexical = Some((rank, *score));
        }
        let period = if pool == Pool::Memories { named_period(&q.text, now) } else { None };
        if let Some(period) = period {
            for (slot, rank) in date_channel(p, period, n, &accept, words) {
                parts.entry(slot).or_default().date = Some(rank);
            }
        }
        if let (Some(v), Some(ix)) = (&query_vec, p.vectors(pool)) {
            // Words steer only where they lead the fusion (the default; not SHORT_ANSWERS),
            // and only among memories: the feedback is for transcript lines, and a document
            // chunk's query must not depend on which partition (user or library) holds it.
            let steer = pool == Pool::Memories && self.config.weights.lexical >= self.config.weights.vector;
            let said = |slot: u32| steer && p.cues(slot).is_some_and(|c| c.speaker().is_some());
            let v = with_feedback(v, found.iter().take(FEEDBACK_TURNS).filter(|&&(slot, _)| said(slot)).filter_map(|&(slot, _)| ix.get(slot)));
            let found = ix.search(&v, n, self.config.min_similarity, accept);
            for ((slot, sim), rank) in found.iter().zip(tied_ranks(&found, |top| top - VECTOR_TIE)) {
                parts.entry(*slot).or_default().vector = Some((rank, *sim));
            }
        }
        for (rank, slot) in key_channel(p, &q.text, &q.keys, n, accept).into_iter().enumerate() {
            parts.entry(slot).or_default().key = Some(rank as u32 + 1);
        }
        for (rank, slot) in graph_channel(p, &q.text, n, accept).into_iter().enumerate() {
            parts.entry(slot).or_default().graph = Some(rank as u32 + 1);
        }
        let mut certain = Vec::new();
        if pool == Pool::Memories {
            pin_exact(p, &q.text, raw_top(&found), query_vec.is_some(), &accept, &mut parts);
            // Facts, not the turns of a session: a turn that says a name once is seldom the
            // memory the name asks for.
            for slot in p.bm25(Pool::Memories).rare_holders(&specific_words(&q.text), 1) {
                if accept(slot) && p.meta(slot).kind != Kind::Message {
                    certain.push(slot);
                }
            }
        }
        let scored = self.weigh(p, parts, period, now);
        Ok(Candidates { route: route_name, scored, cues, certain })
    }

    /// The channels' `parts` of partition `p`'s candidates, fused and weighted at `now`:
    /// `fused` from the ranks, then `read::decay`, `importance` and `weight`. A memory the date
    /// channel found for `period` is aged as of the period's end: "what did I say on May 3"
    /// must not rank that day's lines below fresher ones for their age.
    fn weigh(&self, p: &Partition, parts: FxHashMap<u32, ScoreParts>, period: Option<Period>, now: Millis) -> Vec<(u32, ScoreParts)> {
        let mut scored: Vec<(u32, ScoreParts)> = Vec::with_capacity(parts.len());
        for (slot, mut sp) in parts {
            let Some(rec) = p.at(slot) else { continue };
            sp.fused = fuse(&sp, self.config.weights, self.config.rrf_k);
            let dated_age = period.filter(|_| sp.date.is_some()).map_or(Millis::MAX, |pd| pd.to.saturating_sub(rec.created_at).max(0));
            let age = (now - rec.freshness()).min(dated_age);
            sp.decay = if rec.holds_current_value() { 1.0 } else { self.config.decay.factor(age) };
            sp.importance = rec.importance;
            sp.weight = ranking_weight(rec.importance, sp.decay);
            scored.push((slot, sp));
        }
        scored
    }
}

/// The best lexical score found, for a pinned memory to match.
fn raw_top(found: &[(u32, f32)]) -> f32 {
    found.iter().map(|f| f.1).fold(0.0, f32::max)
}

/// The query's words that name one thing — letters with digits ("Zx81", "A3") or a capital
/// after the first word ("my dog Barnaby") — joined: a memory only one of them matches is
/// what was asked for. (Any word said once, not only these: LoCoMo dev recall@1 0.443 →
/// 0.403, a question's rare word being as often incidental; with bare numbers, as years
/// are, 0.429.)
fn specific_words(query: &str) -> String {
    query
        .split_whitespace()
        .enumerate()
        .filter(|(i, w)| w.chars().any(|c| c.is_ascii_digit()) && w.chars().any(char::is_alphabetic) || (*i > 0 && w.chars().next().is_some_and(char::is_uppercase)))
        .map(|(_, w)| w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// An exact match is the best match whatever its neighbours (an exact text ranked 41st
/// among 40 near twins): a memory whose text is the query's is first in the lexical channel,
/// and in the vector one, its cosine being 1. A turn whose text is the query's is the
/// message being answered: never recalled as a memory of itself.
fn pin_exact(p: &Partition, query: &str, top: f32, has_vector: bool, accept: &dyn Fn(u32) -> bool, parts: &mut FxHashMap<u32, ScoreParts>) {
    let asked = normalize(query);
    parts.retain(|&slot, _| p.meta(slot).kind != Kind::Message || p.at(slot).is_none_or(|r| normalize(&r.text) != asked));
    for &slot in p.with_hash(content_hash(&asked)) {
        if !accept(slot) || p.meta(slot).kind == Kind::Message {
            continue;
        }
        let sp = parts.entry(slot).or_default();
        sp.lexical = Some((1, sp.lexical.map_or(top, |l| l.1.max(top))));
        if has_vector {
            sp.vector = Some((1, 1.0));
        }
    }
}

/// A partition's scored candidates for a query (see [`Engram::candidates`]).
pub(crate) struct Candidates {
    pub route: RouteName,
    pub scored: Vec<(u32, ScoreParts)>,
    /// The query's cues, read once: the lexical channel's boosts and the rerank use them.
    pub cues: QueryCues,
    /// Facts holding a word of the query no other memory holds: recall keeps them in its k.
    pub certain: Vec<u32>,
}

/// The `k` recalled of scored candidates, each with its parts and score. Relevance chooses
/// them: the best `fused` first (ties by `order`), then `reorder`ed (memories: the speaker
/// rerank, `read::rerank`), a text seen before skipped (`text` `None`: gone, skipped),
/// whatever their age — decay never hides a strong match. Time and importance then order
/// them by `fused × weight` (`importance × max(decay, RANKING_FLOOR)`: a best match keeps
/// its place above all but close fresh ones), equal scores the fresher first, the weak
/// (weight under `weak`: stale and unimportant) after the rest, so a context built under a
/// tight budget drops them first. `reorder` acts once more on the strong, in that order: a
/// lift it gives (a line of the speaker the query names) is not undone by time. (Undone, it
/// cost LoCoMo dev 0.009 of recall@10 at a real timeline: 0.780 with it against 0.771.)
pub(crate) fn choose<'a, T: 'a, O: Ord>(
    mut items: Vec<(T, ScoreParts)>,
    k: usize,
    weak: f32,
    text: impl Fn(&T) -> Option<&'a str>,
    order: impl Fn(&T) -> O,
    reorder: impl Fn(&mut [(T, ScoreParts)]),
) -> Vec<(T, ScoreParts, f32)> {
    crate::sort::sort_by(&mut items, |a, b| b.1.fused.total_cmp(&a.1.fused).then_with(|| order(&a.0).cmp(&order(&b.0))));
    reorder(&mut items);
    let mut seen = FxHashSet::default();
    let mut chosen: Vec<(T, ScoreParts)> = Vec::with_capacity(k.min(items.len()));
    for (item, sp) in items {
        if chosen.len() == k {
            break;
        }
        let Some(t) = text(&item) else { continue };
        if seen.insert(content_hash(&normalize(t))) {
            chosen.push((item, sp));
        }
    }
    crate::sort::sort_by(&mut chosen, |a, b| {
        let weak_last = (a.1.weight < weak).cmp(&(b.1.weight < weak));
        weak_last.then(b.1.score().total_cmp(&a.1.score())).then(b.1.decay.total_cmp(&a.1.decay)).then_with(|| order(&a.0).cmp(&order(&b.0)))
    });
    let strong = chosen.iter().position(|c| c.1.weight < weak).unwrap_or(chosen.len());
    reorder(&mut chosen[..strong]);
    chosen.into_iter().map(|(t, sp)| {
        let score = sp.score();
        (t, sp, score)
    }).collect()
}
