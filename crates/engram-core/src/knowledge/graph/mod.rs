//! The knowledge graph (seed 001, layer 3): entities and typed relations, written as ops
//! (so they sync and are forgotten with the user) and read only through the templates of
//! [`GraphQuery`]. Edges remember the record they came from, which is how graph facts join
//! recall: records linked to entities the query mentions. This module is the graph as
//! data (entities, relations, templates); the engine writes and reads it per user
//! ([`crate::knowledge::relations`]).

mod query;
mod store;

pub use query::{GraphAnswer, GraphQuery, MAX_DEPTH};
pub use store::{norm, EdgeKey, EdgeState, Entity, Graph};

use serde::{Deserialize, Serialize};


/// One end of a relation: a name and a kind (`person`, `task`, `project`, `initiative`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityRef {
    pub name: String,
    pub kind: String,
}

impl EntityRef {
    /// An entity of `kind` named `name`.
    pub fn new(name: &str, kind: &str) -> Self {
        EntityRef { name: name.to_owned(), kind: kind.to_owned() }
    }
}

/// A relation `from —rel→ to` to add (or remove), optionally citing the record it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relation {
    pub from: EntityRef,
    pub rel: String,
    pub to: EntityRef,
    /// False to remove the relation (default true).
    #[serde(default = "present")]
    pub present: bool,
    /// The record this relation was learned from (joins recall through the graph channel).
    #[serde(default)]
    pub record: Option<String>,
}

fn present() -> bool {
    true
}

impl Relation {
    /// The relation `from —rel→ to`, present, citing nothing.
    pub fn new(from: EntityRef, rel: &str, to: EntityRef) -> Self {
        Relation { from, rel: rel.to_owned(), to, present: true, record: None }
    }
    /// The same relation, to be removed.
    pub fn removed(mut self) -> Self {
        self.present = false;
        self
    }
    /// The same relation, citing `record`.
    pub fn citing(mut self, record: &str) -> Self {
        self.record = Some(record.to_owned());
        self
    }
}
