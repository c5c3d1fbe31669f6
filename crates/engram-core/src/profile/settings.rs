//! What the user sets in their profile, as attributes of the graph's `user` entity
//! (`profile.<field>`, last writer wins per field): so a setting syncs, merges and is
//! forgotten with the user like every other attribute, with no op or codec of its own.
//! Custom rules are one attribute each (`profile.rule/<id>`); an empty value clears.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::hlc::{Millis, Stamp};
use crate::knowledge::extract::USER_ENTITY;
use crate::knowledge::graph::{norm, EntityRef, Graph};
use crate::model::Scope;

/// The prefix of every profile attribute of the `user` entity.
pub const ATTR_PREFIX: &str = "profile.";
/// The prefix of a custom rule's attribute (`profile.rule/<id>`).
const RULE_PREFIX: &str = "profile.rule/";
/// At most this many custom rules per user.
pub const MAX_RULES: usize = 50;
/// A custom rule is at most this many bytes.
pub const MAX_RULE_BYTES: usize = 500;
/// Data retention is at most 100 years (and at least one day).
pub const MAX_RETENTION_DAYS: u32 = 36_500;
const DAY_MS: Millis = 86_400_000;

/// The fields a user sets (everything else in a profile is derived from their memories).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSettings {
    pub name: Option<String>,
    /// A BCP 47 tag ("en", "zh-CN").
    pub language: Option<String>,
    /// An IANA zone ("Europe/Madrid"), "UTC", or an offset ("+08:00").
    pub timezone: Option<String>,
    /// How much detail the user wants: `brief`, `balanced` or `detailed`.
    pub detail: Option<String>,
    /// The tone the user wants: `casual`, `neutral` or `formal`.
    pub tone: Option<String>,
    /// Memories older than this many days are removed, here and at the origin.
    pub retention_days: Option<u32>,
    /// Whether the user allows their usage to be shared (off unless they turn it on).
    pub share_usage: bool,
    /// Rules the user asked for through the API ("always give me metric units"), oldest
    /// first. Never taken from what was said in a conversation.
    pub rules: Vec<ProfileRule>,
}

/// One custom rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileRule {
    pub id: String,
    pub text: String,
}

/// A change to the settings: a field absent is left as it is, `Some(None)` (JSON `null`)
/// clears it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileUpdate {
    #[serde(default, with = "nullable")]
    pub name: Option<Option<String>>,
    #[serde(default, with = "nullable")]
    pub language: Option<Option<String>>,
    #[serde(default, with = "nullable")]
    pub timezone: Option<Option<String>>,
    #[serde(default, with = "nullable")]
    pub detail: Option<Option<String>>,
    #[serde(default, with = "nullable")]
    pub tone: Option<Option<String>>,
    #[serde(default, with = "nullable")]
    pub retention_days: Option<Option<u32>>,
    #[serde(default)]
    pub share_usage: Option<bool>,
    /// Rules to add (their text).
    #[serde(default)]
    pub add_rules: Vec<String>,
    /// Rules to remove (their ids).
    #[serde(default)]
    pub remove_rules: Vec<String>,
}

/// `Option<Option<T>>` from JSON: absent → `None`, `null` → `Some(None)`.
mod nullable {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
    pub fn serialize<T: Serialize, S: Serializer>(v: &Option<Option<T>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }
}

fn user_entity() -> EntityRef {
    EntityRef::new(USER_ENTITY, "person")
}

/// A rule's id: the first 12 hex digits of the FNV-1a hash of its normalized words, so
/// the same rule added on two devices is one rule.
pub fn rule_id(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in norm(text).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:012x}", h >> 16)
}

