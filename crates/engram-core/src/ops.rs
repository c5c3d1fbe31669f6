//! Ops: the changes replicas exchange, as data — what each one does, and the limits every
//! op must meet wherever it comes from. How they merge is the engine's
//! ([`crate::engram::sync`]); how they are encoded, the codec's ([`crate::codec`]).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::graph::EntityRef;
use crate::hlc::Stamp;
use crate::model::{Record, Scope, UserKey};

/// What an op does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OpBody {
    /// Create or replace a record (carries its embedding).
    Upsert(Box<Record>),
    /// Delete a record, leaving a tombstone.
    Delete { id: String },
    /// Remove everything of the user written before this op's stamp.
    ForgetUser,
    /// Set a session state value (last writer wins per key).
    SessionSet { session: String, key: String, value: String },
    /// Replace a session's rolling summary (last writer wins).
    SessionSummary { session: String, text: String },
    /// Add or remove a graph relation (last writer wins per edge).
    GraphEdge { from: EntityRef, rel: String, to: EntityRef, present: bool, record: Option<String> },
    /// Set an entity attribute (last writer wins per attribute).
    GraphAttr { entity: EntityRef, attr: String, value: String },
    /// Clear a session's state written before this op (expiry, end of session).
    SessionClear { session: String },
}

/// One change, stamped by the replica that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Op {
    pub user: UserKey,
    pub stamp: Stamp,
    pub body: OpBody,
}

impl Op {
    /// Check an op against the limits every write path enforces ([`crate::model::limits`]):
    /// ids and scopes, the record filed under the op's user, key parts, tags, labels and
    /// text sizes, without control characters where they are names. [`crate::Engram::apply`]
    /// runs it on every op, and the origin before it stores one, so a batch one replica
    /// (or a forged client) made cannot be stored where another replica would refuse it.
    pub fn validate(&self) -> Result<()> {
        use crate::model::limits::*;
        Scope::user(self.user.tenant.clone(), self.user.user.clone()).validate_partition()?;
        if self.user.is_procedures() {
            crate::engram::procedures::check_op(&self.body)?;
        }
        if self.user.is_library() {
            crate::archive::library::check_op(&self.body)?;
        }
        let session = |s: &str| check_id("session", s, MAX_SCOPE_ID);
        let entity = |e: &EntityRef| check_label("entity.name", &e.name, MAX_LABEL).and_then(|_| check_label("entity.kind", &e.kind, MAX_LABEL));
        match &self.body {
            OpBody::Upsert(r) => {
                r.scope.validate_partition()?;
                if r.scope.user_key() != self.user {
                    return Err(Error::invalid("op", "record scope does not match the op's user"));
                }
                check_id("id", &r.id, MAX_RECORD_ID)?;
                check_text("text", &r.text, MAX_TEXT_CEILING)?;
                if let Some(k) = &r.key {
                    check_label("key.subject", &k.subject, MAX_KEY_PART)?;
                    check_label("key.attribute", &k.attribute, MAX_KEY_PART)?;
                }
                check_tags(&r.tags)?;
                if let Some(id) = &r.superseded_by {
                    check_id("supersededBy", id, MAX_RECORD_ID)?;
                }
                if let Some(v) = &r.embedding {
                    check_at_most("embedding", v.len(), MAX_DIM)?;
                }
                Ok(())
            }
            OpBody::Delete { id } => check_id("id", id, MAX_RECORD_ID),
            OpBody::ForgetUser => Ok(()),
            OpBody::SessionSet { session: s, key, value } => {
                session(s)?;
                check_id("key", key, MAX_STATE_KEY)?;
                if value.len() > MAX_STATE_VALUE {
                    return Err(Error::TextTooLarge { len: value.len(), max: MAX_STATE_VALUE });
                }
                Ok(())
            }
            OpBody::SessionSummary { session: s, text } => {
                session(s)?;
                check_text("summary", text, MAX_TEXT_CEILING)
            }
            OpBody::SessionClear { session: s } => session(s),
            OpBody::GraphEdge { from, rel, to, record, .. } => {
                entity(from)?;
                entity(to)?;
                check_label("rel", rel, MAX_LABEL)?;
                record.as_deref().map_or(Ok(()), |id| check_id("record", id, MAX_RECORD_ID))
            }
            OpBody::GraphAttr { entity: e, attr, value } => {
                entity(e)?;
                check_label("attribute", attr, MAX_LABEL)?;
                check_at_most("value", value.len(), MAX_ATTR_VALUE)
            }
        }
    }
}

