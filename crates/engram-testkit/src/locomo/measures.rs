//! What a run measures: turn-level recall, hit and all-found at each cut-off, and MRR.

/// Turn-level retrieval measures over questions, at the cut-offs of [`CUTS`].
#[derive(Debug, Clone, Default)]
pub struct Measures {
    pub questions: usize,
    /// Per cut-off: share of evidence found, at least one found, all found (sums).
    pub recall: [f64; 4],
    pub hit: [f64; 4],
    pub all: [f64; 4],
    pub mrr: f64,
}

/// The cut-offs reported: recall@1, @5, @10, @20.
pub const CUTS: [usize; 4] = [1, 5, 10, 20];

impl Measures {
    /// Add one question's answers: `ranked[c]` is what a recall with `k = CUTS[c]`
    /// returned (per hit, the turns it stands for). Each cut is measured on its own call,
    /// as a user asking for that many memories gets them; MRR on the longest.
    pub fn add(&mut self, evidence: &[String], ranked: &[Vec<Vec<String>>; 4]) {
        self.questions += 1;
        for (c, &k) in CUTS.iter().enumerate() {
            let found = evidence.iter().filter(|e| ranked[c].iter().take(k).any(|ids| ids.contains(e))).count();
            self.recall[c] += found as f64 / evidence.len() as f64;
            self.hit[c] += f64::from(u8::from(found > 0));
            self.all[c] += f64::from(u8::from(found == evidence.len()));
        }
        if let Some(r) = ranked[3].iter().take(20).position(|ids| ids.iter().any(|id| evidence.contains(id))) {
            self.mrr += 1.0 / (r as f64 + 1.0);
        }
    }

    /// Mean of a sum over questions.
    pub fn mean(&self, sum: f64) -> f64 {
        sum / self.questions.max(1) as f64
    }
}

/// An embedder for the harness: text → vector.
pub type Embed<'a> = &'a dyn Fn(&str) -> Vec<f32>;

/// What one run measured.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub measures: Measures,
    /// Milliseconds per `recall` with `k = 10`, sorted.
    pub latencies: Vec<f64>,
    /// Questions that got no hit (the router took them for small talk, or nothing matched).
    pub empty: usize,
    /// Turns the write path merged into an earlier memory as near-duplicates.
    pub merged: usize,
    /// The session protocol: episodes written, turns folded into a summary (kept in the
    /// episodic layer or removed), and episodes among the hits at 10.
    pub episodes: usize,
    pub folded: usize,
    pub episode_hits: usize,
    /// The same measures per question category (1 multi-hop, 2 temporal, 3 open-domain,
    /// 4 single-hop).
    pub by_category: std::collections::BTreeMap<u32, Measures>,
    /// The same measures over the questions that name no date ("on 3 June, 2023", "in
    /// August 2023"): there the real timeline and one moment differ only by decay and
    /// recency, since recall's date channel has no period to read.
    pub undated: Measures,
    /// The same measures per conversation (by sample id), to see whether a change holds
    /// on each one rather than on their sum.
    pub by_sample: Vec<(String, Measures)>,
    /// Evidence turns that share no index term (stemmed, stop words and the speakers'
    /// names dropped) with their question, and all evidence turns: what the question's
    /// own words cannot find.
    pub unmatched_evidence: (usize, usize),
    /// Evidence turns missed from the top 10, and those of them that share no index term
    /// with their question (as in `unmatched_evidence`).
    pub missed_evidence: (usize, usize),
    /// Ceilings of words alone, summed over questions like recall: the share of a
    /// question's evidence turns that share an index term with it, and the share that do
    /// or have a turn within two of them in their session that does (what the spread over
    /// neighbours can reach).
    pub word_ceiling: (f64, f64),
    /// Per question whose evidence is not all in the top 10: the question, the turns
    /// missed and the first three recalled (for tuning; `locomo-eval --misses`).
    pub misses: Vec<String>,
}

impl Run {
    /// The `p` quantile of recall latency, in milliseconds.
    pub fn latency(&self, p: f64) -> f64 {
        self.latencies.get(((self.latencies.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
    }
}
