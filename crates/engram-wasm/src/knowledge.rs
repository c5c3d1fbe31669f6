//! Binding of the knowledge side of `Engram`: the graph, conflict reviews and reversible
//! redaction. A second `impl` block of the same [`EngramHandle`] handle.

use engram_core::knowledge::graph::{EntityRef, GraphQuery, Relation};
use engram_core::pii::RedactionKey;
use engram_core::{Resolution, Scope};
use wasm_bindgen::prelude::*;

use crate::handle::{millis, EngramHandle};
use crate::error::{from_js, string, to_js, to_plain};

#[wasm_bindgen]
impl EngramHandle {
    /// Add (or, with `present: false`, remove) a relation
    /// `{ from: {name, kind}, rel, to: {name, kind}, present, record }`.
    pub fn relate(&mut self, scope: JsValue, relation: JsValue, now: f64) -> Result<(), JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let relation: Relation = from_js("relation", relation)?;
        self.inner.relate(&scope, relation, millis(now)?).map_err(to_js)
    }

    /// Set an attribute (e.g. `status`) of an entity `{ name, kind }`.
    #[wasm_bindgen(js_name = setEntityAttribute)]
    pub fn set_entity_attribute(
        &mut self,
        scope: JsValue,
        entity: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] attr: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] value: JsValue,
        now: f64,
    ) -> Result<(), JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let entity: EntityRef = from_js("entity", entity)?;
        let (attr, value) = (string("attribute", &attr)?, string("value", &value)?);
        self.inner.set_entity_attribute(&scope, &entity, &attr, &value, millis(now)?).map_err(to_js)
    }

    /// Answer a named graph template, e.g. `{ template: "neighbours", entity, relation }`:
    /// `{ entities: [{ id, name, kind, attributes }], path }`.
    #[wasm_bindgen(js_name = graphQuery)]
    pub fn graph_query(&self, scope: JsValue, query: JsValue) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let query: GraphQuery = from_js("graph query", query)?;
        to_plain(&self.inner.graph_query(&scope, &query).map_err(to_js)?)
    }

    /// Settle a value flagged for review: `"keep-new"`, `"keep-old"` or `"merge"`.
    #[wasm_bindgen(js_name = resolveReview)]
    pub fn resolve_review(&mut self, scope: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue, decision: JsValue, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let decision: Resolution = from_js("decision", decision)?;
        to_plain(&self.inner.resolve_review(&scope, &string("id", &id)?, decision, millis(now)?).map_err(to_js)?)
    }

    /// Close a current memory without a successor; it stays in the audit trail.
    pub fn retract(&mut self, scope: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue, now: f64) -> Result<(), JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.retract(&scope, &string("id", &id)?, millis(now)?).map_err(to_js)
    }

    /// Seal PII with the user's 32-byte key from now on (reversible redaction); `null`
    /// returns to irreversible placeholders. The key is held in memory only.
    #[wasm_bindgen(js_name = setRedactionKey)]
    pub fn set_redaction_key(&mut self, key: Option<Vec<u8>>) -> Result<(), JsValue> {
        let key = key.map(|k| RedactionKey::from_bytes(&k)).transpose().map_err(to_js)?;
        self.inner.set_redaction_key(key);
        Ok(())
    }

    /// A record's text with its sealed values opened by `key` (throws `REDACTION_KEY`
    /// for a wrong key).
    pub fn reveal(&self, scope: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue, key: &[u8]) -> Result<String, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let key = RedactionKey::from_bytes(key).map_err(to_js)?;
        self.inner.reveal(&scope, &string("id", &id)?, &key).map_err(to_js)
    }
}
