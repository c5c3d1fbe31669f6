//! Reads for the JSON endpoints: a user's memories (paginated) and multi-hop graph
//! queries through `$graphLookup`.

use std::collections::BTreeSet;

use mongodb::bson::{doc, Bson, Document};
use serde::Serialize;
use serde_json::Value;

use futures_util::TryStreamExt;

use super::{owner, Store};
use crate::error::ApiResult;
use engram_core::knowledge::graph::norm;
use engram_core::UserKey;

/// Deepest multi-hop query served.
pub const MAX_DEPTH: u32 = 4;

/// One page of memories.
#[derive(Debug, Serialize)]
pub struct ListPage {
    /// Memories in id order (internal fields removed).
    pub memories: Vec<Value>,
    /// Pass as `after` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// One page of archived documents.
#[derive(Debug, Serialize)]
pub struct DocumentPage {
    /// Documents in id order, without their chunks' texts.
    pub documents: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// An edge reached by a graph query.
#[derive(Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct GraphEdgeOut {
    /// Hops from the start entity (1 = a direct relation).
    pub depth: u32,
    pub from: String,
    pub rel: String,
    pub to: String,
    /// The memory this relation was learned from, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
}

/// A view document as the API's JSON: without the internal fields.
pub(super) fn to_json(mut d: Document) -> Value {
    for internal in ["_id", "tenant", "user_id", "stamp", "seq"] {
        d.remove(internal);
    }
    bson_to_json(Bson::Document(d))
}

/// Plain JSON: dates as epoch milliseconds (like the SDK's records), binaries omitted.
fn bson_to_json(b: Bson) -> Value {
    match b {
        Bson::Null | Bson::Undefined | Bson::Binary(_) => Value::Null,
        Bson::Boolean(v) => v.into(),
        Bson::Int32(v) => v.into(),
        Bson::Int64(v) => v.into(),
        Bson::Double(v) => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        Bson::String(s) => s.into(),
        Bson::DateTime(t) => t.timestamp_millis().into(),
        Bson::Array(a) => a.into_iter().map(bson_to_json).collect(),
        Bson::Document(d) => d.into_iter().map(|(k, v)| (k, bson_to_json(v))).collect::<serde_json::Map<_, _>>().into(),
        other => other.to_string().into(),
    }
}

impl Store {
    /// The user's memories with id after `after`, at most `limit`; superseded and
    /// deleted ones only when `history`; one kind when `kind` is given.
    pub async fn list(&self, user: &UserKey, after: Option<&str>, limit: i64, kind: Option<&str>, history: bool) -> ApiResult<ListPage> {
        let mut q = owner(user);
        if let Some(a) = after {
            q.insert("id", doc! { "$gt": a });
        }
        if let Some(k) = kind {
            q.insert("kind", k);
        }
        if !history {
            q.extend(doc! { "deleted": false, "valid_to": Bson::Null, "superseded_by": Bson::Null });
        }
        let docs: Vec<Document> = self.coll("memories").find(q).sort(doc! { "id": 1 }).limit(limit + 1).await?.try_collect().await?;
        let more = docs.len() as i64 > limit;
        let memories: Vec<Value> = docs.into_iter().take(limit as usize).map(to_json).collect();
        let next = if more { memories.last().and_then(|m| m.get("id")).and_then(Value::as_str).map(str::to_owned) } else { None };
        Ok(ListPage { memories, next })
    }

    /// The user's documents (not deleted) with record id after `after`, at most `limit`.
    pub async fn list_documents(&self, user: &UserKey, after: Option<&str>, limit: i64) -> ApiResult<DocumentPage> {
        let mut q = owner(user);
        q.insert("deleted", false);
        if let Some(a) = after {
            q.insert("id", doc! { "$gt": a });
        }
        let docs: Vec<Document> = self.coll("documents").find(q).sort(doc! { "id": 1 }).limit(limit + 1).await?.try_collect().await?;
        let more = docs.len() as i64 > limit;
        let documents: Vec<Value> = docs.into_iter().take(limit as usize).map(to_json).collect();
        let next = if more { documents.last().and_then(|m| m.get("id")).and_then(Value::as_str).map(str::to_owned) } else { None };
        Ok(DocumentPage { documents, next })
    }

    /// Edges reachable from the entity named `from` within `depth` hops, following only
    /// relations named `rel` when given. One `$graphLookup`, filtered to the user.
    pub async fn graph(&self, user: &UserKey, from: &str, rel: Option<&str>, depth: u32) -> ApiResult<Vec<GraphEdgeOut>> {
        let mut edge = owner(user);
        edge.insert("present", true);
        if let Some(r) = rel {
            edge.insert("rel", norm(r));
        }
        let mut first = edge.clone();
        first.insert("from", norm(from));
        let mut pipeline = vec![doc! { "$match": first }];
        if depth > 1 {
            pipeline.push(doc! { "$graphLookup": {
                "from": "relations",
                "startWith": "$to",
                "connectFromField": "to",
                "connectToField": "from",
                "as": "reach",
                "maxDepth": (depth - 2) as i64,
                "depthField": "hops",
                "restrictSearchWithMatch": edge,
            } });
        }
        let docs: Vec<Document> = self.coll("relations").aggregate(pipeline).await?.try_collect().await?;
        let mut out = BTreeSet::new();
        let edge_of = |d: &Document, depth: u32| GraphEdgeOut {
            depth,
            from: d.get_str("from_name").unwrap_or_default().to_owned(),
            rel: d.get_str("rel").unwrap_or_default().to_owned(),
            to: d.get_str("to_name").unwrap_or_default().to_owned(),
            record: d.get_str("record").ok().map(str::to_owned),
        };
        for d in &docs {
            out.insert(edge_of(d, 1));
            for r in d.get_array("reach").map(|a| a.as_slice()).unwrap_or_default() {
                if let Some(r) = r.as_document() {
                    let hops = r.get("hops").and_then(|h| h.as_i64().or_else(|| h.as_i32().map(i64::from))).unwrap_or(0);
                    out.insert(edge_of(r, hops as u32 + 2));
                }
            }
        }
        // The same edge reached along several paths: keep its shortest depth.
        let mut seen = BTreeSet::new();
        Ok(out.into_iter().filter(|e| seen.insert((e.from.clone(), e.rel.clone(), e.to.clone()))).collect())
    }
}
