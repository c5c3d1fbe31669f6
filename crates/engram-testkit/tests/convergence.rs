//! Sync converges: N replicas and an origin over a seeded network that drops, duplicates,
//! delays and reorders end with identical records, sessions, tombstones and graphs — with
//! forgetting in the mix. A failure prints its seed; rerun one with `ENGRAM_SIM_SEED`.

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
