//! Procedural memory (seed 001's skills layer): procedures the operator writes for a whole
//! tenant — how the agent should behave, when to use which skill — kept apart from what
//! users said.
//!
//! They live in one partition per tenant, [`UserKey::procedures`] (the reserved user id
//! [`crate::model::PROCEDURES_USER`], which [`Scope::validate`] refuses, so `remember`,
//! `observe`, extractors, `forget_user` and every other user path cannot name it), and are
//! written only here: [`Engram::put_procedure`], [`Engram::delete_procedure`]. User
//! write paths refuse [`Kind::Instruction`] and [`Layer::Procedural`] with a typed error.
//! [`Engram::build_context`] renders the tenant's procedures — all of them when there are
//! at most `procedure_limit`, else the best matches of the query by words, through the
//! partition's own BM25 index — as agent instructions outside the untrusted memory block;
//! nothing from a user's partition is ever rendered as an instruction.
//!
//! A procedure is records like everything else, so sync, snapshots and the origin's log
//! carry it: each version is one record (`p/<id>/<version>`, kind instruction, source
//! system) under the fact key `procedure`/`<id>`; a new version closes the current ones
//! (`valid_to`, `superseded_by`), leaving the audit trail keyed facts have. Two replicas
//! that change a procedure concurrently both keep their version current; the newer stamp
//! is the one read. Deleting a procedure tombstones every version this replica holds and
//! the procedure's own id (`p/<id>`): a version made before the delete on a replica that
//! had not seen it is not read when it arrives; one made after it is (a new procedure).
//!
//! ```
//! use engram_core::{ProcedureInput, Config, ContextRequest, Engram, Scope};
//! let mut e = Engram::new(Config::default(), 1);
//! e.put_procedure("acme", ProcedureInput::new("refunds", "Refunds", "Offer a refund within 30 days of purchase; never promise one after."), 1_000).unwrap();
//! let ctx = e.build_context(&Scope::user("acme", "alice"), &ContextRequest::new("can I get a refund", 300), 2_000).unwrap();
//! assert!(ctx.text.starts_with("<agent-instructions>\n- \"Refunds\": \"Offer a refund"));
//! ```

use serde::{Deserialize, Serialize};

use crate::store::partition::{Partition, Pool};
use crate::context::render::quote;
use crate::engram::{id_from_stamp, Engram};
use crate::error::{Error, Result};
use crate::hlc::{Millis, Stamp};
use crate::model::limits::{check_at_most, check_id, check_label, check_tags, check_text, MAX_LABEL};
use crate::model::{FactKey, Kind, Layer, Record, Scope, Sensitivity, Source, UserKey};
use crate::store::ops::{Op, OpBody};

/// Longest procedure id (bytes): its version records' ids stay within the record id limit.
pub const MAX_PROCEDURE_ID: usize = 64;
/// Longest "when to use" line (bytes).
pub const MAX_WHEN: usize = 1000;
/// The fact-key subject every procedure's versions share.
const KEY_SUBJECT: &str = "procedure";

/// A procedure to add or replace, as the operator writes it.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ProcedureInput {
    /// The operator's id for it; putting the same id again makes a new version.
    pub id: String,
    /// A short name, one line.
    pub name: String,
    /// What the agent should do (the instruction itself).
    pub text: String,
    /// When it applies, one line (searched with the name and text); may be empty.
    pub when: String,
    pub tags: Vec<String>,
}

impl ProcedureInput {
    /// A procedure with an id, a name and a text.
    pub fn new(id: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        ProcedureInput { id: id.into(), name: name.into(), text: text.into(), ..ProcedureInput::default() }
    }

    /// The same procedure with a "when to use" line.
    pub fn when(mut self, when: impl Into<String>) -> Self {
        self.when = when.into();
        self
    }
}

/// A stored version of a procedure.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Procedure {
    pub id: String,
    pub name: String,
    pub text: String,
    pub when: String,
    pub tags: Vec<String>,
    /// The record id of this version.
    pub version: String,
    /// False for a version a newer one replaced (the audit trail).
    pub current: bool,
    pub created_at: Millis,
    pub updated_at: Millis,
}

