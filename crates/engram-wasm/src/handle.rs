//! Binding of `engram_core::Engram`. Methods mirror the core one-to-one; the SDK's
//! `Engram` class in `pkg/src/engram.ts` wraps this handle.

use engram_core::{decode_ops, encode_ops, Config, ContextRequest, EmbedderInfo, Engram, ListFilter, RecallQuery, Scope, Tokenizer as CoreTokenizer};
use wasm_bindgen::prelude::*;

use crate::error::{from_js, invalid, string, to_js, to_plain};
use crate::tokens::Tokenizer;

/// The handle through which JS holds one core `Engram`. All times are milliseconds since the Unix epoch, passed in.
#[wasm_bindgen]
pub struct EngramHandle {
    pub(crate) inner: Engram,
    /// The batch `prepare` made, waiting for `commit` (see `write.rs`).
    pub(crate) waiting: crate::write::Waiting,
    pub(crate) serial: u32,
}

pub(crate) fn millis(now: f64) -> Result<i64, JsValue> {
    if now.is_finite() && now.fract() == 0.0 && now.abs() <= 9_007_199_254_740_991.0 {
        Ok(now as i64)
    } else {
        Err(invalid("now must be an integer number of milliseconds"))
    }
}

/// A JS buffer filled from the core's pieces.
struct JsBytes {
    buf: js_sys::Uint8Array,
    at: u32,
}

impl engram_core::ByteSink for JsBytes {
    fn begin(&mut self, len: usize) {
        // The core refuses payloads over 4 GiB before it begins.
        self.buf = js_sys::Uint8Array::new_with_length(len as u32);
    }
    fn write(&mut self, bytes: &[u8]) {
        let end = self.at + bytes.len() as u32;
        self.buf.subarray(self.at, end).copy_from(bytes);
        self.at = end;
    }
}

/// A JS buffer the core reads in pieces.
struct JsSource(js_sys::Uint8Array);

impl engram_core::ByteSource for JsSource {
    fn len(&self) -> usize {
        self.0.length() as usize
    }
    fn read(&mut self, at: usize, n: usize, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + n, 0);
        self.0.subarray(at as u32, (at + n) as u32).copy_to(&mut out[start..]);
    }
}

fn replica_id(replica: f64) -> Result<u64, JsValue> {
    match millis(replica) {
        Ok(r) if r >= 0 => Ok(r as u64),
        _ => Err(invalid("replica must be an integer in 0..2^53")),
    }
}

