//! Binding of recall (`engram_core::read`).

use engram_core::{RecallQuery, Scope};
use wasm_bindgen::prelude::*;

use crate::error::{from_js, to_js, to_plain};
use crate::handle::{embedding, millis, EngramHandle};

#[wasm_bindgen]
impl EngramHandle {
    /// Recall memories. `query` is a partial `RecallQuery` without its vector.
    pub fn recall(&self, scope: JsValue, query: JsValue, vector: Option<Vec<f32>>, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let mut q: RecallQuery = from_js("query", query)?;
        q.embedding = embedding(vector);
        to_plain(&self.inner.recall(&scope, &q, millis(now)?).map_err(to_js)?)
    }
}
