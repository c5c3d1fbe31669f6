//! Binding of the user profile and session metadata: read, change, and retention. A
//! further `impl` block of the same [`EngramHandle`] handle.

use engram_core::profile::ProfileChange;
use engram_core::Scope;
use wasm_bindgen::prelude::*;

use crate::error::{from_js, to_js, to_plain};
use crate::handle::{millis, EngramHandle};

#[wasm_bindgen]
impl EngramHandle {
    /// The scope's user's profile `{ basic, behaviour, knowledge, privacy }` with at most
    /// `factLimit` facts.
    pub fn profile(&self, scope: JsValue, #[wasm_bindgen(js_name = factLimit)] fact_limit: u32, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.profile(&scope, fact_limit as usize, millis(now)?).map_err(to_js)?)
    }

    /// Change the profile's settings: `[[field, value | null], …]` (fields `name`, `language`,
    /// `timezone`, `detail`, `tone`, `retentionDays`, `shareUsage`, `addRule`, `removeRule`;
    /// `null` clears); returns the settings after it. Nothing is written when one is refused.
    #[wasm_bindgen(js_name = updateProfile)]
    pub fn update_profile(&mut self, scope: JsValue, update: JsValue, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let update: Vec<ProfileChange> = from_js("profile update", update)?;
        to_plain(&self.inner.update_profile(&scope, &update, millis(now)?).map_err(to_js)?)
    }

    /// The user's retention in days, if they set one (cheap: the settings alone).
    #[wasm_bindgen(js_name = retentionDays)]
    pub fn retention_days(&self, scope: JsValue) -> Result<Option<u32>, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        Ok(self.inner.profile_settings(&scope).map_err(to_js)?.retention_days)
    }

    /// Remove the memories older than the user's retention; returns how many.
    #[wasm_bindgen(js_name = applyRetention)]
    pub fn apply_retention(&mut self, scope: JsValue, now: f64) -> Result<u32, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        Ok(self.inner.apply_retention(&scope, millis(now)?).map_err(to_js)? as u32)
    }

    /// The metadata of the scope's session `{ turns, userTurns, tokens, exact, facts,
    /// importance, entities: [{ name, mentions }], startedAt, lastActivity }`.
    #[wasm_bindgen(js_name = sessionMetadata)]
    pub fn session_metadata(&self, scope: JsValue) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.session_metadata(&scope).map_err(to_js)?)
    }
}
