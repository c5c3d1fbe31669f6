//! One user's graph: entities (by normalized name), typed directed edges, and entity
//! attributes (e.g. a task's `status`, a project's `deadline`). Every edge and attribute
//! carries the stamp of its last write (last writer wins across replicas) and the record
//! it came from, if any.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::hlc::Stamp;

/// Normalize an entity name or relation type: trimmed, lowercase, inner whitespace as `_`.
pub fn norm(s: &str) -> String {
    s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join("_")
}

/// An entity: its display name and kind (person, task, project, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub attributes: BTreeMap<String, String>,
}

/// A typed edge `from —type→ to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EdgeKey {
    pub from: String,
    pub rel: String,
    pub to: String,
}

/// Edge state: present or removed, with provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EdgeState {
    pub present: bool,
    pub stamp: Stamp,
    pub record: Option<String>,
}

/// The graph of one partition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    pub(super) entities: BTreeMap<String, Entity>,
    edges: BTreeMap<EdgeKey, EdgeState>,
    /// Stamp of the last write of each `(entity, attribute)`.
    attr_stamps: BTreeMap<(String, String), Stamp>,
}

impl Graph {
    /// True when the graph has no entities.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entity with (normalized) `id`.
    pub fn entity(&self, id: &str) -> Option<&Entity> {
        self.entities.get(id)
    }

    /// Every entity, by id.
    pub fn entities(&self) -> impl Iterator<Item = &Entity> {
        self.entities.values()
    }

    /// Every edge ever written (present or removed), by key.
    pub fn edges(&self) -> impl Iterator<Item = (&EdgeKey, &EdgeState)> {
        self.edges.iter()
    }

    /// Every attribute write still held: the entity, the attribute, its value and stamp.
    pub fn attr_writes(&self) -> impl Iterator<Item = (&Entity, &str, &str, Stamp)> {
        self.attr_stamps.iter().filter_map(|((id, attr), stamp)| {
            let e = self.entities.get(id)?;
            let value = e.attributes.get(attr)?;
            Some((e, attr.as_str(), value.as_str(), *stamp))
        })
    }

    /// Drop the edges and attributes written at or before `stamp`, and the entities no
    /// remaining edge or attribute refers to (the user was forgotten at `stamp`).
    pub fn forget_before(&mut self, stamp: Stamp) {
        self.edges.retain(|_, e| e.stamp > stamp);
        self.attr_stamps.retain(|_, s| *s > stamp);
        let keep: BTreeSet<String> =
            crate::sort::set(self.edges.keys().flat_map(|k| [k.from.clone(), k.to.clone()]).chain(self.attr_stamps.keys().map(|k| k.0.clone())));
        self.entities.retain(|id, _| keep.contains(id));
        let attr_stamps = &self.attr_stamps;
        for e in self.entities.values_mut() {
            let id = e.id.clone();
            e.attributes.retain(|a, _| attr_stamps.contains_key(&(id.clone(), a.clone())));
        }
    }

    /// Make sure an entity exists (same name and kind on every replica, whatever the order).
    pub fn ensure(&mut self, name: &str, kind: &str) -> String {
        let id = norm(name);
        let e = self.entities.entry(id.clone()).or_insert_with(|| Entity {
            id: id.clone(),
            name: name.trim().to_owned(),
            kind: norm(kind),
            attributes: BTreeMap::new(),
        });
        // Replicas may see names and kinds in any order: keep the same one everywhere —
        // a specific kind over "thing", then the smallest, and the smallest display name.
        let kind = norm(kind);
        if kind != "thing" && (e.kind == "thing" || kind < e.kind) {
            e.kind = kind;
        }
        let name = name.trim();
        if name < e.name.as_str() {
            e.name = name.to_owned();
        }
        id
    }

    /// Apply an edge write if it is newer than what is stored. Returns whether it changed.
    pub fn put_edge(&mut self, key: EdgeKey, present: bool, stamp: Stamp, record: Option<String>) -> bool {
        if self.edges.get(&key).is_some_and(|s| s.stamp >= stamp) {
            return false;
        }
        self.edges.insert(key, EdgeState { present, stamp, record });
        true
    }

    /// Apply an attribute write if newer. Returns whether it changed.
    pub fn put_attr(&mut self, entity: &str, attr: &str, value: &str, stamp: Stamp) -> bool {
        let k = (entity.to_owned(), norm(attr));
        if self.attr_stamps.get(&k).is_some_and(|s| *s >= stamp) {
            return false;
        }
        if let Some(e) = self.entities.get_mut(entity) {
            e.attributes.insert(k.1.clone(), value.to_owned());
        }
        self.attr_stamps.insert(k, stamp);
        true
    }

    /// Present edges leaving `id` (optionally of one type).
    pub fn out<'a>(&'a self, id: &'a str, rel: Option<&'a str>) -> impl Iterator<Item = (&'a EdgeKey, &'a EdgeState)> + 'a {
        let lo = EdgeKey { from: id.to_owned(), rel: String::new(), to: String::new() };
        self.edges
            .range(lo..)
            .take_while(move |(k, _)| k.from == id)
            .filter(move |(k, s)| s.present && rel.is_none_or(|r| k.rel == r))
    }

    /// Present edges arriving at `id` (optionally of one type). A scan: graphs per user are small.
    pub fn incoming<'a>(&'a self, id: &'a str, rel: Option<&'a str>) -> impl Iterator<Item = (&'a EdgeKey, &'a EdgeState)> {
        self.edges.iter().filter(move |(k, s)| s.present && k.to == id && rel.is_none_or(|r| k.rel == r))
    }

    /// Undirected neighbours of `id` over present edges.
    pub fn neighbours(&self, id: &str) -> BTreeSet<String> {
        crate::sort::set(self.out(id, None).map(|(k, _)| k.to.clone()).chain(self.incoming(id, None).map(|(k, _)| k.from.clone())))
    }
}
