//! Binding of procedural memory (`engram_core::procedures`): the operator's
//! procedures of a tenant, by id — put, get, list, history, delete. They live in the
//! tenant's own partition, so these calls take a tenant, not a user's scope.

use engram_core::ProcedureInput;
use wasm_bindgen::prelude::*;

use crate::error::{from_js, to_js, to_plain};
use crate::handle::{millis, EngramHandle};

#[wasm_bindgen]
impl EngramHandle {
    /// Add or replace procedure `{ id, name, text, when?, tags? }` of `tenant`; answers the
    /// version in force `{ id, name, text, when, tags, version, current, createdAt, updatedAt }`.
    #[wasm_bindgen(js_name = putProcedure)]
    pub fn put_procedure(&mut self, tenant: String, procedure: JsValue, now: f64) -> Result<JsValue, JsValue> {
        let input: ProcedureInput = from_js("procedure", procedure)?;
        to_plain(&self.inner.put_procedure(&tenant, input, millis(now)?).map_err(to_js)?)
    }

    /// The version in force of procedure `id` of `tenant`.
    #[wasm_bindgen(js_name = getProcedure)]
    pub fn get_procedure(&self, tenant: String, id: String) -> Result<JsValue, JsValue> {
        to_plain(&self.inner.get_procedure(&tenant, &id).map_err(to_js)?)
    }

    /// The procedures in force of `tenant`, by id.
    #[wasm_bindgen(js_name = listProcedures)]
    pub fn list_procedures(&self, tenant: String) -> Result<JsValue, JsValue> {
        to_plain(&self.inner.procedures(&tenant).map_err(to_js)?)
    }

    /// Every version of procedure `id` of `tenant`, oldest first.
    #[wasm_bindgen(js_name = procedureHistory)]
    pub fn procedure_history(&self, tenant: String, id: String) -> Result<JsValue, JsValue> {
        to_plain(&self.inner.procedure_history(&tenant, &id).map_err(to_js)?)
    }

    /// Delete procedure `id` of `tenant` with all its versions; false when there was none.
    #[wasm_bindgen(js_name = deleteProcedure)]
    pub fn delete_procedure(&mut self, tenant: String, id: String, now: f64) -> Result<bool, JsValue> {
        self.inner.delete_procedure(&tenant, &id, millis(now)?).map_err(to_js)
    }
}
