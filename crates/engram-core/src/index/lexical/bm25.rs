//! Okapi BM25 with incremental add and remove. Unlike indexes that freeze the average
//! document length at insert time, statistics are kept as running totals and read at
//! query time, so scores stay correct as the corpus changes.

use rustc_hash::FxHashMap;

use crate::index::lexical::terms::index_terms;

const K1: f32 = 1.2;
/// Length normalization: 0.4 rather than the customary 0.75, from a sweep on long
/// conversations (LoCoMo's development split: recall@10 0.709 → 0.718), where a long turn
/// is usually long because it says more, not because it repeats itself.
const B: f32 = 0.4;
/// Scores memoized per query term: tf below this …
const MEMO_TF: usize = 4;
/// … and length below this (a 128-token chunk has fewer terms).
const MEMO_LEN: usize = 256;
/// A query term whose idf is under ln 1.001 (≈ 0.001) is not read when the query has a
/// term that is not: it adds at most 0.0022 to any slot, under 1 % of what a term held by
/// half the documents adds even to a slot ten times the average length (ln 2 × 0.34 ≈
/// 0.23), while reading it costs a posting per document ("discuss" in every note of a
/// million). Only a term nearly every one of at least ~500 documents holds is that weak:
/// in a small store a word every memory holds keeps its weight (of three: idf ln 1.14).
///
/// idf = ln(1 + (n − df + ½) / (df + ½)) < ln 1.001 ⟺ 1000 (2n − 2df + 1) < 2df + 1.
fn ubiquitous(df: usize, n: u64) -> bool {
    let df = df as u64;
    1000 * (2 * n.saturating_sub(df) + 1) < 2 * df + 1
}

/// An inverted index over documents identified by `u32` slots.
#[derive(Debug, Default, Clone)]
pub struct Bm25 {
    term_ids: FxHashMap<String, u32>,
    /// Per term: `(slot, tf, length)` of the slots holding it. The slot's length rides in
    /// the posting (`u16::MAX` when longer: then read from `lens`), so that scoring a term
    /// common to 50k chunks reads its postings in order and nothing else per slot.
    postings: Vec<Vec<(u32, u16, u16)>>,
    /// Per slot: the term ids it holds (for removal) and its length; `None` when absent.
    docs: Vec<Option<(Vec<u32>, u32)>>,
    /// Per slot: its length as a float (0 when absent), for the slots too long for a posting.
    lens: Vec<f32>,
    live: u32,
    total_len: u64,
}