impl Engram {
    /// Add or replace procedure `input.id` of `tenant`. The same name, text, "when" and tags
    /// as the version in force change nothing. Returns the version in force.
    pub fn put_procedure(&mut self, tenant: &str, input: ProcedureInput, now: Millis) -> Result<Procedure> {
        let scope = Scope::procedures(tenant);
        scope.validate_partition()?;
        check_id("procedure.id", &input.id, MAX_PROCEDURE_ID)?;
        check_label("procedure.name", &input.name, MAX_LABEL)?;
        check_text("procedure.text", &input.text, self.config.max_text_bytes)?;
        check_at_most("procedure.when", input.when.len(), MAX_WHEN)?;
        if input.when.chars().any(char::is_control) {
            return Err(Error::invalid("procedure.when", "must be one line without control characters"));
        }
        check_tags(&input.tags)?;
        let text = format!("{}\n{}\n{}", input.name.trim(), input.when.trim(), input.text.trim());
        let user = UserKey::procedures(tenant);
        let key = procedure_key(&input.id);
        let current: Vec<u32> = self.partitions.get(&user).map(|p| current_versions(p, &key)).unwrap_or_default();
        if let Some(p) = self.partitions.get(&user) {
            if let [only] = current[..] {
                if let Some(r) = p.at(only).filter(|r| r.text == text && r.tags == input.tags) {
                    return procedure(r);
                }
            }
        }
        let stamp = self.next_stamp(now);
        let rid = format!("p/{}/{}", input.id, id_from_stamp(stamp));
        let created = self.partitions.get(&user).and_then(|p| versions(p, &key).into_iter().filter_map(|s| p.at(s)).map(|r| r.created_at).min()).unwrap_or(now);
        let part = self.partitions.entry(user.clone()).or_insert_with(|| Partition::new(user.clone()));
        for &slot in &current {
            part.update(slot, |r| {
                r.valid_to = Some(now);
                r.superseded_by = Some(rid.clone());
                r.updated_at = now;
                r.stamp = stamp;
            });
            if let Some(old) = part.full_record(slot) {
                self.pending.push(Op { user: user.clone(), stamp, body: OpBody::Upsert(Box::new(old)) });
            }
        }
        let rec = version_record(scope, rid, key, text, input.tags, stamp, created, now);
        let slot = part.put(rec, &self.config);
        let rec = part.full_record(slot).ok_or_else(|| Error::NotFound(input.id.clone()))?;
        let out = procedure(&rec)?;
        self.pending.push(Op { user, stamp, body: OpBody::Upsert(Box::new(rec)) });
        Ok(out)
    }

    /// Delete procedure `id` of `tenant` with every version of it (its audit trail too), as
    /// tombstone ops that sync. False when it had no version in force.
    pub fn delete_procedure(&mut self, tenant: &str, id: &str, now: Millis) -> Result<bool> {
        let user = UserKey::procedures(tenant);
        Scope::procedures(tenant).validate_partition()?;
        let Some(p) = self.partitions.get(&user) else { return Ok(false) };
        let key = procedure_key(id);
        let existed = !current_versions(p, &key).is_empty();
        let mut ids: Vec<String> = p.with_key(&key).iter().filter_map(|&s| p.at(s)).map(|r| r.id.clone()).collect();
        if ids.is_empty() {
            return Ok(false);
        }
        // The procedure's own tombstone: a version older than it, made on a replica that had
        // not seen the delete, arrives later and is still not read (see `current_versions`).
        ids.push(deleted_marker(id));
        let stamp = self.next_stamp(now);
        for id in ids {
            self.write_op(Op { user: user.clone(), stamp, body: OpBody::Delete { id } })?;
        }
        Ok(existed)
    }

    /// The version in force of procedure `id` of `tenant`.
    pub fn get_procedure(&self, tenant: &str, id: &str) -> Result<Procedure> {
        Scope::procedures(tenant).validate_partition()?;
        let p = self.partitions.get(&UserKey::procedures(tenant)).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        winner(p, &current_versions(p, &procedure_key(id))).map_or_else(|| Err(Error::NotFound(id.to_owned())), procedure)
    }

    /// Every version of procedure `id` of `tenant`, oldest first (the audit trail).
    pub fn procedure_history(&self, tenant: &str, id: &str) -> Result<Vec<Procedure>> {
        Scope::procedures(tenant).validate_partition()?;
        let Some(p) = self.partitions.get(&UserKey::procedures(tenant)) else { return Ok(Vec::new()) };
        let mut recs: Vec<&Record> = versions(p, &procedure_key(id)).into_iter().filter_map(|s| p.at(s)).collect();
        crate::sort::sort_by(&mut recs, |a, b| a.created_at.cmp(&b.created_at).then(a.stamp.cmp(&b.stamp)));
        let mut out: Vec<Procedure> = recs.into_iter().map(procedure).collect::<Result<_>>()?;
        // Of concurrent versions in force, only the one read is current.
        let read = self.get_procedure(tenant, id).ok().map(|p| p.version);
        for v in &mut out {
            v.current = read.as_deref() == Some(v.version.as_str());
        }
        Ok(out)
    }

    /// The procedures in force of `tenant`, by id.
    pub fn procedures(&self, tenant: &str) -> Result<Vec<Procedure>> {
        Scope::procedures(tenant).validate_partition()?;
        let Some(p) = self.partitions.get(&UserKey::procedures(tenant)) else { return Ok(Vec::new()) };
        in_force(p).into_iter().filter_map(|s| p.at(s)).map(procedure).collect()
    }

