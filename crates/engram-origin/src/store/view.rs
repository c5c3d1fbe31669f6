//! The views kept from accepted ops: `memories`, `relations`, `entities`,
//! `session_memories`, `user_profiles`, and the archival layer's `documents` and `chunks`
//! (records of those kinds go there instead of `memories`). Every write is conditional on the stamp
//! (last writer wins, as in the core), so applying a batch twice or out of order gives
//! the same documents.

use mongodb::bson::{doc, Bson, Document};

use futures_util::TryStreamExt;

use super::{owner, stamp_key, Store};
use crate::error::ApiResult;
use engram_core::knowledge::graph::norm;
use engram_core::archive::{document_of_chunk, manifest::Manifest};
use engram_core::extract::USER_ENTITY;
use engram_core::profile::settings::ATTR_PREFIX;
use engram_core::{Kind, Op, OpBody, Record, Source, UserKey};

use super::profile::{metadata_fields, DAY_MS, RETENTION_ATTR, SESSION_METADATA};

/// History entries kept per session document (the core keeps the full turns).
const HISTORY_CAP: i32 = 200;
use super::statements::{date, field_key, Updates, CHUNK};

/// Last-writer-wins writes to one collection, keyed by some fields of the document.
/// Written as: one read of the keys' current stamps, `insert_many` for new keys and
/// stamp-conditional updates by `_id` for older ones — far fewer server-side lookups than
/// one conditional upsert per write (SecantusDB scans for those), and still safe against a
/// concurrent writer: an insert racing another hits the unique index and is retried as a
/// conditional update, and every update keeps its `stamp < new` condition.
#[derive(Default)]
struct LastWriterWins {
    /// key string → (key fields, stamp, fields to set)
    writes: std::collections::BTreeMap<String, (Document, String, Document)>,
}

impl LastWriterWins {
    fn put(&mut self, key: Document, stamp: String, set: Document) {
        let k = key.values().map(|v| v.as_str().unwrap_or_default()).collect::<Vec<_>>().join("\u{0}");
        match self.writes.get(&k) {
            Some((_, s, _)) if *s >= stamp => {}
            _ => {
                self.writes.insert(k, (key, stamp, set));
            }
        }
    }
}

/// An update document from fields to set, with an optional `$unset` entry among them.
fn set_and_unset(fields: &Document) -> Document {
    let mut set = fields.clone();
    match set.remove("$unset") {
        Some(unset) => doc! { "$set": set, "$unset": unset },
        None => doc! { "$set": set },
    }
}

/// Match documents whose `field` is missing or older than `stamp`.
fn older(field: &str, stamp: &str) -> Document {
    doc! { "$or": [ { field: { "$exists": false } }, { field: { "$lt": stamp } } ] }
}


/// A memory's view; with a retention of `days`, it expires that long after it was written
/// (or at its own expiry if sooner).
fn record_doc(r: &Record, seq: i64, days: Option<u32>) -> Document {
    let retained = days.map(|d| r.created_at.saturating_add(i64::from(d) * DAY_MS));
    let expires = match (r.expires_at, retained) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    doc! {
        "seq": seq,
        "stamp": stamp_key(r.stamp),
        "deleted": false,
        "kind": r.kind.as_str(),
        "layer": format!("{:?}", r.layer).to_lowercase(),
        "text": &r.text,
        "key": r.key.as_ref().map_or(Bson::Null, |k| Bson::Document(doc! { "subject": &k.subject, "attribute": &k.attribute })),
        "importance": r.importance as f64,
        "confidence": r.confidence as f64,
        "source": r.source.as_str(),
        "tags": r.tags.clone(),
        "agent": r.scope.agent.clone(),
        "session": r.scope.session.clone(),
        "created_at": date(r.created_at),
        "updated_at": date(r.updated_at),
        "valid_from": date(r.valid_from),
        "valid_to": r.valid_to.map(date),
        "superseded_by": r.superseded_by.clone(),
        "expires_at": expires.map(date),
        "sensitivity": format!("{:?}", r.sensitivity).to_lowercase(),
        "pending_review": r.pending_review,
        "has_embedding": r.embedding.is_some(),
        "sealed_values": r.sealed.len() as i64,
    }
}

