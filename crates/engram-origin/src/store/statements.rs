//! Update statements for the views: batched `update` commands, and the field names and
//! dates they write (shared by the views of `view.rs` and `profile.rs`).

use mongodb::bson::{doc, Bson, DateTime, Document};

use super::Store;
use crate::error::{ApiError, ApiResult};

/// Statements per `update` command.
pub(super) const CHUNK: usize = 500;

/// Statements for one collection's `update` command.
#[derive(Default)]
pub(super) struct Updates {
    pub(super) statements: Vec<Document>,
}

impl Updates {
    /// `u` applied where `q` matches, inserting when nothing does. A stamp condition in
    /// `q` that fails on an existing document makes the insert hit the unique index: that
    /// duplicate-key error means "an equal or newer write is already there".
    pub(super) fn upsert(&mut self, q: Document, u: Document) {
        self.statements.push(doc! { "q": q, "u": u, "upsert": true });
    }

    pub(super) fn update(&mut self, q: Document, u: Document, multi: bool) {
        self.statements.push(doc! { "q": q, "u": u, "multi": multi });
    }
}

/// A session-state key as a field name: `.`, `$` and `%` would be paths or operators.
pub(crate) fn field_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        match c {
            '.' | '$' | '%' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    if out.is_empty() {
        "%00".into()
    } else {
        out
    }
}

pub(super) fn date(ms: i64) -> DateTime {
    DateTime::from_millis(ms)
}

impl Store {
    /// Run statements as `update` commands; a duplicate key means a newer write won.
    pub(super) async fn run_updates(&self, coll: &str, updates: Updates, ordered: bool) -> ApiResult<()> {
        for chunk in updates.statements.chunks(CHUNK) {
            let reply = self.db.run_command(doc! { "update": coll, "updates": chunk.to_vec(), "ordered": ordered }).await?;
            if let Ok(errors) = reply.get_array("writeErrors") {
                for e in errors {
                    let code = e.as_document().and_then(|d| d.get("code")).and_then(Bson::as_i32).unwrap_or(0);
                    if code != 11000 {
                        return Err(ApiError::Storage(format!("update {coll} failed with code {code}")));
                    }
                }
            }
        }
        Ok(())
    }

}
