//! Recall over months of real conversation (issue 15), on LoCoMo's development split when
//! it is beside the repository (`../shared/eval/locomo-dev/`, CC BY-NC 4.0: read there,
//! never copied). Time reorders what is recalled but never hides a strong match, and every
//! default configuration beats the split's strongest model-free peer.

use engram_core::Config;
use engram_testkit::locomo::{self, LocomoSample};
use engram_testkit::qa_eval::load_default_table;

fn samples() -> Option<Vec<LocomoSample>> {
    let path = locomo::default_path();
    if !path.exists() {
        eprintln!("skipped: {} is absent", path.display());
        return None;
    }
    Some(locomo::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn recall_at_10(m: &locomo::Measures) -> f64 {
    m.mean(m.recall[2])
}

#[test]
fn months_of_conversation_are_recalled_as_well_as_one_moment_of_it_and_better_than_the_peer() {
    let Some(samples) = samples() else { return };
    let peer = recall_at_10(&locomo::bm25_peer(&samples, true));
    let table = load_default_table();
    let embed = |t: &str| table.embed(t);
    for (name, e) in [("no embedder", None), ("default table", Some(&embed as &dyn Fn(&str) -> Vec<f32>))] {
        let (real_run, moment_run) = (locomo::evaluate(&samples, &Config::default(), e, false), locomo::evaluate(&samples, &Config::default(), e, true));
        let (undated_real, undated_moment) = (recall_at_10(&real_run.undated), recall_at_10(&moment_run.undated));
        let (real, moment) = (recall_at_10(&real_run.measures), recall_at_10(&moment_run.measures));
        eprintln!("{name}: recall@10 real timeline {real:.3}, one moment {moment:.3} (naming no date {undated_real:.3}, {undated_moment:.3}), peer {peer:.3}");
        // Where a question names no date, the two differ only by decay and recency.
        assert!((undated_real - undated_moment).abs() <= 0.01, "{name}: time changed recall@10 from {undated_moment:.3} to {undated_real:.3}");
        // A question that names a date ("on 3 June, 2023") can only be answered by its
        // date when the turns carry real ones: there time may help, never hurt.
        assert!(real >= moment - 0.01, "{name}: time cost recall@10: {moment:.3} → {real:.3}");
        assert!(real > peer + 0.01, "{name}: {real:.3} against the peer's {peer:.3}");
    }
}

#[test]
fn consolidation_keeps_recall_of_real_sessions_while_it_folds_turns_and_writes_episodes() {
    use engram_core::consolidate::{Compression, Consolidation, Episodes, Folded};
    let Some(samples) = samples() else { return };
    let table = load_default_table();
    let embed = |t: &str| table.embed(t);
    let on = Consolidation { compression: Some(Compression { folded: Folded::Keep, ..Compression::default() }), episodes: Some(Episodes::default()), ..Consolidation::default() };
    for (name, e) in [("no embedder", None), ("default table", Some(&embed as &dyn Fn(&str) -> Vec<f32>))] {
        let off = locomo::evaluate_sessions(&samples, &Config::default(), &Consolidation::default(), e, false);
        let with = locomo::evaluate_sessions(&samples, &Config::default(), &on, e, false);
        let sessions = samples.iter().map(|s| s.turns.iter().map(|t| t.session).max().unwrap_or(0)).sum::<usize>();
        eprintln!(
            "{name}: recall@10 consolidation off {:.3}, on {:.3}; {} episodes of {sessions} sessions, {} turns folded",
            recall_at_10(&off.measures),
            recall_at_10(&with.measures),
            with.episodes,
            with.folded
        );
        assert_eq!((off.episodes, off.folded), (0, 0));
        assert_eq!(with.episodes, sessions, "{name}: one episode per ended session");
        assert!(with.folded > 0, "{name}: compression folded nothing");
        assert!(recall_at_10(&with.measures) >= recall_at_10(&off.measures) - 0.01, "{name}: consolidation cost recall");
    }
}
