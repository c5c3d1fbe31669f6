//! Ranks with ties: a channel's hits become competition ranks before fusion, so two equal
//! scores share a rank instead of being split by insertion order.

/// Cosines closer than this are a tie: below the int8 index's precision, and a static
/// embedder scores texts that differ in one number within it ("fact 3" vs "fact 4").
pub(crate) const VECTOR_TIE: f32 = 1e-3;
/// BM25 scores within this fraction of each other are a tie.
pub(crate) const LEXICAL_TIE: f32 = 1e-4;

/// Competition ranks (1, 2, 2, 4) of hits sorted best first: a hit whose score is within
/// the tie bound of the first hit of its group shares that hit's rank. Fusing ranks, two
/// equal scores must not become ranks 2 and 7 by insertion order.
pub(crate) fn tied_ranks(sorted: &[(u32, f32)], tie_floor: impl Fn(f32) -> f32) -> Vec<u32> {
    let mut ranks = Vec::with_capacity(sorted.len());
    let mut group = (1u32, f32::INFINITY);
    for (i, &(_, score)) in sorted.iter().enumerate() {
        if i == 0 || score < tie_floor(group.1) {
            group = (i as u32 + 1, score);
        }
        ranks.push(group.0);
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::tied_ranks;

    #[test]
    fn equal_scores_share_a_rank_and_the_next_rank_counts_them() {
        let hits = [(7, 0.9), (3, 0.9), (4, 0.8), (1, 0.8), (2, 0.5)];
        assert_eq!(tied_ranks(&hits, |top| top - 1e-3), vec![1, 1, 3, 3, 5]);
        let near = [(1, 0.8043), (2, 0.8041), (3, 0.8036), (4, 0.7)];
        assert_eq!(tied_ranks(&near, |top| top - 1e-3), vec![1, 1, 1, 4]);
    }
}
