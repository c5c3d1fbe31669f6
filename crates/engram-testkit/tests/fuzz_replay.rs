//! Every committed fuzz crasher (`fuzz/crashers/<target>/`) and seed (`fuzz/seeds/<target>/`)
//! runs through its target's harness in `engram_testkit::fuzzing`: a crash once found and
//! fixed stays fixed, in the ordinary `cargo test` run, without a nightly toolchain.

use std::path::{Path, PathBuf};

use engram_testkit::fuzzing::{seeds, TARGETS};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files under `fuzz/<kind>/<target>/`, sorted (none when the folder is absent).
fn files(kind: &str, target: &str) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(fuzz_dir().join(kind).join(target)) else { return Vec::new() };
    let mut out: Vec<PathBuf> = dir.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
    out.sort();
    out
}

fn replay(kind: &str) -> usize {
    let mut n = 0;
    for (target, harness) in TARGETS {
        for path in files(kind, target) {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            if std::panic::catch_unwind(|| harness(&data)).is_err() {
                panic!("{target}: {} panics again", path.display());
            }
            n += 1;
        }
    }
    n
}

#[test]
fn every_committed_crasher_runs_through_its_target_without_a_panic() {
    let n = replay("crashers");
    eprintln!("{n} crashers replayed");
}

#[test]
fn every_committed_seed_runs_through_its_target_without_a_panic() {
    let n = replay("seeds");
    assert!(n >= TARGETS.len(), "every target has committed seeds ({n} files)");
}

#[test]
fn the_generated_seeds_are_valid_inputs_that_pass_their_harness() {
    for (target, harness) in TARGETS {
        let seeds = seeds(target);
        assert!(!seeds.is_empty(), "{target} has seeds");
        for s in &seeds {
            harness(s);
        }
    }
}

/// Writes `fuzz/seeds/<target>/seed-<n>` from `fuzzing::seeds`.
#[test]
#[ignore]
fn writes_the_seed_corpus() {
    for (target, _) in TARGETS {
        let dir = fuzz_dir().join("seeds").join(target);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        for (i, s) in seeds(target).iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i}")), s).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
