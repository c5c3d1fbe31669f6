//! Binding of consolidation (`engram_core::consolidate`): its settings, ending a
//! session, episodes, learning from feedback. A further `impl` block of the same [`EngramHandle`] handle.

use engram_core::consolidate::Consolidation;
use engram_core::Scope;
use wasm_bindgen::prelude::*;

use crate::error::{from_js, string, to_js, to_plain};
use crate::handle::{millis, EngramHandle};

#[wasm_bindgen]
impl EngramHandle {
    /// Consolidate from now on as `settings` say: the core's `Consolidation` as a plain
    /// object (`{ compression: { thresholdTokens, … }, episodes: { budgetTokens, … } }`;
    /// undefined or null for everything off). Settings are not in snapshots: the SDK gives
    /// them on every open. Throws `INVALID_INPUT` (naming the field) and keeps the old ones.
    #[wasm_bindgen(js_name = setConsolidation)]
    pub fn set_consolidation(&mut self, settings: JsValue) -> Result<(), JsValue> {
        let settings: Consolidation = if settings.is_undefined() || settings.is_null() { Consolidation::default() } else { from_js("consolidation", settings)? };
        self.inner.set_consolidation(settings).map_err(to_js)
    }

    /// The consolidation settings in force, as a plain object.
    pub fn consolidation(&self) -> Result<JsValue, JsValue> {
        to_plain(self.inner.consolidation())
    }

    /// Write (or rewrite) the episode of the scope's session: its id, or null when episodes
    /// are off, nothing in the session is worth a line, or the episode is already newer
    /// than every turn.
    #[wasm_bindgen(js_name = writeEpisode)]
    pub fn write_episode(&mut self, scope: JsValue, now: f64) -> Result<Option<String>, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.write_episode(&scope, millis(now)?).map_err(to_js)
    }

    /// Replace the text of the session's episode with a summary (an LLM's), checked and
    /// redacted as any write; keeps its id and cites, source `llm-extracted`. Returns the id.
    #[wasm_bindgen(js_name = rewriteEpisode)]
    pub fn rewrite_episode(&mut self, scope: JsValue, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue, now: f64) -> Result<String, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.rewrite_episode(&scope, &string("text", &text)?, millis(now)?).map_err(to_js)
    }

    /// End the scope's session: its episode first (when episodes are on), then its state
    /// goes and its `session`-tier memories are deleted. Returns how many were deleted.
    #[wasm_bindgen(js_name = endSession)]
    pub fn end_session(&mut self, scope: JsValue, now: f64) -> Result<u32, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        Ok(self.inner.end_session(&scope, millis(now)?).map_err(to_js)? as u32)
    }

    /// Write the episodes of the user's sessions idle past their TTL; returns their ids.
    #[wasm_bindgen(js_name = consolidateIdle)]
    pub fn consolidate_idle(&mut self, scope: JsValue, now: f64) -> Result<Vec<String>, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.consolidate_idle(&scope, millis(now)?).map_err(to_js)
    }

    /// Record the outcome of one use of the scope's user's memory: whether it `helpful`ly
    /// answered, the ids of the memories it `used` (at most 24), an optional `note` (the
    /// user's words) and `task`. Returns the feedback record's id.
    #[wasm_bindgen(js_name = recordFeedback)]
    pub fn record_feedback(&mut self, scope: JsValue, helpful: bool, used: Vec<String>, note: Option<String>, task: Option<String>, now: f64) -> Result<String, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.record_feedback(&scope, helpful, &used, note.as_deref(), task.as_deref(), millis(now)?).map_err(to_js)
    }

    /// Distil the recorded feedback once at least `min` uses are recorded: `{ interactions,
    /// patterns, raised, lowered, facts, notes }` (ids, and the notes read).
    #[wasm_bindgen(js_name = learnFromFeedback)]
    pub fn learn_from_feedback(&mut self, scope: JsValue, min: u32, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.learn_from_feedback(&scope, min as usize, millis(now)?).map_err(to_js)?)
    }
}