    /// The records of the tenant's procedures to render for `query`, best first: all of
    /// them (by id) when there are at most `limit`, else the `limit` best matches by words
    /// (BM25 over name, "when" and text; ties by id). None match: none rendered.
    pub(crate) fn relevant_procedures(&self, tenant: &str, query: &str, limit: usize) -> Vec<&Record> {
        let Some(p) = self.partitions.get(&UserKey::procedures(tenant)) else { return Vec::new() };
        let slots = in_force(p);
        if slots.len() <= limit {
            return slots.into_iter().filter_map(|s| p.at(s)).collect();
        }
        let scores = p.bm25(Pool::Memories).scores(query);
        let mut hits: Vec<(f32, &Record)> = slots.into_iter().filter_map(|s| Some((scores.get(s)?, p.at(s)?))).filter(|(sc, _)| *sc > 0.0).collect();
        crate::sort::sort_by(&mut hits, |a, b| b.0.total_cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
        hits.into_iter().take(limit).map(|(_, r)| r).collect()
    }
}

/// The line a procedure renders as in the instructions section: its name, when it applies
/// and its text, each quoted (trusted, but still unable to break the block's structure).
pub(crate) fn instruction_line(r: &Record) -> String {
    let (name, when, text) = parts(&r.text);
    if when.is_empty() {
        format!("- {}: {}", quote(name), quote(text))
    } else {
        format!("- {} (when {}): {}", quote(name), quote(when), quote(text))
    }
}

/// What an op on a procedures partition may do: upsert or delete procedure versions, and
/// nothing else — a forged op cannot put a user's memory, a session or a graph there.
pub(crate) fn check_op(body: &OpBody) -> Result<()> {
    match body {
        OpBody::Upsert(r) if r.kind == Kind::Instruction && r.layer == Layer::Procedural && r.source == Source::System && r.id.starts_with("p/") && r.key.as_ref().is_some_and(|k| k.subject == KEY_SUBJECT) => Ok(()),
        OpBody::Delete { id } if id.starts_with("p/") => Ok(()),
        _ => Err(Error::invalid("op", "a procedures partition holds only procedure versions (put_procedure, delete_procedure)")),
    }
}

fn procedure_key(id: &str) -> FactKey {
    // Not `FactKey::new`: ids are kept as given ("Refunds" and "refunds" are two procedures).
    FactKey { subject: KEY_SUBJECT.to_owned(), attribute: id.to_owned() }
}

/// The id whose tombstone says when procedure `id` was deleted.
fn deleted_marker(id: &str) -> String {
    format!("p/{id}")
}

/// The versions of `key` a delete has not removed (those made before the procedure's last
/// delete are out, wherever they were made).
fn versions(p: &Partition, key: &FactKey) -> Vec<u32> {
    let deleted = p.tombstone(&deleted_marker(&key.attribute));
    p.with_key(key).iter().copied().filter(|&s| p.at(s).is_some_and(|r| deleted.is_none_or(|d| r.stamp > d))).collect()
}

fn current_versions(p: &Partition, key: &FactKey) -> Vec<u32> {
    versions(p, key).into_iter().filter(|&s| p.at(s).is_some_and(Record::is_current)).collect()
}

/// Of versions in force, the one read: the newest stamp.
fn winner<'a>(p: &'a Partition, slots: &[u32]) -> Option<&'a Record> {
    slots.iter().filter_map(|&s| p.at(s)).max_by_key(|r| r.stamp)
}

/// The slot read for every procedure of the partition, by procedure id.
fn in_force(p: &Partition) -> Vec<u32> {
    let mut out: Vec<(String, u32)> = p
        .keys()
        .filter(|(k, _)| k.subject == KEY_SUBJECT)
        .filter_map(|(k, _)| {
            let cur = current_versions(p, k);
            let w = winner(p, &cur)?;
            Some((k.attribute.clone(), p.slot_of(&w.id)?))
        })
        .collect();
    crate::sort::sort(&mut out);
    out.into_iter().map(|(_, s)| s).collect()
}

/// Name, "when" and text of a version record's text (the first two are one line each).
fn parts(text: &str) -> (&str, &str, &str) {
    let mut it = text.splitn(3, '\n');
    (it.next().unwrap_or(""), it.next().unwrap_or(""), it.next().unwrap_or(""))
}

fn procedure(r: &Record) -> Result<Procedure> {
    let (name, when, text) = parts(&r.text);
    let id = r.key.as_ref().filter(|k| k.subject == KEY_SUBJECT).map(|k| k.attribute.clone()).ok_or_else(|| Error::Decode { what: "procedure", reason: format!("{} has no procedure key", r.id) })?;
    Ok(Procedure {
        id,
        name: name.to_owned(),
        text: text.to_owned(),
        when: when.to_owned(),
        tags: r.tags.clone(),
        version: r.id.clone(),
        current: r.is_current(),
        created_at: r.created_at,
        updated_at: r.updated_at,
    })
}

#[allow(clippy::too_many_arguments)]
fn version_record(scope: Scope, id: String, key: FactKey, text: String, tags: Vec<String>, stamp: Stamp, created: Millis, now: Millis) -> Record {
    Record { key: Some(key), source: Source::System, tags, created_at: created, sensitivity: Sensitivity::Public, ..Record::fresh(id, scope, Kind::Instruction, text, stamp, now) }
}
