//! Binding of `engram_core::embed`: the default static embedder, loaded from table bytes.

use engram_core::embed::StaticEmbedder as CoreStaticEmbedder;
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
        let d = self.inner.dim();
        let mut out = vec![0.0; texts.len() * d];
        for (t, chunk) in texts.iter().zip(out.chunks_exact_mut(d)) {
            // Each chunk is exactly `dim` long: `embed_into` cannot fail here.
            let _ = self.inner.embed_into(t, chunk);
        }
        out
    }

    /// WordPiece token ids of `text` (without `[UNK]`), for tests.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        self.inner.tokenize(text)
    }
}