/// The view of a document record: its fields, parsed from the record's manifest.
fn document_doc(r: &Record, seq: i64) -> Document {
    let m = Manifest::decode(&r.text).unwrap_or_default();
    let id = r.id.strip_prefix("d/").unwrap_or(&r.id);
    let chunks: Vec<String> = m.chunks.iter().map(|(s, _)| format!("c/{id}/{s}")).collect();
    doc! {
        "seq": seq,
        "stamp": stamp_key(r.stamp),
        "deleted": false,
        "document_id": id,
        "title": &m.title,
        "source": &m.source,
        "metadata": &m.metadata,
        "tags": r.tags.clone(),
        "chunk_count": chunks.len() as i64,
        "chunks": chunks,
        "created_at": date(r.created_at),
        "updated_at": date(r.updated_at),
    }
}

/// The view of a chunk record: its document and text (positions live in the document).
fn chunk_doc(r: &Record, seq: i64) -> Document {
    doc! {
        "seq": seq,
        "stamp": stamp_key(r.stamp),
        "deleted": false,
        "document_id": document_of_chunk(&r.id).unwrap_or_default(),
        "text": &r.text,
        "has_embedding": r.embedding.is_some(),
        "created_at": date(r.created_at),
    }
}

/// Which view a record id is kept in (the core reserves `d/` and `c/` for documents).
fn view_of_id(id: &str) -> &'static str {
    if id.starts_with("d/") {
        "documents"
    } else if id.starts_with("c/") {
        "chunks"
    } else {
        "memories"
    }
}