impl Bm25 {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of indexed documents.
    pub fn len(&self) -> usize {
        self.live as usize
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Index `text` under `slot`, replacing what the slot held.
    pub fn add(&mut self, slot: u32, text: &str) {
        self.remove(slot);
        let ts = index_terms(text);
        let mut tf: FxHashMap<u32, u16> = FxHashMap::default();
        for t in &ts {
            let next = self.term_ids.len() as u32;
            let id = *self.term_ids.entry(t.clone()).or_insert(next);
            if id as usize == self.postings.len() {
                self.postings.push(Vec::new());
            }
            let e = tf.entry(id).or_insert(0);
            *e = e.saturating_add(1);
        }
        let mut ids: Vec<u32> = tf.keys().copied().collect();
        crate::sort::sort(&mut ids);
        let short = u16::try_from(ts.len()).unwrap_or(u16::MAX);
        for &id in &ids {
            self.postings[id as usize].push((slot, tf[&id], short));
        }
        let s = slot as usize;
        if self.docs.len() <= s {
            self.docs.resize(s + 1, None);
            self.lens.resize(s + 1, 0.0);
        }
        self.docs[s] = Some((ids, ts.len() as u32));
        self.lens[s] = ts.len() as f32;
        self.live += 1;
        self.total_len += ts.len() as u64;
    }

    /// Forget `slot`. Removing an absent slot does nothing.
    pub fn remove(&mut self, slot: u32) {
        let Some(entry) = self.docs.get_mut(slot as usize).and_then(Option::take) else { return };
        let (ids, len) = entry;
        self.lens[slot as usize] = 0.0;
        for id in ids {
            let p = &mut self.postings[id as usize];
            if let Some(i) = p.iter().position(|&(s, _, _)| s == slot) {
                p.swap_remove(i);
            }
        }
        self.live -= 1;
        self.total_len -= u64::from(len);
    }

    /// The `k` best slots for `query` with their BM25 scores, best first, ties by slot.
    /// `accept` filters slots (e.g. expired or superseded records) before ranking.
    pub fn search(&self, query: &str, k: usize, accept: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        if k == 0 {
            return Vec::new();
        }
        let mut hits: Vec<(u32, f32)> = self.scores(query).iter().filter(|&(s, _)| accept(s)).collect();
        crate::index::vector::top_k_by_score(&mut hits, k);
        hits
    }

    /// The BM25 score of every slot that shares a term with `query`.
    pub fn scores(&self, query: &str) -> Scores {
        self.scores_with(query, None)
    }

    /// [`Bm25::scores`] as if the documents of `also` were indexed here too (their number,
    /// lengths and document frequencies join this index's): each slot of this index scores
    /// what it would in one index holding both, so the scores of two indexes compare.
    pub fn scores_with(&self, query: &str, also: Option<&Bm25>) -> Scores {
        let mut scores = Scores { by_slot: Vec::new(), touched: Vec::new() };
        if self.live == 0 {
            return scores;
        }
        scores.by_slot = vec![0.0; self.docs.len()];
        let mut qt = index_terms(query);
        crate::sort::sort(&mut qt);
        qt.dedup();
        let docs = u64::from(self.live + also.map_or(0, |o| o.live));
        let n = docs as f32;
        let avg = ((self.total_len + also.map_or(0, |o| o.total_len)) as f32 / n).max(1.0);
        // Each query term, its id in this index (if it holds it) and its document frequency
        // over both indexes.
        let terms: Vec<(Option<u32>, usize)> = qt
            .iter()
            .map(|t| {
                let id = self.term_ids.get(t).copied();
                let here = id.map_or(0, |id| self.postings[id as usize].len());
                (id, here + also.map_or(0, |o| o.df(t)))
            })
            .collect();
        let informative = terms.iter().any(|&(_, df)| df > 0 && !ubiquitous(df, docs));
        // A term's score depends only on the slot's tf and length: the common pairs are
        // computed once per term (the same expression, so the same bits).
        let mut memo = vec![0.0f32; MEMO_TF * MEMO_LEN];
        for &(id, df) in &terms {
            let Some(id) = id else { continue };
            let p = &self.postings[id as usize];
            if p.is_empty() || (informative && ubiquitous(df, docs)) {
                continue;
            }
            let df = df as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            let score = |tf: u16, len: f32| {
                let tf = f32::from(tf);
                idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg))
            };
            memo.fill(0.0);
            for &(slot, tf, len) in p {
                let s = match memo.get_mut(tf as usize * MEMO_LEN + len as usize).filter(|_| (len as usize) < MEMO_LEN) {
                    Some(m) if *m > 0.0 => *m,
                    Some(m) => {
                        *m = score(tf, f32::from(len));
                        *m
                    }
                    None if len == u16::MAX => score(tf, self.lens.get(slot as usize).copied().unwrap_or(0.0)),
                    None => score(tf, f32::from(len)),
                };
                if let Some(at) = scores.by_slot.get_mut(slot as usize) {
                    if *at == 0.0 {
                        scores.touched.push(slot);
                    }
                    *at += s;
                }
            }
        }
        scores
    }

    /// The slots holding a term of `query` that no more than `max_df` documents hold: the
    /// memories a rare word names ("Zx81", a name said once), whatever else scores higher.
    pub fn rare_holders(&self, query: &str, max_df: usize) -> Vec<u32> {
        let mut qt = index_terms(query);
        crate::sort::sort(&mut qt);
        qt.dedup();
        let mut out: Vec<u32> = qt
            .iter()
            .filter_map(|t| self.term_ids.get(t))
            .map(|&id| &self.postings[id as usize])
            .filter(|p| !p.is_empty() && p.len() <= max_df)
            .flat_map(|p| p.iter().map(|&(slot, _, _)| slot))
            .collect();
        // At most `max_df` slots a term: the core's one sort, not one more copy of the
        // standard library's.
        crate::sort::sort(&mut out);
        out.dedup();
        out
    }

    /// How many indexed documents hold `term`.
    fn df(&self, term: &str) -> usize {
        self.term_ids.get(term).map_or(0, |&id| self.postings[id as usize].len())
    }
}

