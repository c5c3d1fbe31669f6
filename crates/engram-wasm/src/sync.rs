//! Binding of the change log (`engram_core::sync`): the ops a replica made, ops from
//! other replicas, and the whole state as op batches.

use engram_core::{decode_ops, encode_ops, split_ops};
use wasm_bindgen::prelude::*;

use crate::error::to_js;
use crate::handle::EngramHandle;

#[wasm_bindgen]
impl EngramHandle {
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

    /// An encoded batch split into batches of at most `maxBytes` each (`engram_core::split_ops`):
    /// what sync sends of a batch larger than one request may carry.
    #[wasm_bindgen(js_name = splitOps, unchecked_return_type = "Uint8Array[]")]
    pub fn split_ops(&self, bytes: &[u8], max_bytes: u32) -> Result<js_sys::Array, JsValue> {
        let out = js_sys::Array::new();
        for part in split_ops(bytes, max_bytes as usize).map_err(to_js)? {
            out.push(&js_sys::Uint8Array::from(part.as_slice()));
        }
        Ok(out)
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
}