impl Store {
    /// Bring the views up to date with accepted `ops` (batch number `seq`).
    pub(super) async fn materialize(&self, user: &UserKey, seq: i64, ops: &[Op]) -> ApiResult<()> {
        let (mut memories, mut relations, mut entities) = (LastWriterWins::default(), LastWriterWins::default(), LastWriterWins::default());
        let (mut documents, mut chunks) = (LastWriterWins::default(), LastWriterWins::default());
        let mut sessions = Updates::default();
        let (mut profile_dirty, mut retention_changed) = (false, false);
        // A user's retention bounds every memory's expiry (the TTL index removes them).
        let retention = self.profile_settings(user).await?.retention_days;
        let who = owner(user);
        let with = |extra: Document| -> Document {
            let mut d = who.clone();
            d.extend(extra);
            d
        };
        let session_q = |s: &str| with(doc! { "session_id": s });
        let ensure_session = |u: &mut Updates, s: &str, stamp: &str, wall: i64| {
            u.upsert(
                session_q(s),
                doc! {
                    "$setOnInsert": { "start_time": date(wall), "context": { "state": {}, "conversation_history": [] } },
                    "$max": { "last_activity": date(wall), "stamp": stamp },
                },
            );
        };
        for op in ops {
            let s = stamp_key(op.stamp);
            match &op.body {
                OpBody::Upsert(r) if r.kind == Kind::Document => documents.put(doc! { "id": &r.id }, stamp_key(r.stamp), document_doc(r, seq)),
                OpBody::Upsert(r) if r.kind == Kind::Chunk => chunks.put(doc! { "id": &r.id }, stamp_key(r.stamp), chunk_doc(r, seq)),
                OpBody::Upsert(r) => {
                    let rs = stamp_key(r.stamp);
                    memories.put(doc! { "id": &r.id }, rs.clone(), record_doc(r, seq, retention));
                    profile_dirty |= matches!(r.kind, Kind::Fact | Kind::Preference);
                    if let (Kind::Message, Some(sess)) = (r.kind, &r.scope.session) {
                        ensure_session(&mut sessions, sess, &rs, r.created_at);
                        let role = if r.source == Source::Assistant { "assistant" } else { "user" };
                        let entry = doc! { "id": &r.id, "role": role, "content": &r.text, "timestamp": date(r.created_at), "stamp": &rs };
                        sessions.update(
                            with(doc! { "session_id": sess, "context.conversation_history.id": { "$ne": &r.id } }),
                            doc! {
                                "$push": { "context.conversation_history": { "$each": [entry], "$slice": -HISTORY_CAP } },
                                "$inc": { "metadata.turns": 1i64 },
                            },
                            false,
                        );
                    }
                }
                OpBody::Delete { id } if view_of_id(id) != "memories" => {
                    let unset = doc! { "text": "", "title": "", "source": "", "metadata": "", "tags": "", "chunks": "" };
                    let tombstone = doc! { "seq": seq, "stamp": &s, "deleted": true, "$unset": unset };
                    let view = if view_of_id(id) == "documents" { &mut documents } else { &mut chunks };
                    view.put(doc! { "id": id }, s.clone(), tombstone);
                }
                OpBody::Delete { id } => {
                    let tombstone = doc! { "seq": seq, "stamp": &s, "deleted": true, "$unset": { "text": "", "key": "", "tags": "", "kind": "" } };
                    memories.put(doc! { "id": id }, s.clone(), tombstone);
                    sessions.update(who.clone(), doc! { "$pull": { "context.conversation_history": { "id": id } } }, true);
                    profile_dirty = true;
                }
                OpBody::ForgetUser => profile_dirty = true,
                OpBody::GraphEdge { from, rel, to, present, record } => {
                    relations.put(
                        doc! { "from": norm(&from.name), "rel": norm(rel), "to": norm(&to.name) },
                        s.clone(),
                        doc! {
                            "present": *present, "record": record.clone(), "seq": seq, "stamp": &s,
                            "from_name": from.name.trim(), "from_kind": norm(&from.kind),
                            "to_name": to.name.trim(), "to_kind": norm(&to.kind),
                        },
                    );
                }
                OpBody::GraphAttr { entity, attr, value } => {
                    if norm(&entity.name) == norm(USER_ENTITY) && attr.starts_with(ATTR_PREFIX) {
                        profile_dirty = true;
                        retention_changed |= attr == RETENTION_ATTR;
                    }
                    entities.put(
                        doc! { "entity": norm(&entity.name), "attr": attr },
                        s.clone(),
                        doc! { "value": value, "name": entity.name.trim(), "kind": norm(&entity.kind), "stamp": &s },
                    );
                }
                OpBody::SessionSet { session, key, value } if key == SESSION_METADATA => {
                    // The core's metadata of the session, kept beside its state (never cleared with it).
                    ensure_session(&mut sessions, session, &s, op.stamp.wall_ms);
                    if let Some(fields) = metadata_fields(value) {
                        let mut set = fields;
                        set.insert("metadata_stamp", &s);
                        sessions.update(with(doc! { "session_id": session, "$and": [older("metadata_stamp", &s)] }), doc! { "$set": set }, false);
                    }
                }
                OpBody::SessionSet { session, key, value } => {
                    ensure_session(&mut sessions, session, &s, op.stamp.wall_ms);
                    let k = field_key(key);
                    sessions.update(
                        with(doc! { "session_id": session, "$and": [older(&format!("stamps.{k}"), &s), older("cleared", &s)] }),
                        doc! { "$set": { format!("context.state.{k}"): value, format!("stamps.{k}"): &s } },
                        false,
                    );
                }
                OpBody::SessionSummary { session, text } => {
                    ensure_session(&mut sessions, session, &s, op.stamp.wall_ms);
                    sessions.update(
                        with(doc! { "session_id": session, "$and": [older("summary_stamp", &s)] }),
                        doc! { "$set": { "context.summary": text, "summary_stamp": &s } },
                        false,
                    );
                }
                OpBody::SessionClear { session } => {
                    ensure_session(&mut sessions, session, &s, op.stamp.wall_ms);
                    sessions.update(
                        with(doc! { "session_id": session, "$and": [older("cleared", &s)] }),
                        doc! { "$set": { "cleared": &s, "context.state": {}, "stamps": {} } },
                        false,
                    );
                }
            }
        }
        self.write_lww("memories", user, memories).await?;
        self.write_lww("relations", user, relations).await?;
        self.write_lww("entities", user, entities).await?;
        self.write_lww("documents", user, documents).await?;
        self.write_lww("chunks", user, chunks).await?;
        self.run_updates("session_memories", sessions, true).await?;
        if retention_changed {
            self.apply_retention(user).await?;
        }
        if profile_dirty {
            self.rebuild_profile(user).await?;
        }
        Ok(())
    }