fn embedding(v: Option<Vec<f32>>) -> Option<Vec<f32>> {
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

    /// Restore from snapshot bytes. Throws `EngramError` on corrupt or future input. With
    /// `replica`, the restored engine stamps as that replica from now on (the SDK gives
    /// every open instance its own, so a copied store never continues another's stream).
    /// The bytes stay in JS: the core reads them in pieces (wasm memory never shrinks, and
    /// a 12 MB snapshot copied in would stay 12 MB of the isolate).
    #[wasm_bindgen(js_name = fromSnapshot)]
    pub fn from_snapshot(#[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue, replica: Option<f64>) -> Result<EngramHandle, JsValue> {
        let bytes = match bytes.dyn_into::<js_sys::Uint8Array>() {
            Ok(b) => b,
            // Another realm's typed array, an ArrayBuffer or an array of bytes: copied.
            Err(other) => js_sys::Uint8Array::new(&other),
        };
        let mut inner = Engram::read_snapshot(&mut JsSource(bytes)).map_err(to_js)?;
        if let Some(r) = replica {
            inner.set_replica(replica_id(r)?);
        }
        Ok(EngramHandle { inner, waiting: None, serial: 0 })
    }

    /// Encoded op batches (of at most `opsPerBatch` ops, default 256 — a few hundred KB
    /// with vectors) that rebuild this engine's whole state elsewhere (idempotent): what a
    /// store with history pushes the first time it syncs. Users' partitions only: the
    /// tenant's procedures never leave through a user's sync.
    #[wasm_bindgen(js_name = stateOps, unchecked_return_type = "Uint8Array[]")]
    pub fn state_ops(&self, ops_per_batch: Option<u32>) -> Result<js_sys::Array, JsValue> {
        let per = ops_per_batch.unwrap_or(256).max(1) as usize;
        let out = js_sys::Array::new();
        for batch in self.inner.user_state_ops().chunks(per) {
            out.push(&js_sys::Uint8Array::from(encode_ops(batch).map_err(to_js)?.as_slice()));
        }
        Ok(out)
    }

    /// The whole engine as versioned, checksummed bytes — copied into the returned JS
    /// buffer piece by piece, so wasm memory never holds the whole snapshot (wasm memory
    /// never shrinks: a 12 MB snapshot built in it would stay 12 MB of the isolate).
    pub fn snapshot(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let mut out = JsBytes { buf: js_sys::Uint8Array::new_with_length(0), at: 0 };
        self.inner.write_snapshot(&mut out).map_err(to_js)?;
        Ok(out.buf)
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

    /// The session's last `n` turns (default window when undefined), oldest first.
    #[wasm_bindgen(js_name = recentTurns)]
    pub fn recent_turns(&self, scope: JsValue, n: Option<u32>) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.recent_turns(&scope, n.map(|n| n as usize)).map_err(to_js)?)
    }

    /// Recall memories. `query` is a partial `RecallQuery` without its vector.
    pub fn recall(&self, scope: JsValue, query: JsValue, vector: Option<Vec<f32>>, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let mut q: RecallQuery = from_js("query", query)?;
        q.embedding = embedding(vector);
        to_plain(&self.inner.recall(&scope, &q, millis(now)?).map_err(to_js)?)
    }

    /// Build the prompt context. `request` is a partial `ContextRequest` without its vector.
    #[wasm_bindgen(js_name = buildContext)]
    pub fn build_context(&self, scope: JsValue, request: JsValue, vector: Option<Vec<f32>>, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let mut req: ContextRequest = from_js("request", request)?;
        req.embedding = embedding(vector);
        to_plain(&self.inner.build_context(&scope, &req, millis(now)?).map_err(to_js)?)
    }

    /// What is remembered about the scope's user (transparency).
    pub fn list(&self, scope: JsValue, filter: JsValue, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let filter: ListFilter = if filter.is_undefined() { ListFilter::default() } else { from_js("filter", filter)? };
        to_plain(&self.inner.list(&scope, &filter, millis(now)?).map_err(to_js)?)
    }

    /// Number of records stored for the scope's user.
    pub fn count(&self, scope: JsValue) -> Result<u32, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        Ok(self.inner.count(&scope).map_err(to_js)? as u32)
    }

    /// Delete one memory; false when it did not exist.
    pub fn forget(&mut self, scope: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue, now: f64) -> Result<bool, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.forget(&scope, &string("id", &id)?, millis(now)?).map_err(to_js)
    }

    /// Forget everything of the scope's user; returns how many records went.
    #[wasm_bindgen(js_name = forgetUser)]
    pub fn forget_user(&mut self, scope: JsValue, now: f64) -> Result<u32, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        Ok(self.inner.forget_user(&scope, millis(now)?).map_err(to_js)? as u32)
    }

    /// Set a session state value (a string; the SDK stores JSON).
    #[wasm_bindgen(js_name = sessionSet)]
    pub fn session_set(&mut self, scope: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] value: JsValue, now: f64) -> Result<(), JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let (key, value) = (string("key", &key)?, string("value", &value)?);
        self.inner.session_set(&scope, &key, &value, millis(now)?).map_err(to_js)
    }

    /// The session's live state as an object of strings.
    #[wasm_bindgen(js_name = sessionState)]
    pub fn session_state(&self, scope: JsValue, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.session_state(&scope, millis(now)?).map_err(to_js)?)
    }

    /// Replace the session's rolling summary.
    #[wasm_bindgen(js_name = setSummary)]
    pub fn set_summary(&mut self, scope: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] summary: JsValue, now: f64) -> Result<(), JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.set_summary(&scope, &string("summary", &summary)?, millis(now)?).map_err(to_js)
    }

    /// Ops made since the last call, as one encoded batch (empty array when none).
    #[wasm_bindgen(js_name = takePending)]
    pub fn take_pending(&mut self) -> Result<Vec<u8>, JsValue> {
        let ops = self.inner.take_pending();
        if ops.is_empty() {
            return Ok(Vec::new());
        }
        encode_ops(&ops).map_err(to_js)
    }

    /// Apply an encoded op batch (from storage replay or another replica). Idempotent.
    #[wasm_bindgen(js_name = applyOps)]
    pub fn apply_ops(&mut self, bytes: &[u8]) -> Result<u32, JsValue> {
        let ops = decode_ops(bytes).map_err(to_js)?;
        let n = ops.len() as u32;
        self.inner.apply_ops(ops).map_err(to_js)?;
        Ok(n)
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
