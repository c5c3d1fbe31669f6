//! Binding of `engram_core::Engram`. Methods mirror the core one-to-one; the SDK's
//! `Engram` class in `pkg/src/engram.ts` wraps this handle.

use engram_core::{Config, EmbedderInfo, Engram, Tokenizer as CoreTokenizer};
use wasm_bindgen::prelude::*;

use crate::error::{from_js, invalid, string, to_js, to_plain};
use crate::tokens::Tokenizer;

/// A batch `prepare` made, waiting for its vectors, and the id `commit` must name.
pub(crate) type Waiting = Option<(u32, engram_core::Prepared)>;

/// The handle through which JS holds one core `Engram`. All times are milliseconds since the Unix epoch, passed in.
#[wasm_bindgen]
pub struct EngramHandle {
    pub(crate) inner: Engram,
    /// The batch `prepare` made, waiting for `commit` (see `write.rs`).
    pub(crate) waiting: Waiting,
    pub(crate) serial: u32,
}

pub(crate) fn millis(now: f64) -> Result<i64, JsValue> {
    if now.is_finite() && now.fract() == 0.0 && now.abs() <= 9_007_199_254_740_991.0 {
        Ok(now as i64)
    } else {
        Err(invalid("now must be an integer number of milliseconds"))
    }
}

pub(crate) fn replica_id(replica: f64) -> Result<u64, JsValue> {
    match millis(replica) {
        Ok(r) if r >= 0 => Ok(r as u64),
        _ => Err(invalid("replica must be an integer in 0..2^53")),
    }
}

pub(crate) fn embedding(v: Option<Vec<f32>>) -> Option<Vec<f32>> {
    v.filter(|v| !v.is_empty())
}

#[wasm_bindgen]
impl EngramHandle {
    /// A new engine. `config` is a partial `Config` object (or undefined); `replica` is
    /// this device's id, an integer below 2^53 chosen once and persisted by the SDK.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, replica: f64) -> Result<EngramHandle, JsValue> {
        let config: Config = if config.is_undefined() || config.is_null() { Config::default() } else { from_js("config", config)? };
        config.validate().map_err(to_js)?;
        Ok(EngramHandle { inner: Engram::new(config, replica_id(replica)?), waiting: None, serial: 0 })
    }

    /// Replace the configuration (a partial `Config` object, or undefined for the defaults)
    /// — for a store restored from a snapshot, which carries the settings it was saved with.
    /// Without a `precision` the store keeps its own. Throws `INVALID_INPUT` on bad numbers
    /// or a precision other than that of the vectors stored.
    #[wasm_bindgen(js_name = setConfig)]
    pub fn set_config(&mut self, config: JsValue) -> Result<(), JsValue> {
        let given = !config.is_undefined() && !config.is_null();
        let names_precision = given && js_sys::Reflect::has(&config, &JsValue::from_str("precision")).unwrap_or(false);
        let mut next: Config = if given { from_js("config", config)? } else { Config::default() };
        if !names_precision {
            next.precision = self.inner.config().precision;
        }
        self.inner.set_config(next).map_err(to_js)
    }

    /// Use an exact tokenizer for budgets (until then counts are estimates).
    #[wasm_bindgen(js_name = setTokenizer)]
    pub fn set_tokenizer(&mut self, tokenizer: &Tokenizer) {
        self.inner.set_tokenizer(CoreTokenizer::Exact(tokenizer.bpe.clone()));
    }

    /// `{ tokens, exact }` for `text` with the current tokenizer.
    #[wasm_bindgen(js_name = countTokens)]
    pub fn count_tokens(&self, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
        let text = string("text", &text)?;
        engram_core::model::limits::check_countable(&text).map_err(to_js)?;
        to_plain(&self.inner.count_tokens(&text))
    }

    /// Declare the embedder (`id`, `dim`). Throws when vectors of another embedder are stored.
    #[wasm_bindgen(js_name = setEmbedder)]
    pub fn set_embedder(&mut self, id: String, dim: u32) -> Result<(), JsValue> {
        self.inner.set_embedder(EmbedderInfo { id, dim: dim as usize }).map_err(to_js)
    }

    /// The declared embedder `{ id, dim }`, or undefined.
    pub fn embedder(&self) -> Result<JsValue, JsValue> {
        to_plain(&self.inner.embedder())
    }

    /// For the SDK's recovery tests only: trap (panic) while holding `&mut self`, as a bug
    /// in the core would. The SDK must then discard this handle and rebuild from storage.
    #[doc(hidden)]
    #[wasm_bindgen(js_name = trapForTests)]
    #[allow(clippy::panic)]
    pub fn trap_for_tests(&mut self) {
        panic!("engram: deliberate trap for tests");
    }
}
