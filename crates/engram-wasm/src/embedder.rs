//! Binding of `engram_core::embed`: the default static embedder, loaded from table bytes,
//! and the accurate embedder, loaded from a BERT model's safetensors and vocabulary.

use engram_core::embed::{BertConfig, BertEmbedder as CoreBertEmbedder, StaticEmbedder as CoreStaticEmbedder};
use wasm_bindgen::prelude::*;

use crate::error::to_js;

/// The default embedder (a static table distilled from all-MiniLM-L6-v2).
#[wasm_bindgen]
pub struct StaticEmbedder {
    inner: CoreStaticEmbedder,
}

#[wasm_bindgen]
impl StaticEmbedder {
    /// Load a `.engemb` table (bytes). Throws `EngramError` with code `EMBED_TABLE` on bad input.
    #[wasm_bindgen(js_name = fromTableBytes)]
    pub fn from_table_bytes(bytes: Vec<u8>) -> Result<StaticEmbedder, JsValue> {
        Ok(StaticEmbedder { inner: CoreStaticEmbedder::from_vec(bytes).map_err(to_js)? })
    }

    /// Dimensions of the vectors.
    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> u32 {
        self.inner.dim() as u32
    }

    /// The unit-length vector of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.inner.embed(text)
    }

    /// The vectors of several texts, concatenated (`texts.length × dim`), in one call.
    #[wasm_bindgen(js_name = embedMany)]
    pub fn embed_many(&self, texts: Vec<String>) -> Vec<f32> {
        embed_rows(&texts, self.inner.dim(), |t, row| self.inner.embed_into(t, row))
    }

    /// WordPiece token ids of `text` (without `[UNK]`), for tests.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        self.inner.tokenize(text)
    }
}

/// The accurate embedder: a BERT sentence encoder (all-MiniLM-L6-v2 by default) run in full.
#[wasm_bindgen]
pub struct BertEmbedder {
    inner: CoreBertEmbedder,
}

#[wasm_bindgen]
impl BertEmbedder {
    /// Load from `model.safetensors` bytes and `vocab.txt` text. `heads` and `maxTokens`
    /// default to all-MiniLM-L6-v2's (12, 256). Throws `EngramError` with code
    /// `EMBED_MODEL` on bad input.
    #[wasm_bindgen(js_name = fromSafetensors)]
    pub fn from_safetensors(weights: &[u8], vocab: &str, heads: Option<u32>, max_tokens: Option<u32>) -> Result<BertEmbedder, JsValue> {
        let d = BertConfig::MINILM_L6;
        let config = BertConfig { heads: heads.map_or(d.heads, |h| h as usize), max_tokens: max_tokens.map_or(d.max_tokens, |m| m as usize) };
        Ok(BertEmbedder { inner: CoreBertEmbedder::from_safetensors(weights, vocab, config).map_err(to_js)? })
    }

    /// Dimensions of the vectors.
    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> u32 {
        self.inner.dim() as u32
    }

    /// The model's identity (changes with the weights).
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.inner.id()
    }

    /// The vectors of several texts, concatenated (`texts.length × dim`), in one call.
    #[wasm_bindgen(js_name = embedMany)]
    pub fn embed_many(&self, texts: Vec<String>) -> Vec<f32> {
        embed_rows(&texts, self.inner.dim(), |t, row| self.inner.embed_into(t, row))
    }

    /// The token ids the model reads (`[CLS]` … `[SEP]`), for tests.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        self.inner.tokenize(text)
    }
}

/// The vectors of `texts`, concatenated, each row written by `embed_into`.
fn embed_rows(texts: &[String], dim: usize, embed_into: impl Fn(&str, &mut [f32]) -> engram_core::Result<()>) -> Vec<f32> {
    let mut out = vec![0.0; texts.len() * dim];
    for (t, row) in texts.iter().zip(out.chunks_exact_mut(dim)) {
        // Each row is exactly `dim` long: `embed_into` cannot fail here.
        let _ = embed_into(t, row);
    }
    out
}
