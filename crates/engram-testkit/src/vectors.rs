//! Shared test vectors (`tests/vectors/` at the top level): a snapshot, an op batch and a
//! sync body, made from one seeded engine, and a manifest of what each holds. The Rust,
//! SDK and origin tests read the committed files; CI writes them again and fails on a diff,
//! so a change to any format shows as a changed vector in review.

use engram_core::codec::frames::{encode_frames, Frame};
use engram_core::knowledge::graph::{EntityRef, Relation};
use engram_core::{encode_ops, Config, Engram, ListFilter, MemoryInput, Scope, Turn};

/// The replica id (and the only source of variation): recorded in the manifest.
pub const SEED: u64 = 42;
const T0: i64 = 1_764_000_000_000;

/// The vectors: file name → bytes, and the manifest (JSON) describing them.
pub struct Vectors {
    pub files: Vec<(&'static str, Vec<u8>)>,
    pub manifest: String,
}

/// Make the vectors. Deterministic: the same bytes on every run of the same code.
pub fn make() -> Vectors {
    let mut e = Engram::new(Config::default(), SEED);
    let ana = Scope::user("acme", "ana").with_session("s1");
    let ben = Scope::user("acme", "ben");
    let ok = "a vector write is valid";
    e.remember(&ana, MemoryInput::fact("Ana prefers tea").with_key("ana", "drink"), T0).expect(ok);
    e.remember(&ana, MemoryInput::fact("Ana switched to coffee").with_key("ana", "drink"), T0 + 1_000).expect(ok);
    e.remember(&ana, MemoryInput::fact("Ana lives in Lisbon").with_embedding(vec![0.5, -0.25, 1.0, 0.0]), T0 + 2_000).expect(ok);
    let doomed = e.remember(&ana, MemoryInput::fact("Ana's old phone was broken"), T0 + 3_000).expect(ok).id;
    e.forget(&ana, &doomed, T0 + 4_000).expect(ok);
    e.append_turn(&ana, Turn::user("我下周去杭州出差"), T0 + 5_000).expect(ok);
    e.session_set(&ana, "mood", "curious", T0 + 6_000).expect(ok);
    e.relate(&ana, Relation::new(EntityRef::new("Ana", "person"), "works_on", EntityRef::new("Atlas", "project")), T0 + 7_000).expect(ok);
    e.remember(&ben, MemoryInput::fact("Ben is allergic to peanuts"), T0 + 8_000).expect(ok);

    let ops = e.take_pending();
    let half = ops.len() / 2;
    let ops_bytes = encode_ops(&ops).expect(ok);
    let frames = encode_frames(&[
        Frame { id: format!("{SEED}-1"), ops: encode_ops(&ops[..half]).expect(ok) },
        Frame { id: format!("{SEED}-2"), ops: encode_ops(&ops[half..]).expect(ok) },
    ]);
    let snapshot = e.snapshot().expect(ok);

    let current = |s: &Scope| -> Vec<String> {
        e.list(s, &ListFilter::default(), T0 + 10_000).expect(ok).into_iter().map(|r| format!("{{\"id\":{:?},\"text\":{:?}}}", r.id, r.text)).collect()
    };
    let manifest = format!(
        "{{\n  \"seed\": {SEED},\n  \"writtenBy\": \"cargo run --release -p engram-testkit --bin write-vectors -- tests/vectors\",\n  \"now\": {},\n  \"snapshot\": {{ \"file\": \"snapshot.bin\", \"bytes\": {}, \"current\": {{ \"acme/ana\": [{}], \"acme/ben\": [{}] }} }},\n  \"ops\": {{ \"file\": \"ops.bin\", \"bytes\": {}, \"count\": {} }},\n  \"frames\": {{ \"file\": \"frames.bin\", \"bytes\": {}, \"ids\": [\"{SEED}-1\", \"{SEED}-2\"], \"ops\": [{}, {}] }}\n}}\n",
        T0 + 10_000,
        snapshot.len(),
        current(&ana).join(", "),
        current(&ben).join(", "),
        ops_bytes.len(),
        ops.len(),
        frames.len(),
        half,
        ops.len() - half,
    );
    Vectors { files: vec![("snapshot.bin", snapshot), ("ops.bin", ops_bytes), ("frames.bin", frames)], manifest }
}
