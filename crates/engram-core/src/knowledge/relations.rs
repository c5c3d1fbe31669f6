//! The engine's side of the knowledge graph: relations and entity attributes written as ops
//! for a scope's user (so they sync and are forgotten with the user), and template queries
//! over that user's graph.

use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::knowledge::graph::{EntityRef, GraphAnswer, GraphQuery, Relation};
use crate::hlc::Millis;
use crate::model::Scope;
use crate::store::ops::{Op, OpBody};

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
        self.write_op(Op {
            user: scope.user_key(),
            stamp,
            body: OpBody::GraphEdge { from: r.from, rel: r.rel, to: r.to, present: r.present, record: r.record },
        })?;
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
        self.write_op(Op {
            user: scope.user_key(),
            stamp,
            body: OpBody::GraphAttr { entity: entity.clone(), attr: attr.to_owned(), value: value.to_owned() },
        })?;
        Ok(())
    }

    /// Remove the relations learned from `records` (e.g. facts a newer fact superseded).
    pub fn unlink_records(&mut self, scope: &Scope, records: &[String], now: Millis) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let Some(p) = self.partition(scope)? else { return Ok(()) };
        let g = p.graph();
        let entity = |id: &str| g.entity(id).map(|e| EntityRef::new(&e.name, &e.kind));
        let stale: Vec<Relation> = g
            .edges()
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
        Ok(self.partition(scope)?.map(|p| p.graph().query(q)).unwrap_or_default())
    }
}
