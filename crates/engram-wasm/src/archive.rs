//! Binding of archival documents (`engram_core::archive`): `prepareDocuments` checks,
//! redacts and chunks documents and names the new chunks to embed, then the shared
//! `commit` writes them (see `write.rs`); get, list, delete and search by id; the same for
//! the tenant's library (`prepareLibrary`, `getLibraryDocument`…). Documents are
//! read field by field rather than through serde (less code in the module).

use engram_core::{DocumentInput, RecallQuery, Scope, WriteBatch};
use wasm_bindgen::prelude::*;

use crate::handle::{millis, EngramHandle};
use crate::error::{from_js, invalid, string, to_js, to_plain};

#[wasm_bindgen]
impl EngramHandle {
    /// Check, redact and chunk documents `{ id, text, title?, source?, tags?, metadata?,
    /// chunkTokens?, chunkOverlap? }` and say what to embed: `{ id, texts }`, as `prepare`
    /// does; `commit(id, vectors)` writes them and answers `{ documents: [[chunkId]] }`.
    #[wasm_bindgen(js_name = prepareDocuments)]
    pub fn prepare_documents(&mut self, scope: JsValue, documents: js_sys::Array, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let documents = documents.iter().enumerate().map(|(i, d)| document(i, &d)).collect::<Result<Vec<_>, _>>()?;
        let prepared = self.inner.prepare(&scope, WriteBatch { documents, ..WriteBatch::default() }, millis(now)?).map_err(to_js)?;
        self.hold(prepared)
    }

    /// Document `id` with its whole text.
    #[wasm_bindgen(js_name = getDocument)]
    pub fn get_document(&self, scope: JsValue, id: String) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.get_document(&scope, &id).map_err(to_js)?)
    }

    /// The user's documents, without their texts.
    #[wasm_bindgen(js_name = listDocuments)]
    pub fn list_documents(&self, scope: JsValue) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        to_plain(&self.inner.list_documents(&scope).map_err(to_js)?)
    }

    /// Delete document `id` and its chunks; false when there was none.
    #[wasm_bindgen(js_name = deleteDocument)]
    pub fn delete_document(&mut self, scope: JsValue, id: String, now: f64) -> Result<bool, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        self.inner.delete_document(&scope, &id, millis(now)?).map_err(to_js)
    }

    /// `prepareDocuments` for `tenant`'s library (the documents the operator shares with
    /// every user of the tenant); the shared `commit` writes them.
    #[wasm_bindgen(js_name = prepareLibrary)]
    pub fn prepare_library(&mut self, tenant: String, documents: js_sys::Array, now: f64) -> Result<JsValue, JsValue> {
        let documents = documents.iter().enumerate().map(|(i, d)| document(i, &d)).collect::<Result<Vec<_>, _>>()?;
        let prepared = self.inner.prepare_library(&tenant, documents, millis(now)?).map_err(to_js)?;
        self.hold(prepared)
    }

    /// Document `id` of `tenant`'s library with its whole text.
    #[wasm_bindgen(js_name = getLibraryDocument)]
    pub fn get_library_document(&self, tenant: String, id: String) -> Result<JsValue, JsValue> {
        to_plain(&self.inner.get_library_document(&tenant, &id).map_err(to_js)?)
    }

    /// The documents of `tenant`'s library, without their texts.
    #[wasm_bindgen(js_name = listLibraryDocuments)]
    pub fn list_library_documents(&self, tenant: String) -> Result<JsValue, JsValue> {
        to_plain(&self.inner.library_documents(&tenant).map_err(to_js)?)
    }

    /// Delete document `id` of `tenant`'s library and its chunks; false when there was none.
    #[wasm_bindgen(js_name = deleteLibraryDocument)]
    pub fn delete_library_document(&mut self, tenant: String, id: String, now: f64) -> Result<bool, JsValue> {
        self.inner.delete_library_document(&tenant, &id, millis(now)?).map_err(to_js)
    }

    /// Search the user's document chunks and their tenant's library's, ranked together
    /// (`shared` on each hit says which). `query` is a partial `RecallQuery` without its vector.
    #[wasm_bindgen(js_name = searchDocuments)]
    pub fn search_documents(&self, scope: JsValue, query: JsValue, vector: Option<Vec<f32>>, now: f64) -> Result<JsValue, JsValue> {
        let scope: Scope = from_js("scope", scope)?;
        let mut q: RecallQuery = from_js("query", query)?;
        q.embedding = vector.filter(|v| !v.is_empty());
        to_plain(&self.inner.search_documents(&scope, &q, millis(now)?).map_err(to_js)?)
    }
}

/// Document `i` of a batch, read field by field.
fn document(i: usize, v: &JsValue) -> Result<DocumentInput, JsValue> {
    if !v.is_object() {
        return Err(invalid(&format!("document {i} must be an object")));
    }
    let get = |k: &str| -> Result<Option<JsValue>, JsValue> {
        let x = js_sys::Reflect::get(v, &JsValue::from_str(k)).map_err(|_| invalid(&format!("document {i}: {k} could not be read")))?;
        Ok(if x.is_undefined() || x.is_null() { None } else { Some(x) })
    };
    let text = |k: &str| -> Result<String, JsValue> { get(k)?.map_or(Ok(String::new()), |x| string(&format!("document {i}: {k}"), &x)) };
    let count = |k: &str| -> Result<Option<usize>, JsValue> {
        get(k)?
            .map(|x| match x.as_f64() {
                Some(n) if n.fract() == 0.0 && (0.0..=1e6).contains(&n) => Ok(n as usize),
                _ => Err(invalid(&format!("document {i}: {k} must be a whole number"))),
            })
            .transpose()
    };
    let tags = match get("tags")? {
        None => Vec::new(),
        Some(t) if js_sys::Array::is_array(&t) => js_sys::Array::from(&t).iter().map(|x| string(&format!("document {i}: tags"), &x)).collect::<Result<_, _>>()?,
        Some(_) => return Err(invalid(&format!("document {i}: tags must be an array of strings"))),
    };
    Ok(DocumentInput {
        id: text("id")?,
        title: text("title")?,
        text: text("text")?,
        source: text("source")?,
        tags,
        metadata: text("metadata")?,
        chunk_tokens: count("chunkTokens")?,
        chunk_overlap: count("chunkOverlap")?,
    })
}
