//! The committed vectors in `tests/vectors/` are what the code writes today, and they
//! decode to what their manifest says.

use std::path::PathBuf;

use engram_core::codec::frames::decode_frames;
use engram_core::{decode_ops, Engram, ListFilter, Scope};

fn committed(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (cargo run --release -p engram-testkit --bin write-vectors)", path.display()))
}

#[test]
fn the_committed_vectors_are_byte_for_byte_what_the_test_kit_writes_now() {
    let v = engram_testkit::vectors::make();
    for (name, bytes) in &v.files {
        assert!(committed(name) == *bytes, "tests/vectors/{name} differs from what the code writes: a format changed; regenerate with write-vectors and say so");
    }
    assert_eq!(String::from_utf8(committed("manifest.json")).expect("utf-8"), v.manifest);
}

#[test]
fn the_committed_error_codes_and_types_are_what_the_rust_definitions_say_now() {
    let text = |name| String::from_utf8(committed(name)).expect("utf-8");
    assert_eq!(text("error-codes.json"), engram_testkit::mirrors::error_codes(), "regenerate with write-vectors: the SDK's copy is checked against it");
    assert_eq!(text("types.json"), engram_testkit::mirrors::types(), "regenerate with write-vectors: the SDK's copy is checked against it");
}

#[test]
fn the_committed_vectors_decode_to_their_manifest() {
    let snapshot = Engram::from_snapshot(&committed("snapshot.bin")).expect("snapshot");
    let ana = snapshot.list(&Scope::user("acme", "ana"), &ListFilter::default(), 1_764_000_010_000).expect("list");
    let texts: Vec<&str> = ana.iter().map(|r| r.text.as_str()).collect();
    assert!(texts.contains(&"Ana switched to coffee") && !texts.contains(&"Ana prefers tea"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("phone")), "the forgotten memory stays forgotten");

    let ops = decode_ops(&committed("ops.bin")).expect("ops");
    let mut replayed = Engram::new(Default::default(), 7);
    replayed.apply_ops(ops.clone()).expect("apply");
    assert_eq!(replayed.canonical_state().expect("state"), snapshot.canonical_state().expect("state"));

    let frames = decode_frames(&committed("frames.bin")).expect("frames");
    assert_eq!(frames.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["42-1", "42-2"]);
    let framed: Vec<_> = frames.iter().flat_map(|f| decode_ops(&f.ops).expect("batch")).collect();
    assert_eq!(framed, ops);
}
