//! Ops: the changes replicas exchange, as data — what each one does, and the limits every
//! op must meet wherever it comes from ([`crate::store::validate`]). How they merge is the engine's
//! ([`crate::sync::merge`]); how they are encoded, the codec's ([`crate::codec`]).

use serde::{Deserialize, Serialize};

use crate::knowledge::graph::EntityRef;
use crate::hlc::Stamp;
use crate::model::{Record, UserKey};

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
