//! Binding of context assembly (`engram_core::context`).

use engram_core::{ContextRequest, Scope};
use wasm_bindgen::prelude::*;

use crate::error::{from_js, to_js, to_plain};
use crate::handle::{embedding, millis, EngramHandle};

#[wasm_bindgen]
impl EngramHandle {
    /// Build the prompt context. `request` is a partial `ContextRequest` without its vector.
    #[wasm_bindgen(js_name = buildContext)]
    pub fn build_context(&self, scope: JsValue, request: JsValue, vector: Option<Vec<f32>>, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let mut req: ContextRequest = from_js("request", request)?;
        req.embedding = embedding(vector);
        to_plain(&self.inner.build_context(&scope, &req, millis(now)?).map_err(to_js)?)
    }
}
