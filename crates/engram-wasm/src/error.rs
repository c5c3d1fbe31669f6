//! The one place core errors become JS values.

use wasm_bindgen::JsValue;

/// A JS `Error` named `EngramError` with `code` (stable) and `message` (for people).
pub fn to_js(e: engram_core::Error) -> JsValue {
    make(e.code(), &e.to_string())
}

/// An `EngramError` for input the binding itself rejects before the core sees it.
pub fn invalid(message: &str) -> JsValue {
    make("INVALID_INPUT", message)
}

fn make(code: &str, message: &str) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("EngramError");
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(code));
    err.into()
}

/// Convert a plain JS object into a core type, or an `INVALID_INPUT` error naming `what`.
pub fn from_js<T: serde::de::DeserializeOwned>(what: &str, v: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(v).map_err(|e| invalid(&format!("{what}: {e}")))
}

/// Convert a core value into a plain JS object (maps become objects).
pub fn to_plain<T: serde::Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let s = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true).serialize_missing_as_null(true);
    v.serialize(&s).map_err(|e| make("ENCODE", &e.to_string()))
}
