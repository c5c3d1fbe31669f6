//! The only way to read the graph: named templates with bound parameters — never query
//! text built from model output. Each template is a small, bounded traversal.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::knowledge::graph::store::{norm, Entity, Graph};

/// Upper bound on `max_depth` for any template.
pub const MAX_DEPTH: usize = 6;

/// A graph question. As data: `{ "template": "neighbours", "entity": "Ann" }` — the
/// template's kebab-case name beside its camelCase parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "template", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum GraphQuery {
    /// Entities one edge away (either direction), optionally of one relation type.
    Neighbours { entity: String, relation: Option<String> },
    /// A shortest undirected path between two entities, at most `max_depth` edges.
    Path { from: String, to: String, max_depth: usize },
    /// Everything reachable from `entity` along outgoing edges of the given types, within `max_depth`.
    Reachable { entity: String, relations: Vec<String>, max_depth: usize },
    /// "Status of the task A and B work on": tasks both work on (via `works_on`), with their status.
    SharedTasks { a: String, b: String },
    /// "Deadlines of projects under initiative X": projects `part_of` X (transitively, ≤ max_depth) and their deadlines.
    ProjectsUnder { initiative: String, max_depth: usize },
}

/// Every parameter any template takes, read in one pass: serde's derived reader for an
/// internally tagged enum buffers the whole input first (and its buffering code is a few
/// KB of wasm); this reads the fields straight into one struct and picks the variant.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct QueryFields {
    template: String,
    entity: Option<String>,
    relation: Option<String>,
    relations: Option<Vec<String>>,
    from: Option<String>,
    to: Option<String>,
    max_depth: Option<usize>,
    a: Option<String>,
    b: Option<String>,
    initiative: Option<String>,
}

const TEMPLATES: &[&str] = &["neighbours", "path", "reachable", "shared-tasks", "projects-under"];

impl<'de> Deserialize<'de> for GraphQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let f = QueryFields::deserialize(d)?;
        fn need<T, E: Error>(v: Option<T>, name: &'static str) -> Result<T, E> {
            v.ok_or_else(|| E::missing_field(name))
        }
        Ok(match f.template.as_str() {
            "neighbours" => GraphQuery::Neighbours { entity: need(f.entity, "entity")?, relation: f.relation },
            "path" => GraphQuery::Path { from: need(f.from, "from")?, to: need(f.to, "to")?, max_depth: need(f.max_depth, "maxDepth")? },
            "reachable" => GraphQuery::Reachable {
                entity: need(f.entity, "entity")?,
                relations: need(f.relations, "relations")?,
                max_depth: need(f.max_depth, "maxDepth")?,
            },
            "shared-tasks" => GraphQuery::SharedTasks { a: need(f.a, "a")?, b: need(f.b, "b")? },
            "projects-under" => GraphQuery::ProjectsUnder { initiative: need(f.initiative, "initiative")?, max_depth: need(f.max_depth, "maxDepth")? },
            other => return Err(D::Error::unknown_variant(other, TEMPLATES)),
        })
    }
}

/// A graph answer: entities (with their attributes) and, for paths, the chain of ids.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphAnswer {
    pub entities: Vec<Entity>,
    pub path: Vec<String>,
}

impl Graph {
    /// Run a template.
    pub fn query(&self, q: &GraphQuery) -> GraphAnswer {
        let ents = |ids: BTreeSet<String>| ids.into_iter().filter_map(|i| self.entities.get(&i).cloned()).collect();
        match q {
            GraphQuery::Neighbours { entity, relation } => {
                let id = norm(entity);
                let rel = relation.as_deref().map(norm);
                let mut ids: BTreeSet<String> = crate::sort::set(self.out(&id, rel.as_deref()).map(|(k, _)| k.to.clone()));
                ids.extend(self.incoming(&id, rel.as_deref()).map(|(k, _)| k.from.clone()));
                GraphAnswer { entities: ents(ids), path: Vec::new() }
            }
            GraphQuery::Path { from, to, max_depth } => {
                let path = self.shortest_path(&norm(from), &norm(to), (*max_depth).min(MAX_DEPTH));
                GraphAnswer { entities: path.iter().filter_map(|i| self.entities.get(i).cloned()).collect(), path }
            }
            GraphQuery::Reachable { entity, relations, max_depth } => {
                let rels: Vec<String> = relations.iter().map(|r| norm(r)).collect();
                GraphAnswer { entities: ents(self.reachable(&norm(entity), &rels, (*max_depth).min(MAX_DEPTH))), path: Vec::new() }
            }
            GraphQuery::SharedTasks { a, b } => {
                let of = |who: &str| -> BTreeSet<String> { crate::sort::set(self.out(&norm(who), Some("works_on")).map(|(k, _)| k.to.clone())) };
                let both: BTreeSet<String> = crate::sort::set(of(a).intersection(&of(b)).cloned());
                GraphAnswer { entities: ents(both), path: Vec::new() }
            }
            GraphQuery::ProjectsUnder { initiative, max_depth } => {
                // Walk `part_of` edges backwards from the initiative.
                let root = norm(initiative);
                let mut seen = BTreeSet::new();
                let mut frontier = vec![root.clone()];
                for _ in 0..(*max_depth).clamp(1, MAX_DEPTH) {
                    let mut next = Vec::new();
                    for n in &frontier {
                        for (k, _) in self.incoming(n, Some("part_of")) {
                            if k.from != root && seen.insert(k.from.clone()) {
                                next.push(k.from.clone());
                            }
                        }
                    }
                    frontier = next;
                }
                let projects = crate::sort::set(seen.into_iter().filter(|i| self.entities.get(i).is_some_and(|e| e.kind == "project")));
                GraphAnswer { entities: ents(projects), path: Vec::new() }
            }
        }
    }

    /// Breadth-first shortest path over present edges, ignoring direction.
    pub fn shortest_path(&self, from: &str, to: &str, max_depth: usize) -> Vec<String> {
        if !self.entities.contains_key(from) || !self.entities.contains_key(to) {
            return Vec::new();
        }
        let mut prev: BTreeMap<String, String> = BTreeMap::new();
        let mut depth: BTreeMap<String, usize> = BTreeMap::from([(from.to_owned(), 0)]);
        let mut queue = VecDeque::from([from.to_owned()]);
        while let Some(n) = queue.pop_front() {
            if n == to {
                let mut path = vec![n.clone()];
                let mut cur = n;
                while let Some(p) = prev.get(&cur) {
                    path.push(p.clone());
                    cur = p.clone();
                }
                path.reverse();
                return path;
            }
            let d = depth[&n];
            if d == max_depth {
                continue;
            }
            for m in self.neighbours(&n) {
                if !depth.contains_key(&m) {
                    depth.insert(m.clone(), d + 1);
                    prev.insert(m.clone(), n.clone());
                    queue.push_back(m);
                }
            }
        }
        Vec::new()
    }

    /// Entities reachable along outgoing edges whose type is in `rels` (any type when empty).
    pub fn reachable(&self, from: &str, rels: &[String], max_depth: usize) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut frontier = vec![from.to_owned()];
        for _ in 0..max_depth {
            let mut next = Vec::new();
            for n in &frontier {
                for (k, _) in self.out(n, None).filter(|(k, _)| rels.is_empty() || rels.contains(&k.rel)) {
                    if k.to != from && seen.insert(k.to.clone()) {
                        next.push(k.to.clone());
                    }
                }
            }
            frontier = next;
        }
        seen
    }
}