impl ProfileSettings {
    /// The settings held as attributes of the `user` entity of `graph`.
    pub fn from_graph(graph: &Graph) -> Self {
        let mut stamped: BTreeMap<&str, (&str, Stamp)> = BTreeMap::new();
        for (e, attr, value, stamp) in graph.attr_writes() {
            if e.id == norm(USER_ENTITY) && attr.starts_with(ATTR_PREFIX) {
                stamped.insert(attr, (value, stamp));
            }
        }
        Self::from_attrs(stamped.into_iter().map(|(a, (v, s))| (a, v, s)))
    }

    /// The settings from `(attribute, value, stamp)` of the `user` entity (the origin reads
    /// them from its `entities` collection this way).
    pub fn from_attrs<'a>(attrs: impl Iterator<Item = (&'a str, &'a str, Stamp)>) -> Self {
        let mut s = ProfileSettings::default();
        let mut rules: Vec<(Stamp, ProfileRule)> = Vec::new();
        for (attr, value, stamp) in attrs {
            let value = value.trim();
            let set = (!value.is_empty()).then(|| value.to_owned());
            match attr.strip_prefix(ATTR_PREFIX) {
                Some("name") => s.name = set,
                Some("language") => s.language = set,
                Some("timezone") => s.timezone = set,
                Some("detail") => s.detail = set,
                Some("tone") => s.tone = set,
                Some("retention_days") => s.retention_days = value.parse().ok().filter(|d| (1..=MAX_RETENTION_DAYS).contains(d)),
                Some("share_usage") => s.share_usage = value == "true",
                Some(other) => {
                    if let (Some(id), Some(text)) = (other.strip_prefix("rule/"), set) {
                        rules.push((stamp, ProfileRule { id: id.to_owned(), text }));
                    }
                }
                None => {}
            }
        }
        rules.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.id.cmp(&b.1.id)));
        s.rules = rules.into_iter().map(|(_, r)| r).collect();
        s
    }

    /// The cut-off of data retention at `now`: memories written before it are removed.
    pub fn retention_cutoff(&self, now: Millis) -> Option<Millis> {
        self.retention_days.map(|d| now.saturating_sub(Millis::from(d) * DAY_MS))
    }
}

fn one_of(field: &'static str, v: &str, allowed: &[&str]) -> Result<()> {
    if allowed.contains(&v) {
        Ok(())
    } else {
        Err(Error::invalid(field, format!("must be one of {}", allowed.join(", "))))
    }
}

fn check_language(v: &str) -> Result<()> {
    let mut parts = v.split('-');
    let first_ok = parts.next().is_some_and(|p| (2..=3).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphabetic()));
    if first_ok && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric())) {
        Ok(())
    } else {
        Err(Error::invalid("language", "a BCP 47 tag such as \"en\" or \"zh-CN\""))
    }
}

fn check_timezone(v: &str) -> Result<()> {
    let b = v.as_bytes();
    let offset = b.len() == 6
        && matches!(b[0], b'+' | b'-')
        && b[3] == b':'
        && [1, 2, 4, 5].iter().all(|&i| b[i].is_ascii_digit())
        && v[1..3].parse::<u8>().is_ok_and(|h| h <= 14)
        && v[4..6].parse::<u8>().is_ok_and(|m| m < 60);
    let zone = v.len() <= 64
        && v.split('/').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+')))
        && v.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if offset || zone {
        Ok(())
    } else {
        Err(Error::invalid("timezone", "an IANA zone such as \"Europe/Madrid\", \"UTC\" or an offset such as \"+08:00\""))
    }
}

impl Engram {
    /// The scope's user's profile settings.
    pub fn profile_settings(&self, scope: &Scope) -> Result<ProfileSettings> {
        Ok(self.partition(scope)?.map(|p| ProfileSettings::from_graph(p.graph())).unwrap_or_default())
    }

