//! The knowledge graph (seed 001, layer 3): entities and typed relations, written as ops
//! (so they sync and are forgotten with the user) and read only through the templates of
//! [`GraphQuery`]. Edges remember the record they came from, which is how graph facts join
//! recall: records linked to entities the query mentions.

mod query;
mod store;

pub use query::{GraphAnswer, GraphQuery, MAX_DEPTH};
pub use store::{norm, EdgeKey, EdgeState, Entity, Graph};

use serde::{Deserialize, Serialize};

use crate::engine::sync::{Op, OpBody};
use crate::engine::Engram;
use crate::error::{Error, Result};
use crate::hlc::Millis;
use crate::model::Scope;

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

fn check(field: &'static str, s: &str) -> Result<()> {
    crate::model::limits::check_label(field, s, crate::model::limits::MAX_LABEL)
}

impl Engram {
    /// Add (or remove) a relation for the scope's user.
    pub fn relate(&mut self, scope: &Scope, r: Relation, now: Millis) -> Result<()> {
        scope.validate()?;
        for (f, v) in [("from", &r.from.name), ("to", &r.to.name), ("rel", &r.rel), ("from.kind", &r.from.kind), ("to.kind", &r.to.kind)] {
            check(f, v)?;
        }
        let stamp = self.next_stamp(now);
        let op = Op {
            user: scope.user_key(),
            stamp,
            body: OpBody::GraphEdge { from: r.from, rel: r.rel, to: r.to, present: r.present, record: r.record },
        };
        self.apply(op.clone())?;
        self.pending.push(op);
        Ok(())
    }

    /// Set an attribute of an entity (e.g. a task's `status`).
    pub fn set_entity_attribute(&mut self, scope: &Scope, entity: &EntityRef, attr: &str, value: &str, now: Millis) -> Result<()> {
        scope.validate()?;
        check("entity", &entity.name)?;
        check("attribute", attr)?;
        check("entity.kind", &entity.kind)?;
        if value.len() > crate::model::limits::MAX_ATTR_VALUE {
            return Err(Error::invalid("value", format!("at most {} bytes", crate::model::limits::MAX_ATTR_VALUE)));
        }
        let stamp = self.next_stamp(now);
        let op = Op {
            user: scope.user_key(),
            stamp,
            body: OpBody::GraphAttr { entity: entity.clone(), attr: attr.to_owned(), value: value.to_owned() },
        };
        self.apply(op.clone())?;
        self.pending.push(op);
        Ok(())
    }

    /// Remove the relations learned from `records` (e.g. facts a newer fact superseded).
    pub fn unlink_records(&mut self, scope: &Scope, records: &[String], now: Millis) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let Some(p) = self.partition(scope)? else { return Ok(()) };
        let g = &p.graph;
        let entity = |id: &str| g.entities.get(id).map(|e| EntityRef::new(&e.name, &e.kind));
        let stale: Vec<Relation> = g
            .edges
            .iter()
            .filter(|(_, s)| s.present && s.record.as_ref().is_some_and(|r| records.contains(r)))
            .filter_map(|(k, s)| Some(Relation { from: entity(&k.from)?, rel: k.rel.clone(), to: entity(&k.to)?, present: false, record: s.record.clone() }))
            .collect();
        for r in stale {
            self.relate(scope, r, now)?;
        }
        Ok(())
    }

    /// Answer a graph template for the scope's user.
    pub fn graph_query(&self, scope: &Scope, q: &GraphQuery) -> Result<GraphAnswer> {
        Ok(self.partition(scope)?.map(|p| p.graph.query(q)).unwrap_or_default())
    }
}
