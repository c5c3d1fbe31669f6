//! Binding of `engram_core::context::tokens`: an exact tokenizer built from a rank-table file.

use std::sync::Arc;

use engram_core::Bpe;
use wasm_bindgen::prelude::*;

use crate::error::{to_js, to_plain};

/// An exact tiktoken-compatible tokenizer (`o200k_base` or `cl100k_base`).
#[wasm_bindgen]
pub struct Tokenizer {
    pub(crate) bpe: Arc<Bpe>,
}

#[wasm_bindgen]
impl Tokenizer {
    /// Load a `.engtok` rank table (bytes). Throws `EngramError` (`BAD_MAGIC`,
    /// `CHECKSUM`, `TRUNCATED`, `UNSUPPORTED_VERSION`, `TOKEN_TABLE`) on bad input.
    #[wasm_bindgen(js_name = fromTableBytes)]
    pub fn from_table_bytes(bytes: &[u8]) -> Result<Tokenizer, JsValue> {
        Ok(Tokenizer { bpe: Arc::new(Bpe::from_table_bytes(bytes).map_err(to_js)?) })
    }

    /// The encoding's name.
    #[wasm_bindgen(getter)]
    pub fn encoding(&self) -> String {
        self.bpe.encoding().name().to_owned()
    }

    /// Exact token count of `text`.
    pub fn count(&self, text: &str) -> u32 {
        self.bpe.count(text) as u32
    }

    /// Exact token counts of several texts.
    #[wasm_bindgen(js_name = countMany)]
    pub fn count_many(&self, texts: Vec<String>) -> Vec<u32> {
        texts.iter().map(|t| self.bpe.count(t) as u32).collect()
    }

    /// Token ids (as tiktoken's `encode_ordinary`).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.bpe.encode(text)
    }

    /// The longest prefix of `text` within `maxTokens`, never splitting a character:
    /// `{ text, tokens }`.
    pub fn truncate(&self, text: &str, max_tokens: u32) -> Result<JsValue, JsValue> {
        let (prefix, n) = self.bpe.truncate(text, max_tokens as usize);
        #[derive(serde::Serialize)]
        struct Truncated<'a> {
            text: &'a str,
            tokens: usize,
        }
        to_plain(&Truncated { text: prefix, tokens: n })
    }
}
