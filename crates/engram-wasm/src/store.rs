//! Binding of what the core keeps (`engram_core::store`): snapshots, listing and
//! forgetting, and a session's working memory.

use engram_core::{Engram, ListFilter, Scope};
use wasm_bindgen::prelude::*;

use crate::bytes::{JsBytes, JsSource};
use crate::error::{from_js, string, to_js, to_plain};
use crate::handle::{millis, replica_id, EngramHandle};

#[wasm_bindgen]
impl EngramHandle {
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

    /// Throws `EngramError` (`CHECKSUM`, `BAD_MAGIC`, …) unless `bytes` are a whole
    /// snapshot; nothing is decoded (a store checks its fall-back generation this way).
    #[wasm_bindgen(js_name = checkSnapshot)]
    pub fn check_snapshot(#[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue) -> Result<(), JsValue> {
        let bytes = match bytes.dyn_into::<js_sys::Uint8Array>() {
            Ok(b) => b,
            Err(other) => js_sys::Uint8Array::new(&other),
        };
        Engram::check_snapshot(&mut JsSource(bytes)).map_err(to_js)
    }

    /// The whole engine as versioned, checksummed bytes — copied into the returned JS
    /// buffer piece by piece, so wasm memory never holds the whole snapshot (wasm memory
    /// never shrinks: a 12 MB snapshot built in it would stay 12 MB of the isolate).
    pub fn snapshot(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let mut out = JsBytes { buf: js_sys::Uint8Array::new_with_length(0), at: 0 };
        self.inner.write_snapshot(&mut out).map_err(to_js)?;
        Ok(out.buf)
    }

    /// The session's last `n` turns (default window when undefined), oldest first.
    #[wasm_bindgen(js_name = recentTurns)]
    pub fn recent_turns(&self, scope: JsValue, n: Option<u32>) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.recent_turns(&scope, n.map(|n| n as usize)).map_err(to_js)?)
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
}
