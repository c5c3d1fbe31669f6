//! The limits every op must meet wherever it comes from: [`Op::validate`], run by
//! [`crate::Engram::apply`] on every op and by the origin before it stores one. The
//! tenant-wide users (procedures, the library) add checks of their own.

use crate::archive::library;
use crate::error::{Error, Result};
use crate::knowledge::graph::EntityRef;
use crate::procedures;
use crate::model::Scope;
use crate::store::ops::{Op, OpBody};

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
            procedures::check_op(&self.body)?;
        }
        if self.user.is_library() {
            library::check_op(&self.body)?;
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

