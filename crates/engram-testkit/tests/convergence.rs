//! Sync converges: N replicas and an origin over a seeded network that drops, duplicates,
//! delays and reorders end with identical records, sessions, tombstones and graphs — with
//! forgetting in the mix. A failure prints its seed; rerun one with `ENGRAM_SIM_SEED`.

use engram_core::{Config, Engram};
use engram_testkit::netsim::{Faults, Sim};

fn check(seed: u64, replicas: usize, steps: usize, faults: Faults) {
    let mut sim = Sim::new(seed, replicas, faults);
    sim.run(steps);
    sim.settle();
    let states = sim.states();
    for (i, s) in states.iter().enumerate().skip(1) {
        if *s != states[0] && std::env::var("ENGRAM_SIM_DUMP").is_ok() {
            eprintln!("== replica 0\n{}\n== replica {i}\n{}", sim.dump(0), sim.dump(i));
        }
        assert!(*s == states[0], "seed {seed}: replica {i} (of {replicas}, the last is the origin) differs from replica 0 after {:?}", sim.stats);
    }
    assert!(sim.stats.writes > steps / 10, "seed {seed}: the workload wrote ({:?})", sim.stats);
}

#[test]
fn replicas_converge_over_a_lossy_duplicating_reordering_network() {
    let faults = Faults { drop: 0.2, duplicate: 0.1, delay: 0.3 };
    let seeds: Vec<u64> = match std::env::var("ENGRAM_SIM_SEED") {
        Ok(s) => vec![s.parse().expect("ENGRAM_SIM_SEED is a number")],
        Err(_) => (1..=40).collect(),
    };
    for seed in seeds {
        check(seed, 2 + (seed % 3) as usize, 600, faults);
    }
}

#[test]
fn a_perfect_network_converges_too() {
    check(7, 3, 400, Faults { drop: 0.0, duplicate: 0.0, delay: 0.0 });
}

#[test]
fn a_replicas_state_ops_rebuild_its_whole_state_on_an_empty_replica() {
    // Mid-run states (unsynced writes, tombstones, forgets, sessions, graphs): what a store
    // with history pushes when it first syncs must carry all of it.
    for seed in 1..=12u64 {
        let mut sim = Sim::new(seed, 3, Faults { drop: 0.2, duplicate: 0.1, delay: 0.3 });
        sim.run(500);
        for (i, engine) in sim.engines().enumerate() {
            let mut fresh = Engram::new(Config::default(), 9_000 + i as u64);
            let ops = engine.state_ops();
            fresh.apply_ops(ops.clone()).unwrap_or_else(|e| panic!("seed {seed}, replica {i}: {e}"));
            assert!(
                fresh.canonical_state().ok() == engine.canonical_state().ok(),
                "seed {seed}: replica {i}'s {} state ops rebuilt another state:\n{}\n-- vs --\n{}",
                ops.len(),
                fresh.canonical_state_text(),
                engine.canonical_state_text()
            );
            // Applying them again (a resent first push) changes nothing.
            fresh.apply_ops(ops).unwrap_or_else(|e| panic!("{e}"));
            assert!(fresh.canonical_state().ok() == engine.canonical_state().ok(), "seed {seed}: state ops are not idempotent");
        }
    }
}
