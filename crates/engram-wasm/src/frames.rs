//! The sync wire format (`engram_core::codec::frames`) for the SDK's sync client: one codec,
//! the core's, on both sides of the wire (the origin uses the same functions).

use engram_core::codec::frames::{decode_frames, encode_frames, Frame, MAX_ID};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::error::{invalid, string, to_js};

/// One body of `ids[i]`-framed `batches[i]`. Ids are 1 to 200 bytes; anything else is
/// `INVALID_INPUT`.
#[wasm_bindgen(js_name = encodeFrames)]
pub fn encode(
    #[wasm_bindgen(unchecked_param_type = "string[]")] ids: Array,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] batches: Array,
) -> Result<Vec<u8>, JsValue> {
    if ids.length() != batches.length() {
        return Err(invalid("encodeFrames needs one id per batch"));
    }
    let mut frames = Vec::with_capacity(ids.length() as usize);
    for (id, ops) in ids.iter().zip(batches.iter()) {
        let id = string("frame id", &id)?;
        if id.is_empty() || id.len() > MAX_ID {
            return Err(invalid("a frame id is 1 to 200 bytes"));
        }
        let ops = ops.dyn_into::<Uint8Array>().map_err(|_| invalid("batches must be Uint8Arrays"))?;
        if ops.length() == u32::MAX {
            return Err(invalid("a batch is under 4 GiB"));
        }
        frames.push(Frame { id, ops: ops.to_vec() });
    }
    Ok(encode_frames(&frames))
}

/// The frames of a body, as `[id, batch]` pairs; an empty body is none. A malformed body
/// is `DECODE` (what: "sync body") saying what is wrong.
#[wasm_bindgen(js_name = decodeFrames, unchecked_return_type = "[string, Uint8Array][]")]
pub fn decode(body: &[u8]) -> Result<Array, JsValue> {
    Ok(decode_frames(body)
        .map_err(to_js)?
        .into_iter()
        .map(|f| JsValue::from(Array::of2(&JsValue::from(f.id), &Uint8Array::from(f.ops.as_slice()))))
        .collect())
}