    /// Change the scope's user's profile settings: every field is checked before anything
    /// is written (a bad value changes nothing), then each change is one attribute op.
    /// Setting a retention removes at once what is older than it ([`Engram::apply_retention`]).
    /// Returns the settings after the change.
    pub fn update_profile(&mut self, scope: &Scope, u: &ProfileUpdate, now: Millis) -> Result<ProfileSettings> {
        scope.validate()?;
        let current = self.profile_settings(scope)?;
        let mut writes: Vec<(String, String)> = Vec::new();
        let text = |field: &'static str, v: &Option<Option<String>>, check: &dyn Fn(&str) -> Result<()>| -> Result<Option<(String, String)>> {
            match v {
                None => Ok(None),
                Some(None) => Ok(Some((format!("{ATTR_PREFIX}{field}"), String::new()))),
                Some(Some(s)) => {
                    let s = s.trim();
                    check(s)?;
                    Ok(Some((format!("{ATTR_PREFIX}{field}"), s.to_owned())))
                }
            }
        };
        let name_ok = |s: &str| -> Result<()> {
            if s.is_empty() || s.chars().count() > 100 || s.chars().any(char::is_control) {
                return Err(Error::invalid("name", "1 to 100 characters, no control characters"));
            }
            Ok(())
        };
        writes.extend(text("name", &u.name, &name_ok)?);
        writes.extend(text("language", &u.language, &check_language)?);
        writes.extend(text("timezone", &u.timezone, &check_timezone)?);
        writes.extend(text("detail", &u.detail, &|s| one_of("detail", s, &["brief", "balanced", "detailed"]))?);
        writes.extend(text("tone", &u.tone, &|s| one_of("tone", s, &["casual", "neutral", "formal"]))?);
        match u.retention_days {
            None => {}
            Some(None) => writes.push((format!("{ATTR_PREFIX}retention_days"), String::new())),
            Some(Some(d)) if (1..=MAX_RETENTION_DAYS).contains(&d) => writes.push((format!("{ATTR_PREFIX}retention_days"), d.to_string())),
            Some(Some(_)) => return Err(Error::invalid("retentionDays", format!("1 to {MAX_RETENTION_DAYS} days, or null for no limit"))),
        }
        if let Some(b) = u.share_usage {
            writes.push((format!("{ATTR_PREFIX}share_usage"), b.to_string()));
        }
        let mut ids: Vec<String> = current.rules.iter().map(|r| r.id.clone()).collect();
        for id in &u.remove_rules {
            if !ids.contains(id) {
                return Err(Error::invalid("removeRules", format!("no rule with id {id:?}")));
            }
            ids.retain(|i| i != id);
            writes.push((format!("{RULE_PREFIX}{id}"), String::new()));
        }
        for r in &u.add_rules {
            let r = r.trim();
            if r.is_empty() || r.len() > MAX_RULE_BYTES || r.chars().any(|c| c.is_control() && c != '\n') {
                return Err(Error::invalid("addRules", format!("a rule is 1 to {MAX_RULE_BYTES} bytes of text")));
            }
            let id = rule_id(r);
            if !ids.contains(&id) {
                ids.push(id.clone());
            }
            writes.push((format!("{RULE_PREFIX}{id}"), r.to_owned()));
        }
        if ids.len() > MAX_RULES {
            return Err(Error::invalid("addRules", format!("at most {MAX_RULES} rules")));
        }
        for (attr, value) in writes {
            self.set_entity_attribute(scope, &user_entity(), &attr, &value, now)?;
        }
        if u.retention_days.flatten().is_some() {
            self.apply_retention(scope, now)?;
        }
        self.profile_settings(scope)
    }

    /// Remove the scope's user's memories written before their retention cut-off (each a
    /// delete op, so every replica and the origin remove them too). Documents are kept:
    /// they are removed with `delete_document`. Returns how many were removed.
    pub fn apply_retention(&mut self, scope: &Scope, now: Millis) -> Result<usize> {
        let Some(cutoff) = self.profile_settings(scope)?.retention_cutoff(now) else { return Ok(0) };
        let Some(p) = self.partition(scope)? else { return Ok(0) };
        let old: Vec<String> = p.iter().filter(|(_, r)| r.created_at < cutoff && !r.kind.is_archival()).map(|(_, r)| r.id.clone()).collect();
        for id in &old {
            self.forget(scope, id, now)?;
        }
        Ok(old.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::model::MemoryInput;

    const T0: Millis = 1_764_000_000_000;

    fn update(json: &str) -> ProfileUpdate {
        serde_json::from_str(json).expect("update")
    }

    #[test]
    fn settings_are_set_cleared_and_checked_before_anything_is_written() {
        let mut e = Engram::new(Config::default(), 1);
        let s = Scope::user("t", "u");
        let after = e.update_profile(&s, &update(r#"{"timezone":"Europe/Madrid","language":"es","detail":"brief","shareUsage":true,"addRules":["Always give me metric units"]}"#), T0).expect("set");
        assert_eq!(after.timezone.as_deref(), Some("Europe/Madrid"));
        assert_eq!(after.rules.len(), 1);
        assert!(after.share_usage);
        let bad = e.update_profile(&s, &update(r#"{"timezone":"nowhere at all","language":"fr"}"#), T0 + 1);
        assert!(matches!(bad, Err(Error::InvalidInput { .. })), "{bad:?}");
        assert_eq!(e.profile_settings(&s).expect("read").language.as_deref(), Some("es"), "a refused update writes nothing");
        let id = after.rules[0].id.clone();
        let cleared = e.update_profile(&s, &update(&format!(r#"{{"timezone":null,"removeRules":["{id}"]}}"#)), T0 + 2).expect("clear");
        assert_eq!(cleared.timezone, None);
        assert!(cleared.rules.is_empty());
        assert!(e.update_profile(&s, &update(r#"{"tone":"shouty"}"#), T0).is_err());
        assert!(e.update_profile(&s, &update(r#"{"retentionDays":0}"#), T0).is_err());
        assert!(serde_json::from_str::<ProfileUpdate>(r#"{"admin":true}"#).is_err(), "an unknown field is refused");
    }

    #[test]
    fn the_same_rule_added_twice_is_one_rule_and_other_users_are_untouched() {
        let mut e = Engram::new(Config::default(), 1);
        let (a, b) = (Scope::user("t", "a"), Scope::user("t", "b"));
        e.update_profile(&a, &update(r#"{"addRules":["Always give me metric units"]}"#), T0).expect("add");
        let s = e.update_profile(&a, &update(r#"{"addRules":["always give me  metric units"]}"#), T0 + 1).expect("again");
        assert_eq!(s.rules.len(), 1);
        assert_eq!(e.profile_settings(&b).expect("b"), ProfileSettings::default());
    }

    #[test]
    fn a_retention_removes_older_memories_as_ops_that_sync() {
        let mut e = Engram::new(Config::default(), 1);
        let s = Scope::user("t", "u");
        e.remember(&s, MemoryInput::fact("User has a cat"), T0).expect("old");
        e.remember(&s, MemoryInput::fact("User lives in Lyon"), T0 + 40 * DAY_MS).expect("new");
        e.take_pending();
        e.update_profile(&s, &update(r#"{"retentionDays":30}"#), T0 + 41 * DAY_MS).expect("retention");
        let texts: Vec<String> = e.list(&s, &Default::default(), T0 + 41 * DAY_MS).expect("list").into_iter().map(|r| r.text).collect();
        assert_eq!(texts, vec!["User lives in Lyon"]);
        let ops = e.take_pending();
        assert!(ops.iter().any(|o| matches!(o.body, crate::store::ops::OpBody::Delete { .. })), "the removal is an op");
        let mut other = Engram::new(Config::default(), 2);
        other.apply_ops(e.state_ops()).expect("apply");
        assert_eq!(other.profile_settings(&s).expect("settings").retention_days, Some(30), "settings travel with the state");
    }
}
