//! Export tiktoken's vocabularies (as shipped inside the `tiktoken-rs` crate) into
//! engram's compact rank-table format, and load them for tests.

use std::sync::{Arc, OnceLock};

use engram_core::{Bpe, Encoding, RankTable, Tokenizer};
use tiktoken_rs::CoreBPE;

/// The reference tokenizer from `tiktoken-rs` (an independent implementation).
pub fn reference(encoding: Encoding) -> &'static CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    }
}

/// Build engram's rank table for `encoding` from the reference: ordinary tokens are the
/// ranks `0..n` that decode and are not special.
pub fn export(encoding: Encoding) -> RankTable {
    let bpe = reference(encoding);
    let specials: Vec<(String, u32)> = {
        let mut v: Vec<(String, u32)> = bpe
            .special_tokens()
            .into_iter()
            .map(|s| (s.to_owned(), bpe.encode_with_special_tokens(s)[0]))
            .collect();
        v.sort_by_key(|(_, r)| *r);
        v
    };
    let mut tokens = Vec::new();
    for rank in 0u32.. {
        if specials.iter().any(|(_, r)| *r == rank) {
            break;
        }
        match bpe.decode_bytes(&[rank]) {
            Ok(b) => tokens.push(b),
            Err(_) => break,
        }
    }
    match RankTable::from_tokens(encoding.name(), &tokens, specials) {
        Ok(t) => t,
        Err(e) => panic!("tiktoken-rs shipped an unusable {} table: {e}", encoding.name()),
    }
}

/// The compact file bytes for `encoding`, built once per process.
pub fn table_bytes(encoding: Encoding) -> &'static [u8] {
    static O200K: OnceLock<Vec<u8>> = OnceLock::new();
    static CL100K: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    cell.get_or_init(|| export(encoding).to_bytes())
}

/// engram's exact tokenizer for `encoding`, loaded from the compact bytes (cached).
pub fn bpe(encoding: Encoding) -> Arc<Bpe> {
    static O200K: OnceLock<Arc<Bpe>> = OnceLock::new();
    static CL100K: OnceLock<Arc<Bpe>> = OnceLock::new();
    let cell = match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    cell.get_or_init(|| match Bpe::from_table_bytes(table_bytes(encoding)) {
        Ok(b) => Arc::new(b),
        Err(e) => panic!("exported table failed to load: {e}"),
    })
    .clone()
}

/// The exact o200k tokenizer as an engine `Tokenizer`.
pub fn o200k() -> Tokenizer {
    Tokenizer::Exact(bpe(Encoding::O200kBase))
}
