//! Embedders that run inside the core.
//!
//! [`StaticEmbedder`], the default: a static token-embedding table distilled from
//! all-MiniLM-L6-v2 (model2vec-style, see `scripts/distill/`). Text → BERT WordPiece →
//! table rows (int8 with one f32 scale per row) → mean → unit length. No model, no
//! network: ~1 µs per token. The table is not linked into the core; it is loaded from
//! bytes (`.engemb`): magic `ENGE`, u16 version 1, u16 dim, u32 rows, u32 vocab bytes, the
//! vocabulary (tokens joined by `\n`, row i = token id i), rows × f32 scales, rows × dim
//! int8, CRC-32.
//!
//! [`BertEmbedder`], opt-in: the full model run from its own weights — the model's
//! vectors, at transformer cost.

mod accents;
mod bert;
mod safetensors;
mod wordpiece;

pub use bert::{BertConfig, BertEmbedder};
pub use wordpiece::WordPiece;

use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"ENGE";
const VERSION: u16 = 1;
/// Tokens embedded per text at most (BERT's window).
pub const MAX_TOKENS: usize = 512;

/// A static embedder loaded from a `.engemb` table.
#[derive(Debug)]
pub struct StaticEmbedder {
    dim: usize,
    scales: Vec<f32>,
    /// The whole table as loaded; rows are read in place from `rows_at`.
    bytes: Vec<u8>,
    rows_at: usize,
    vocab: WordPiece,
    /// Rows whose token is only punctuation: they carry no meaning of their own.
    punctuation: Vec<bool>,
    checksum: u32,
}

fn bad(reason: impl Into<String>) -> Error {
    Error::EmbedTable(reason.into())
}

fn u32_at(b: &[u8], at: usize) -> Result<u32> {
    b.get(at..at + 4).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]])).ok_or_else(|| bad("truncated"))
}

