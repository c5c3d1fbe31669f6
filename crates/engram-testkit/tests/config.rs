//! Settings: numbers that would make recall order by garbage are refused with a typed
//! error, and a store restored from a snapshot takes the caller's settings over the ones
//! it was saved with — except the precision its vectors are stored at.

use engram_core::read::decay::{Decay, DAY_MS};
use engram_core::index::vector::Precision;
use engram_core::{ChannelWeights, Config, Engram, Error, MemoryInput, RecallQuery, Scope};

const T0: i64 = 1_764_000_000_000;

fn alice() -> Scope {
    Scope::user("acme", "alice")
}

#[test]
fn fusion_settings_that_would_order_by_garbage_are_refused() {
    for config in [
        Config { rrf_k: -1.0, ..Config::default() },
        Config { rrf_k: f32::NAN, ..Config::default() },
        Config { weights: ChannelWeights { lexical: f32::INFINITY, ..Default::default() }, ..Config::default() },
        Config { weights: ChannelWeights { vector: -0.5, ..Default::default() }, ..Config::default() },
        Config { min_similarity: f32::NAN, ..Config::default() },
        Config { weak_threshold: -0.1, ..Config::default() },
        Config { session_ttl_ms: 0, ..Config::default() },
    ] {
        assert!(matches!(config.validate(), Err(Error::InvalidInput { .. })), "{config:?}");
    }
    assert!(Config::default().validate().is_ok());
    assert!(Config { rrf_k: 60.0, ..Config::default() }.validate().is_ok());
}

#[test]
fn a_restored_store_takes_the_callers_settings_but_keeps_its_vectors_precision() {
    let mut e = Engram::new(Config::default(), 1);
    e.remember(&alice(), MemoryInput::fact("Alice likes green tea").with_embedding(vec![1.0, 0.0, 0.0]), T0).expect("remember");
    let mut restored = Engram::from_snapshot(&e.snapshot().expect("snapshot")).expect("restore");
    let q = RecallQuery::text("green tea");
    assert_eq!(restored.recall(&alice(), &q, T0).expect("recall").hits.len(), 1);

    // A month later the default decay has halved the memory's weight; the new setting
    // (no decay) keeps it whole.
    let later = T0 + 30 * DAY_MS;
    assert!(restored.recall(&alice(), &q, later).expect("recall").hits[0].parts.decay < 0.51);
    restored.set_config(Config { decay: Decay::None, weak_threshold: 0.6, ..Config::default() }).expect("new settings");
    assert_eq!(restored.config().weak_threshold, 0.6);
    assert_eq!(restored.recall(&alice(), &q, later).expect("recall").hits[0].parts.decay, 1.0);

    let refused = [
        Config { rrf_k: f32::NAN, ..Config::default() },
        Config { precision: Precision::F32, ..Config::default() },
    ];
    for config in refused {
        assert!(matches!(restored.set_config(config.clone()), Err(Error::InvalidInput { .. })), "{config:?}");
        assert_eq!(restored.config().weak_threshold, 0.6, "a refused config leaves the engine as it was");
        assert_eq!(restored.config().decay, Decay::None, "a refused config leaves the engine as it was");
    }
    // A store without vectors may still choose its precision.
    let mut empty = Engram::new(Config::default(), 2);
    empty.set_config(Config { precision: Precision::F32, ..Config::default() }).expect("no vectors yet");
    assert_eq!(empty.config().precision, Precision::F32);
}