/// The BM25 scores of the slots that share a term with a query: held by slot, with the
/// slots in the order first reached, so that reading one is an index, not a hash (a query
/// word common to 50k chunks touches 50k slots). Every score is above zero.
#[derive(Debug, Clone, Default)]
pub struct Scores {
    by_slot: Vec<f32>,
    touched: Vec<u32>,
}

impl Scores {
    /// The score of `slot`, when it matched.
    pub fn get(&self, slot: u32) -> Option<f32> {
        self.by_slot.get(slot as usize).copied().filter(|&s| s > 0.0)
    }

    /// Every matching slot and its score, in the order first reached.
    pub fn iter(&self) -> impl Iterator<Item = (u32, f32)> + Clone + '_ {
        self.touched.iter().map(|&s| (s, self.by_slot[s as usize]))
    }

    /// How many slots matched.
    pub fn len(&self) -> usize {
        self.touched.len()
    }

    /// True when nothing matched.
    pub fn is_empty(&self) -> bool {
        self.touched.is_empty()
    }

    /// Keep only the slots `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let by_slot = &mut self.by_slot;
        self.touched.retain(|&s| {
            let kept = keep(s);
            if !kept {
                by_slot[s as usize] = 0.0;
            }
            kept
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every posting scored by the formula with the slot's length read from `lens`, as
    /// before scores were memoized per term (the oracle): the same floats, bit for bit.
    fn scores_by_formula(ix: &Bm25, query: &str) -> Vec<(u32, u32)> {
        let mut by_slot = vec![0.0f32; ix.docs.len()];
        let mut touched = Vec::new();
        let mut qt = index_terms(query);
        qt.sort();
        qt.dedup();
        let n = ix.live as f32;
        let avg = (ix.total_len as f32 / n).max(1.0);
        // Terms whose idf is under ln 1.001 count only when the query has another.
        let held_by = |t: &String| ix.term_ids.get(t).map_or(0, |&id| ix.postings[id as usize].len());
        let common = |t: &String| {
            let (df, n) = (held_by(t) as f64, f64::from(ix.live));
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln() < 1.001f64.ln()
        };
        let informative = qt.iter().any(|t| held_by(t) > 0 && !common(t));
        for t in &qt {
            let Some(&id) = ix.term_ids.get(t) else { continue };
            let p = &ix.postings[id as usize];
            if informative && common(t) {
                continue;
            }
            let df = p.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(slot, tf, _) in p {
                let len = ix.docs[slot as usize].as_ref().map(|d| d.1).unwrap() as f32;
                let tf = f32::from(tf);
                let s = idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg));
                if by_slot[slot as usize] == 0.0 {
                    touched.push(slot);
                }
                by_slot[slot as usize] += s;
            }
        }
        touched.iter().map(|&s| (s, by_slot[s as usize].to_bits())).collect()
    }

    proptest! {
        #[test]
        fn memoized_scores_are_the_formulas_bit_for_bit(
            docs in proptest::collection::vec((proptest::collection::vec(0usize..8, 0..40), 0usize..400), 1..60),
            removed in proptest::collection::vec(0usize..60, 0..10),
            query in proptest::collection::vec(0usize..8, 1..6),
        ) {
            const WORDS: [&str; 8] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
            let mut ix = Bm25::new();
            for (slot, (words, padding)) in docs.iter().enumerate() {
                // Padding makes lengths past the memo's (256) and repeated words tf past its (4).
                let mut text: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
                text.extend(std::iter::repeat_n("filler", *padding));
                ix.add(slot as u32, &text.join(" "));
            }
            for r in removed {
                ix.remove(r as u32);
            }
            let q: Vec<&str> = query.iter().map(|&w| WORDS[w]).collect();
            let q = q.join(" ");
            let got: Vec<(u32, u32)> = ix.scores(&q).iter().map(|(s, v)| (s, v.to_bits())).collect();
            prop_assert_eq!(got, scores_by_formula(&ix, &q));
        }
    }

    #[test]
    fn a_document_longer_than_a_posting_holds_is_scored_by_its_length() {
        let mut ix = Bm25::new();
        let long = format!("alpha {}", vec!["filler"; 70_000].join(" "));
        ix.add(0, &long);
        ix.add(1, "alpha beta");
        let got: Vec<(u32, u32)> = ix.scores("alpha").iter().map(|(s, v)| (s, v.to_bits())).collect();
        assert_eq!(got, scores_by_formula(&ix, "alpha"));
        assert!(ix.scores("alpha").get(0) < ix.scores("alpha").get(1));
    }

    #[test]
    fn a_word_every_document_holds_is_not_read_beside_a_rarer_one_but_is_alone() {
        let mut ix = Bm25::new();
        for slot in 0..3_000u32 {
            let rare = if slot % 10 == 0 { " rare" } else { "" };
            let padding = " filler".repeat((slot % 7) as usize);
            ix.add(slot, &format!("common{rare}{padding}"));
        }
        let both = ix.scores("common rare");
        assert_eq!(both.len(), 300, "only the holders of the rarer word match");
        let ranked = |s: &Scores| {
            let mut v: Vec<(u32, f32)> = s.iter().collect();
            crate::index::vector::top_k_by_score(&mut v, 50);
            v.into_iter().map(|h| h.0).collect::<Vec<_>>()
        };
        assert_eq!(ranked(&both), ranked(&ix.scores("rare")), "the word held by all changes no rank");
        assert_eq!(ix.scores("common").len(), 3_000, "alone, the common word still finds every document");
        // Held by 2,996 of 3,000 (idf ln 1.0014), it is read.
        for slot in 1..=4 {
            ix.add(slot, "rare");
        }
        assert_eq!(ix.scores("common rare").len(), 3_000);
        // In a small store a word every document holds keeps its idf and is read.
        let mut small = Bm25::new();
        for slot in 0..3u32 {
            small.add(slot, if slot == 0 { "user likes tea" } else { "user likes" });
        }
        assert_eq!(small.scores("user tea").len(), 3);
    }

    #[test]
    fn the_document_sharing_rare_terms_ranks_first() {
        let mut ix = Bm25::new();
        ix.add(0, "The user prefers Python for data work");
        ix.add(1, "The user lives in Hangzhou");
        ix.add(2, "Python and Java are languages");
        let hits = ix.search("which city does the user live in? Hangzhou", 3, |_| true);
        assert_eq!(hits[0].0, 1);
    }

    #[test]
    fn removed_documents_are_never_returned_and_stats_shrink() {
        let mut ix = Bm25::new();
        ix.add(0, "alpha beta");
        ix.add(1, "alpha gamma");
        ix.remove(0);
        assert_eq!(ix.len(), 1);
        let hits = ix.search("alpha beta", 5, |_| true);
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1]);
        ix.remove(0);
        assert_eq!(ix.len(), 1);
    }

    #[test]
    fn chinese_queries_match_through_bigrams() {
        let mut ix = Bm25::new();
        ix.add(0, "用户叫张三在阿里巴巴做算法工程师");
        ix.add(1, "用户偏好Python不太喜欢Java");
        let hits = ix.search("用户的职业是算法工程师吗", 2, |_| true);
        assert_eq!(hits[0].0, 0);
    }
}