impl StaticEmbedder {
    /// Load a table. A wrong magic, version, size or checksum is `EMBED_TABLE`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_vec(bytes.to_vec())
    }

    /// Load a table, keeping `bytes` as its storage (no copy of the rows).
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self> {
        if bytes.len() < 20 || &bytes[..4] != MAGIC {
            return Err(bad("not an engram embedding table"));
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != VERSION {
            return Err(bad(format!("version {version}, this build reads {VERSION}")));
        }
        let body = &bytes[..bytes.len() - 4];
        let checksum = u32_at(&bytes, bytes.len() - 4)?;
        if crc32fast::hash(body) != checksum {
            return Err(bad("checksum mismatch"));
        }
        let dim = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
        let rows = u32_at(&bytes, 8)? as usize;
        let vocab_len = u32_at(&bytes, 12)? as usize;
        let vocab_end = 16usize.checked_add(vocab_len).ok_or_else(|| bad("vocabulary size"))?;
        let scales_end = vocab_end.checked_add(rows * 4).ok_or_else(|| bad("rows"))?;
        let rows_end = scales_end.checked_add(rows.checked_mul(dim).ok_or_else(|| bad("rows × dim"))?).ok_or_else(|| bad("rows"))?;
        if dim == 0 || rows == 0 || rows_end != body.len() {
            return Err(bad(format!("{} bytes do not hold {rows} rows of {dim}", body.len())));
        }
        let vocab = std::str::from_utf8(&body[16..vocab_end]).map_err(|_| bad("vocabulary is not UTF-8"))?;
        let tokens: Vec<&str> = vocab.split('\n').collect();
        if tokens.len() != rows {
            return Err(bad(format!("{} tokens for {rows} rows", tokens.len())));
        }
        let scales: Vec<f32> = body[vocab_end..scales_end].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if scales.iter().any(|s| !s.is_finite()) {
            return Err(bad("a row scale is NaN or infinite"));
        }
        let punctuation = tokens.iter().map(|t| t.trim_start_matches("##").chars().all(|c| !c.is_alphanumeric())).collect();
        let vocab = WordPiece::new(tokens.iter().copied());
        Ok(StaticEmbedder { dim, scales, bytes, rows_at: scales_end, vocab, punctuation, checksum })
    }

    /// Dimensions of the vectors.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The embedder's identity for [`crate::EmbedderInfo`]: changes with the table.
    pub fn id(&self) -> String {
        format!("engram-static-minilm-l6-v2-{}d-{:08x}", self.dim, self.checksum)
    }

    /// Token ids of `text` (without `[UNK]`), at most [`MAX_TOKENS`].
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        self.vocab.encode(text, MAX_TOKENS, &mut ids);
        if let Some(unk) = self.vocab.unk() {
            ids.retain(|&i| i != unk);
        }
        ids
    }

    /// The unit-length embedding of `text` into `out` (`dim` long).
    ///
    /// A text the table cannot represent embeds as zeros — "no vector", which callers store
    /// without an embedding: no known word, or more unknown words (`[UNK]`) than known
    /// ones (e.g. Chinese, which this English vocabulary mostly lacks). Otherwise such
    /// texts would all collapse onto their punctuation and look like near-duplicates.
    pub fn embed_into(&self, text: &str, out: &mut [f32]) -> Result<()> {
        if out.len() != self.dim {
            return Err(Error::DimensionMismatch { expected: self.dim, found: out.len() });
        }
        out.fill(0.0);
        let mut ids = Vec::new();
        self.vocab.encode(text, MAX_TOKENS, &mut ids);
        let unknown = ids.iter().filter(|&&i| Some(i) == self.vocab.unk()).count();
        ids.retain(|&i| Some(i) != self.vocab.unk());
        let known = ids.iter().filter(|&&i| !self.punctuation.get(i as usize).copied().unwrap_or(true)).count();
        if known == 0 || unknown > known {
            return Ok(());
        }
        for &id in &ids {
            let at = self.rows_at + id as usize * self.dim;
            let (Some(row), Some(&s)) = (self.bytes.get(at..at + self.dim), self.scales.get(id as usize)) else { continue };
            for (o, &q) in out.iter_mut().zip(row) {
                *o += f32::from(q as i8) * s;
            }
        }
        // Scaled by the largest component first: with extreme row scales the squares would
        // overflow to infinity or vanish below f32's range, and the result not be unit length.
        let max = out.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        if max.is_finite() && max > 0.0 {
            out.iter_mut().for_each(|x| *x /= max);
        }
        let norm = out.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            out.iter_mut().for_each(|x| *x /= norm);
        }
        Ok(())
    }

    /// The unit-length embedding of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0; self.dim];
        // `v` has exactly `dim` entries, the only way `embed_into` fails.
        let _ = self.embed_into(text, &mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(tokens: &[&str], dim: u16, rows: &[&[i8]]) -> Vec<u8> {
        let vocab = tokens.join("\n");
        let mut b = b"ENGE".to_vec();
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&dim.to_le_bytes());
        b.extend_from_slice(&(tokens.len() as u32).to_le_bytes());
        b.extend_from_slice(&(vocab.len() as u32).to_le_bytes());
        b.extend_from_slice(vocab.as_bytes());
        for _ in tokens {
            b.extend_from_slice(&0.5f32.to_le_bytes());
        }
        for r in rows {
            b.extend(r.iter().map(|&x| x as u8));
        }
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn a_text_embeds_as_the_normalized_mean_of_its_rows_without_unknowns() {
        let e = StaticEmbedder::from_bytes(&table(&["[UNK]", "red", "apple"], 2, &[&[9, 9], &[2, 0], &[0, 2]])).unwrap_or_else(|e| panic!("{e}"));
        let v = e.embed("Red zzz apple");
        assert!((v[0] - v[1]).abs() < 1e-6 && (v[0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6, "{v:?}");
        assert_eq!(e.embed("zzz"), vec![0.0, 0.0], "nothing known");
        assert_eq!(e.embed("red xxx yyy"), vec![0.0, 0.0], "more unknown words than known ones");
    }

    #[test]
    fn corrupt_tables_are_typed_errors() {
        let good = table(&["a", "b"], 2, &[&[1, 2], &[3, 4]]);
        let code = |b: &[u8]| StaticEmbedder::from_bytes(b).map(|_| ()).map_err(|e| e.code());
        assert_eq!(code(&good), Ok(()));
        let mut flipped = good.clone();
        flipped[20] ^= 1;
        assert_eq!(code(&flipped), Err("EMBED_TABLE"));
        assert_eq!(code(&good[..good.len() - 9]), Err("EMBED_TABLE"));
        assert_eq!(code(b"nope"), Err("EMBED_TABLE"));
        for cut in 0..good.len() {
            let _ = StaticEmbedder::from_bytes(&good[..cut]); // never panics
        }
    }
}
