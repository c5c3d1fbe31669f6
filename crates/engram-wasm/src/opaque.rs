//! Opaque texts for encrypted sync (`engram_core::codec::opaque`): the SDK encrypts the
//! payloads `opaqueParts` hands out and gives the ciphertexts back to `opaqueJoin` as
//! texts, and the reverse for pulled batches. Free functions on op batches; no state.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{invalid, to_js};
use engram_core::codec::opaque;

/// The parts of an op batch, in op order: `outgoing`, the payload to encrypt of each op
/// the origin must not read (records that are not public, session summaries); otherwise
/// each opaque text (`engram-opaque:v1:…`) as UTF-8. Empty when there are none.
#[wasm_bindgen(js_name = opaqueParts, unchecked_return_type = "Uint8Array[]")]
pub fn opaque_parts(batch: &[u8], outgoing: bool) -> Result<Array, JsValue> {
    Ok(opaque::parts(batch, outgoing).map_err(to_js)?.iter().map(|p| JsValue::from(Uint8Array::from(p.as_slice()))).collect())
}

/// The batch with one part for each of `opaqueParts`' put in: `outgoing`, the opaque
/// texts (UTF-8; embeddings are emptied); otherwise the decrypted payloads, whose texts
/// and embeddings come back (a payload of another op is `DECODE`).
#[wasm_bindgen(js_name = opaqueJoin)]
pub fn opaque_join(batch: &[u8], outgoing: bool, #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] parts: Array) -> Result<Vec<u8>, JsValue> {
    let mut all = Vec::new();
    for p in parts.iter() {
        all.push(p.dyn_into::<Uint8Array>().map_err(|_| invalid("parts must be Uint8Arrays"))?.to_vec());
    }
    opaque::join(batch, outgoing, &all).map_err(to_js)
}