    /// Apply last-writer-wins writes (see [`LastWriterWins`]).
    async fn write_lww(&self, coll: &str, user: &UserKey, lww: LastWriterWins) -> ApiResult<()> {
        let writes: Vec<(Document, String, Document)> = lww.writes.into_values().collect();
        for chunk in writes.chunks(CHUNK) {
            let mut q = owner(user);
            let fields: Vec<String> = chunk[0].0.keys().cloned().collect();
            if let [only] = fields.as_slice() {
                // One key field: `$in`, which servers answer from the index as a set.
                q.insert(only.as_str(), doc! { "$in": chunk.iter().map(|(k, _, _)| k.get(only).cloned().unwrap_or(Bson::Null)).collect::<Vec<_>>() });
            } else {
                q.insert("$or", chunk.iter().map(|(k, _, _)| k.clone()).collect::<Vec<_>>());
            }
            let mut projection = doc! { "_id": 1, "stamp": 1 };
            for k in chunk[0].0.keys() {
                projection.insert(k, 1);
            }
            let current: Vec<Document> = self.coll(coll).find(q).projection(projection).await?.try_collect().await?;
            let key_of = |d: &Document, fields: &Document| fields.keys().map(|f| d.get_str(f).unwrap_or_default().to_owned()).collect::<Vec<_>>().join("\u{0}");
            let found: std::collections::HashMap<String, (Bson, String)> = current
                .iter()
                .map(|d| (key_of(d, &chunk[0].0), (d.get("_id").cloned().unwrap_or(Bson::Null), d.get_str("stamp").unwrap_or_default().to_owned())))
                .collect();
            let (mut inserts, mut updates) = (Vec::new(), Updates::default());
            for (key, stamp, set) in chunk {
                let mut full = owner(user);
                full.extend(key.clone());
                match found.get(&key_of(&full, key)) {
                    Some((_, cur)) if cur >= stamp => {}
                    Some((id, _)) => updates.update(doc! { "_id": id.clone(), "stamp": { "$lt": stamp } }, set_and_unset(set), false),
                    None => {
                        let mut fields = set.clone();
                        fields.remove("$unset");
                        full.extend(fields);
                        inserts.push(full);
                    }
                }
            }
            if !inserts.is_empty() {
                let raced = match self.coll(coll).insert_many(inserts.clone()).ordered(false).await {
                    Ok(_) => Vec::new(),
                    Err(e) => match *e.kind {
                        mongodb::error::ErrorKind::InsertMany(ref f) if f.write_concern_error.is_none() && f.write_errors.as_ref().is_some_and(|w| w.iter().all(|w| w.code == 11000)) => {
                            f.write_errors.as_ref().map(|w| w.iter().map(|w| w.index).collect()).unwrap_or_default()
                        }
                        _ => return Err(e.into()),
                    },
                };
                // Another writer inserted the same key first: fall back to a conditional update.
                for i in raced {
                    let d = &inserts[i];
                    let (key, stamp, set) = &chunk.iter().find(|(k, _, _)| k.iter().all(|(f, v)| d.get(f) == Some(v))).cloned().unwrap_or_default();
                    let mut q = owner(user);
                    q.extend(key.clone());
                    q.insert("stamp", doc! { "$lt": stamp.as_str() });
                    updates.update(q, set_and_unset(set), false);
                }
            }
            self.run_updates(coll, updates, false).await?;
        }
        Ok(())
    }

    /// Remove from every view what `user` wrote before the stamp `key`.
    pub(super) async fn forget_views(&self, user: &UserKey, key: &str) -> ApiResult<()> {
        let mut older_than = owner(user);
        older_than.insert("stamp", doc! { "$lt": key });
        for coll in ["memories", "relations", "entities", "session_memories", "documents", "chunks"] {
            self.coll(coll).delete_many(older_than.clone()).await?;
        }
        // Sessions touched after the forget keep only what is newer than it.
        let survivors: Vec<Document> = self.coll("session_memories").find(owner(user)).await?.try_collect().await?;
        for d in survivors {
            let stamps = d.get_document("stamps").cloned().unwrap_or_default();
            let state = d.get_document("context").ok().and_then(|c| c.get_document("state").ok()).cloned().unwrap_or_default();
            let (mut keep_state, mut keep_stamps) = (Document::new(), Document::new());
            for (k, st) in stamps.iter() {
                if st.as_str().is_some_and(|s| s >= key) {
                    keep_stamps.insert(k, st.clone());
                    if let Some(v) = state.get(k) {
                        keep_state.insert(k, v.clone());
                    }
                }
            }
            let mut set = doc! { "context.state": keep_state, "stamps": keep_stamps };
            if d.get_str("summary_stamp").is_ok_and(|s| s < key) {
                set.insert("context.summary", Bson::Null);
            }
            self.coll("session_memories")
                .update_one(
                    doc! { "_id": d.get("_id").cloned().unwrap_or(Bson::Null) },
                    doc! { "$set": set, "$pull": { "context.conversation_history": { "stamp": { "$lt": key } } } },
                )
                .await?;
        }
        self.rebuild_profile(user).await
    }
}
