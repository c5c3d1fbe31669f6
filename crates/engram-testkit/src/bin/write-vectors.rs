//! Write the shared test vectors into a folder (default `tests/vectors`): `snapshot.bin`,
//! `ops.bin`, `frames.bin` and `manifest.json` (see `engram_testkit::vectors`), and what the
//! SDK mirrors by hand: `error-codes.json` and `types.json` (see `engram_testkit::mirrors`).

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "tests/vectors".into()));
    let v = engram_testkit::vectors::make();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("write-vectors: {}: {e}", dir.display());
        std::process::exit(1);
    }
    let (codes, types) = (engram_testkit::mirrors::error_codes(), engram_testkit::mirrors::types());
    let mirrors = [("manifest.json", v.manifest.as_bytes()), ("error-codes.json", codes.as_bytes()), ("types.json", types.as_bytes())];
    for (name, bytes) in v.files.iter().map(|(n, b)| (*n, b.as_slice())).chain(mirrors) {
        if let Err(e) = std::fs::write(dir.join(name), bytes) {
            eprintln!("write-vectors: {name}: {e}");
            std::process::exit(1);
        }
        println!("{} ({} bytes)", dir.join(name).display(), bytes.len());
    }
}
