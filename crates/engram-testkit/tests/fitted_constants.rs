//! The test kit overrides recall's constants fitted on LoCoMo's development split
//! (`engram_core::testing::fitted`) for the three-fold check of `locomo-folds`. The
//! override must reach recall, and unsetting it must restore the constant. One test in
//! this file: an override is process-wide.

use engram_core::testing::fitted::{self, Fitted};
use engram_core::{Config, Engram, Kind, MemoryInput, RecallQuery, Scope};

const T0: i64 = 1_764_000_000_000;

#[test]
fn a_neighbours_share_set_to_nothing_drops_the_line_found_only_through_it_until_it_is_unset() {
    let alice = Scope::user("acme", "alice");
    let mut e = Engram::new(Config::default(), 7);
    for (i, line) in ["Caroline: We drove up to the lake cabin on Saturday.", "Melanie: Sounds wonderful, so peaceful there."].iter().enumerate() {
        e.remember(&alice, MemoryInput::new(Kind::Event, *line), T0 + i as i64 * 1_000).expect("remember");
    }
    let mut q = RecallQuery::text("the lake cabin trip").with_k(10);
    q.force = true;
    let found = |e: &Engram| -> Vec<String> { e.recall(&alice, &q, T0 + 60_000).expect("recall").hits.into_iter().map(|h| h.record.text).collect() };
    let reply = "Melanie: Sounds wonderful, so peaceful there.";

    assert!(found(&e).iter().any(|t| t == reply), "said beside a match, the reply is found through it: {:?}", found(&e));
    fitted::set(Fitted::LexicalSpread, Some(0.0)).expect("a share");
    assert!(!found(&e).iter().any(|t| t == reply), "with no share of its neighbour's words the reply holds none of the query's: {:?}", found(&e));
    fitted::set(Fitted::LexicalSpread, None).expect("unset");
    assert!(found(&e).iter().any(|t| t == reply), "unset, the constant is back: {:?}", found(&e));

    let refused = fitted::set(Fitted::SpeakerBonus, Some(f32::NAN)).expect_err("NaN is no bonus");
    assert_eq!(refused.code(), "INVALID_INPUT");
}
