//! Write engram's compact rank tables for o200k_base and cl100k_base into a directory.
//!
//! `cargo run --release -p engram-testkit --bin export-token-tables -- <out-dir>`

use std::time::Instant;

use engram_core::{Bpe, Encoding};
use engram_testkit::tables;

fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "assets/tokens".into());
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("cannot create {out}: {e}");
        std::process::exit(1);
    }
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let bytes = tables::export(enc).to_bytes();
        let path = format!("{out}/{}.engtok", enc.name());
        if let Err(e) = std::fs::write(&path, &bytes) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(1);
        }
        let t = Instant::now();
        let loaded = Bpe::from_table_bytes(&bytes);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match loaded {
            Ok(b) => println!("{path}: {} tokens, {} bytes, loads in {ms:.1} ms", b.table().len(), bytes.len()),
            Err(e) => {
                eprintln!("{path} does not load back: {e}");
                std::process::exit(1);
            }
        }
    }
}
