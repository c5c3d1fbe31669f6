//! The shared vectors in `tests/vectors/` as the origin reads a push: its frame decoder
//! gives the manifest's ids, and every op in them passes the checks the origin runs
//! before it stores one.

use std::path::PathBuf;

fn vector(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_vector_push_decodes_at_the_origin_and_every_op_in_it_is_valid() {
    let frames = engram_origin::frames::decode(&vector("frames.bin")).expect("frames");
    assert_eq!(frames.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["42-1", "42-2"]);
    let mut count = 0;
    for f in &frames {
        for op in engram_core::decode_ops(&f.ops).expect("batch") {
            op.validate().expect("valid op");
            count += 1;
        }
    }
    let manifest = String::from_utf8(vector("manifest.json")).expect("utf-8");
    assert!(manifest.contains(&format!("\"count\": {count}")), "{count} ops, manifest: {manifest}");
}
