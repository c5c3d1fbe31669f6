//! The one place core errors become JS values.

use engram_core::ErrorClass;
use wasm_bindgen::{JsCast, JsValue};

/// Input the binding itself rejects before the core sees it (the core's own code).
pub const INVALID_INPUT: &str = "INVALID_INPUT";
/// A core value the binding could not hand to JS.
pub const ENCODE: &str = "ENCODE";
/// Every code this binding raises besides the core's own, with its class (the test kit
/// writes them to `tests/vectors/error-codes.json`, which the SDK's classes are tested against).
pub const CODES: [(&str, ErrorClass); 2] = [(INVALID_INPUT, ErrorClass::Input), (ENCODE, ErrorClass::Data)];

/// A JS `Error` named `EngramError` with `code` (stable) and `message` (for people).
pub fn to_js(e: engram_core::Error) -> JsValue {
    make(e.code(), &e.to_string())
}

/// An `EngramError` for input the binding itself rejects before the core sees it.
pub fn invalid(message: &str) -> JsValue {
    make(INVALID_INPUT, message)
}

fn make(code: &str, message: &str) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("EngramError");
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(code));
    err.into()
}

/// How deep a plain object from JS may nest: far more than any input type needs, far less
/// than what would overflow the wasm stack while deserialising (a trap that would leave
/// the handle borrowed for good).
const MAX_NESTING: usize = 32;
/// How many objects and arrays one input may hold.
const MAX_OBJECTS: usize = 100_000;

/// Convert a plain JS object into a core type, or an `INVALID_INPUT` error naming `what`.
/// Values nested deeper than [`MAX_NESTING`] (or cyclic) are refused before serde sees them.
pub fn from_js<T: serde::de::DeserializeOwned>(what: &str, v: JsValue) -> Result<T, JsValue> {
    check_nesting(what, &v)?;
    serde_wasm_bindgen::from_value(v).map_err(|e| invalid(&format!("{what}: {e}")))
}

/// Walk `v` without recursion: refuse nesting past [`MAX_NESTING`] and more than
/// [`MAX_OBJECTS`] objects (a cycle meets one of the two).
fn check_nesting(what: &str, v: &JsValue) -> Result<(), JsValue> {
    let mut stack = vec![(v.clone(), 0usize)];
    let mut objects = 0usize;
    while let Some((x, depth)) = stack.pop() {
        if !x.is_object() || x.is_function() {
            continue;
        }
        objects += 1;
        if depth >= MAX_NESTING || objects > MAX_OBJECTS {
            return Err(invalid(&format!("{what}: nested deeper than {MAX_NESTING} levels, too large, or cyclic")));
        }
        // Typed arrays and other binary views hold numbers only.
        if js_sys::ArrayBuffer::is_view(&x) {
            continue;
        }
        let values = if js_sys::Array::is_array(&x) { js_sys::Array::from(&x) } else { js_sys::Object::values(x.unchecked_ref()) };
        for child in values.iter() {
            stack.push((child, depth + 1));
        }
    }
    Ok(())
}

/// A string argument, or an `INVALID_INPUT` error naming `what` (JS callers can pass anything).
pub fn string(what: &str, v: &JsValue) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| invalid(&format!("{what} must be a string")))
}

/// Convert a core value into a plain JS object (maps become objects).
pub fn to_plain<T: serde::Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let s = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true).serialize_missing_as_null(true);
    v.serialize(&s).map_err(|e| make(ENCODE, &e.to_string()))
}
