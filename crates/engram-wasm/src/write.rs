//! Binding of the write pipeline (`engram_core::write::prepare`): `prepare` checks and
//! redacts a batch and names the texts to embed; the SDK embeds them (asynchronously) and
//! calls `commit` with the vectors. One crossing each.
//!
//! The prepared batch stays in the handle, keyed by a small id, rather than crossing as
//! bytes: it holds redacted texts, sealed values and vectors that JS never needs, and the
//! SDK serializes writes, so at most one prepared batch is ever waiting (a new `prepare`
//! discards an older one).

use engram_core::{MemoryInput, Prepared, Scope, Source, Turn, WriteBatch};
use wasm_bindgen::prelude::*;

use crate::handle::{millis, EngramHandle};
use crate::error::{from_js, invalid, string, to_js, to_plain};

#[derive(serde::Serialize)]
struct PreparedOut<'a> {
    id: u32,
    texts: &'a [String],
}

#[derive(serde::Serialize)]
struct CommittedOut {
    turns: Vec<String>,
    remembered: Vec<engram_core::WriteOutcome>,
    documents: Vec<Vec<String>>,
    episode: Option<String>,
}

#[wasm_bindgen]
impl EngramHandle {
    /// Check and redact a write, and say what to embed: `{ id, texts }`. `memories` are
    /// partial `MemoryInput`s without their vectors; `embeddings[i]` is memory `i`'s own
    /// vector (a `Float32Array`, or undefined). `turns` are `{ role, text }` appended to
    /// `options.session`; with `options.extract` the facts the user turns state are
    /// remembered too (`observe`); with `options.embedTurns` the turns are embedded.
    /// Throws `INVALID_INPUT` (and the like) for any bad item — nothing is written.
    pub fn prepare(&mut self, scope: JsValue, memories: js_sys::Array, embeddings: js_sys::Array, turns: js_sys::Array, options: JsValue, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let mut batch = WriteBatch {
            session: option(&options, "session")?.map(|s| string("session", &s)).transpose()?,
            extract: option(&options, "extract")?.and_then(|v| v.as_bool()).unwrap_or(false),
            embed_turns: option(&options, "embedTurns")?.and_then(|v| v.as_bool()).unwrap_or(false),
            ..WriteBatch::default()
        };
        for (i, m) in memories.iter().enumerate() {
            let mut input: MemoryInput = from_js("memory", m)?;
            input.embedding = vector(&embeddings.get(i as u32))?;
            batch.memories.push(input);
        }
        for (i, t) in turns.iter().enumerate() {
            batch.turns.push(turn(i, &t)?);
        }
        let prepared = self.inner.prepare(&scope, batch, millis(now)?).map_err(to_js)?;
        self.hold(prepared)
    }

    /// Write the batch `prepare` (or `prepareDocuments`) returned `id` for, with one vector
    /// per text (a `Float32Array`, or undefined for none): `{ turns: [id], remembered:
    /// [WriteOutcome], documents: [[chunkId]], episode: id | null }` — `episode` is the
    /// episode written for the turns' session when it had idled past its TTL.
    pub fn commit(&mut self, id: u32, vectors: js_sys::Array, now: f64) -> Result<JsValue, JsValue> {
        let prepared = match self.waiting.take() {
            Some((at, p)) if at == id => p,
            other => {
                self.waiting = other;
                return Err(invalid(&format!("commit({id}): no such prepared write (each prepare replaces the last; commit it once)")));
            }
        };
        let vectors = vectors.iter().map(|v| vector(&v)).collect::<Result<Vec<_>, _>>()?;
        let done = self.inner.commit(prepared, vectors, millis(now)?).map_err(to_js)?;
        to_plain(&CommittedOut { turns: done.turns, remembered: done.remembered, documents: done.documents, episode: done.episode })
    }
}

impl EngramHandle {
    /// Keep a prepared batch for `commit`, replacing any older one: `{ id, texts }`.
    pub(crate) fn hold(&mut self, prepared: Prepared) -> Result<JsValue, JsValue> {
        self.serial = self.serial.wrapping_add(1);
        let out = to_plain(&PreparedOut { id: self.serial, texts: prepared.texts() });
        self.waiting = Some((self.serial, prepared));
        out
    }
}

fn option(options: &JsValue, name: &str) -> Result<Option<JsValue>, JsValue> {
    if !options.is_object() {
        return Ok(None);
    }
    let v = js_sys::Reflect::get(options, &JsValue::from_str(name)).map_err(|_| invalid(&format!("options.{name} could not be read")))?;
    Ok(if v.is_undefined() || v.is_null() { None } else { Some(v) })
}

/// A vector argument: a `Float32Array` or an array of numbers (empty means none), or
/// undefined/null.
fn vector(v: &JsValue) -> Result<Option<Vec<f32>>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    let a = match v.dyn_ref::<js_sys::Float32Array>() {
        Some(a) => a.to_vec(),
        None if js_sys::Array::is_array(v) => js_sys::Float32Array::new(v).to_vec(),
        None => return Err(invalid("a vector must be a Float32Array")),
    };
    Ok(if a.is_empty() { None } else { Some(a) })
}

/// Turn `i` of a batch: `{ role, text }`.
fn turn(i: usize, v: &JsValue) -> Result<Turn, JsValue> {
    if !v.is_object() {
        return Err(invalid(&format!("turn {i} must be a {{ role, text }} object")));
    }
    let get = |k: &str| js_sys::Reflect::get(v, &JsValue::from_str(k)).map_err(|_| invalid(&format!("turn {i}: {k} could not be read")));
    // The role's names are serde's (`Source`); the core refuses the non-conversational ones.
    let role: Source = from_js(&format!("turn {i}: role"), get("role")?)?;
    Ok(Turn { role, text: string(&format!("turn {i} text"), &get("text")?)?, embedding: None })
}
