//! The second stage of recall: the fused candidates' best [`RERANK_POOL`] are reordered
//! by their fused rank plus a bonus for lines said by a speaker the query names.
//!
//! The lexical channel already weighs a named speaker's lines more (`read::cues`), but
//! the vector channel cannot: "What did Caroline paint?" embeds close to Melanie's lines
//! about painting as much as to Caroline's. Fusion then ranks both alike, and the
//! speaker's own lines just below the top few lose their place to the other speaker's.
//! Reranking by `1 / (1 + position) + bonus` keeps the fusion's best two where they are
//! (a named line needs `1 / (1 + position)` above 0.3 to pass position 1) and lifts the
//! named speaker's lines among the rest above the others' nearby: with the bonus 0.2, a
//! named line at position 19 ties an unnamed one at position 3.
//!
//! Measured on LoCoMo's development split (recall@10, real timeline / one moment; per
//! conversation 26, 30, 41 in brackets):
//! - default table: 0.754 / 0.756 → 0.775 / 0.776 (0.738 → 0.777, 0.806 → 0.808,
//!   0.742 → 0.756 / 0.744 → 0.780, 0.809 → 0.811, 0.740 → 0.754);
//! - accurate embedder: 0.759 / 0.755 → 0.774 / 0.772;
//! - no embedder: 0.743 / 0.743 → 0.759 / 0.761 (conversation 41 at one moment 0.740 → 0.734).
//!
//! Chatterbot QA (`embed-eval`, no transcript lines) is unchanged: 0.429. The rule was
//! chosen from a rerank of the top 30 with five features (own BM25, best BM25 of the ±1
//! neighbours, cosine, same session as the best hit, speaker named), weights fitted by
//! leave-one-conversation-out: held out, 0.769 / 0.766; the speaker feature alone carried
//! nearly all of it, the other four moved recall@10 by at most ±0.004 on top of it.

use crate::read::cues::{QueryCues, TextCues};

/// How many of the best fused candidates are reordered.
pub(crate) const RERANK_POOL: usize = 30;
/// The bonus of a line said by a speaker the query names, added to `1 / (1 + position)`.
/// On the development split (recall@10, default table, real timeline, per conversation
/// 26 / 30 / 41): 0.1 gave 0.780 / 0.802 / 0.747, 0.2 0.777 / 0.808 / 0.756, 0.3 0.763 /
/// 0.808 / 0.762; leave-one-conversation-out over {0.05 … 1} chose 0.2 or 0.3.
pub(crate) const SPEAKER_BONUS: f32 = 0.2;

/// Reorder the first [`RERANK_POOL`] of `ranked` (slots best first) by `1 / (1 + position)`
/// plus [`SPEAKER_BONUS`] for those whose text `cues_of` says a speaker of the query said.
/// Candidates past the pool, and every candidate when no line in the pool is by a named
/// speaker (or when all are), keep their order: the order changes only between a named
/// speaker's lines and the others'.
pub(crate) fn rerank<'c, T: Clone>(ranked: &mut [(u32, T)], query: &QueryCues, cues_of: impl Fn(u32) -> Option<&'c TextCues>) {
    let pool = ranked.len().min(RERANK_POOL);
    let mut scored: Vec<(u32, f32)> = ranked[..pool]
        .iter()
        .enumerate()
        .map(|(i, &(slot, _))| {
            let named = cues_of(slot).is_some_and(|c| query.names_speaker_of(c));
            (i as u32, 1.0 / (1.0 + i as f32) + if named { fitted!(SpeakerBonus, SPEAKER_BONUS) } else { 0.0 })
        })
        .collect();
    // Equal scores keep the fusion's order (the lower index first).
    let n = scored.len();
    crate::index::vector::top_k_by_score(&mut scored, n);
    let reordered: Vec<(u32, T)> = scored.iter().map(|&(i, _)| ranked[i as usize].clone()).collect();
    ranked[..pool].clone_from_slice(&reordered);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lines(texts: &[&str]) -> Vec<TextCues> {
        texts.iter().map(|t| TextCues::of(t)).collect()
    }

    #[test]
    fn the_named_speakers_lines_rise_above_the_other_speakers_below_the_top_few() {
        let cues = lines(&["Melanie: a", "Melanie: b", "Melanie: c", "Melanie: d", "Melanie: e", "Caroline: f", "Melanie: g"]);
        let mut ranked: Vec<(u32, f32)> = (0..cues.len() as u32).map(|s| (s, 1.0)).collect();
        rerank(&mut ranked, &QueryCues::of("What did Caroline paint?"), |s| cues.get(s as usize));
        let order: Vec<u32> = ranked.iter().map(|r| r.0).collect();
        // Position 5 scores 1/6 + 0.2 ≈ 0.37: above position 2 (0.33) and later, below 1 (0.5).
        assert_eq!(order, vec![0, 1, 5, 2, 3, 4, 6]);
    }

    #[test]
    fn a_query_naming_no_speaker_or_every_speaker_leaves_the_order() {
        let cues = lines(&["Melanie: a", "Caroline: b", "plain memory", "Melanie: d", "Caroline: e"]);
        let said = lines(&["Melanie: a", "Caroline: b", "Melanie: c", "Melanie: d", "Caroline: e"]);
        for (q, cues) in [("What did they paint?", &cues), ("What did Caroline and Melanie paint?", &said)] {
            let mut ranked: Vec<(u32, f32)> = (0..cues.len() as u32).rev().map(|s| (s, 0.5)).collect();
            let before = ranked.clone();
            rerank(&mut ranked, &QueryCues::of(q), |s| cues.get(s as usize));
            assert_eq!(ranked, before, "{q}");
        }
    }

    proptest! {
        #[test]
        fn reranking_permutes_only_the_pool_and_keeps_each_groups_order(
            speakers in proptest::collection::vec(0u8..3, 0..60),
        ) {
            let names = ["Caroline: x", "Melanie: y", "no speaker"];
            let cues: Vec<TextCues> = speakers.iter().map(|&k| TextCues::of(names[k as usize])).collect();
            let mut ranked: Vec<(u32, ())> = (0..cues.len() as u32).map(|s| (s, ())).collect();
            rerank(&mut ranked, &QueryCues::of("Where did Caroline go?"), |s| cues.get(s as usize));
            let mut sorted: Vec<u32> = ranked.iter().map(|r| r.0).collect();
            prop_assert!(ranked.iter().skip(RERANK_POOL).enumerate().all(|(i, r)| r.0 as usize == i + RERANK_POOL), "past the pool: untouched");
            let named: Vec<u32> = ranked.iter().map(|r| r.0).filter(|&s| speakers[s as usize] == 0).collect();
            let others: Vec<u32> = ranked.iter().take(RERANK_POOL).map(|r| r.0).filter(|&s| speakers[s as usize] != 0).collect();
            prop_assert!(named.windows(2).all(|w| w[0] < w[1]) && others.windows(2).all(|w| w[0] < w[1]), "each group keeps its order");
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..cues.len() as u32).collect::<Vec<_>>());
        }
    }
}
