//! What the user sets in their profile, as attributes of the graph's `user` entity
//! (`profile.<field>`, last writer wins per field): so a setting syncs, merges and is
//! forgotten with the user like every other attribute, with no op or codec of its own.
//! Custom rules are one attribute each (`profile.rule/<id>`); an empty value clears.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::hlc::{Millis, Stamp};
use crate::extract::USER_ENTITY;
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

/// One change to the settings: a field and its new value, `None` to clear it. Fields:
/// `name`, `language`, `timezone`, `detail`, `tone`, `retentionDays`, `shareUsage`
/// (`"true"` / `"false"`), `addRule` (its text) and `removeRule` (its id).
pub type ProfileChange = (String, Option<String>);

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
        // Oldest first: an insertion sort (a few rules; no sort routine more in the module).
        for i in 1..rules.len() {
            let mut j = i;
            while j > 0 && (rules[j - 1].0, &rules[j - 1].1.id) > (rules[j].0, &rules[j].1.id) {
                rules.swap(j - 1, j);
                j -= 1;
            }
        }
        s.rules = rules.into_iter().map(|(_, r)| r).collect();
        s
    }

    /// The cut-off of data retention at `now`: memories written before it are removed.
    pub fn retention_cutoff(&self, now: Millis) -> Option<Millis> {
        self.retention_days.map(|d| now.saturating_sub(Millis::from(d) * DAY_MS))
    }
}

/// The attribute and value a change writes, once checked (`""` clears).
fn checked(field: &str, value: Option<&str>, rules: &mut Vec<String>) -> Result<(String, String)> {
    let v = value.map(str::trim).unwrap_or_default();
    let bad = |field: &'static str, what: &str| Err(Error::invalid(field, what.to_owned()));
    let simple = |allowed: &dyn Fn(char) -> bool| v.chars().all(allowed);
    let attr = |f: &str| format!("{ATTR_PREFIX}{f}");
    const CLEARABLE: &[&str] = &["name", "language", "timezone", "detail", "tone", "retentionDays", "shareUsage"];
    if v.is_empty() && CLEARABLE.contains(&field) {
        return Ok((attr(&field.replace("retentionDays", "retention_days").replace("shareUsage", "share_usage")), String::new()));
    }
    match field {
        "name" if v.chars().count() <= 100 && !v.chars().any(char::is_control) => Ok((attr("name"), v.to_owned())),
        "name" => bad("name", "1 to 100 characters, no control characters"),
        // A BCP 47 tag: "en", "zh-CN".
        "language" if v.len() <= 35 && v.split('-').all(|p| (2..=8).contains(&p.len())) && simple(&|c| c.is_ascii_alphanumeric() || c == '-') => Ok((attr("language"), v.to_owned())),
        "language" => bad("language", "a BCP 47 tag such as \"en\" or \"zh-CN\""),
        // An IANA zone ("Europe/Madrid", "UTC") or an offset ("+08:00").
        "timezone" if v.len() <= 64 && !v.split('/').any(str::is_empty) && simple(&|c| c.is_ascii_alphanumeric() || "/_-+:".contains(c)) => Ok((attr("timezone"), v.to_owned())),
        "timezone" => bad("timezone", "an IANA zone such as \"Europe/Madrid\", \"UTC\" or an offset such as \"+08:00\""),
        "detail" if ["brief", "balanced", "detailed"].contains(&v) => Ok((attr("detail"), v.to_owned())),
        "detail" => bad("detail", "brief, balanced or detailed"),
        "tone" if ["casual", "neutral", "formal"].contains(&v) => Ok((attr("tone"), v.to_owned())),
        "tone" => bad("tone", "casual, neutral or formal"),
        "retentionDays" => match v.parse::<u32>() {
            Ok(d) if (1..=MAX_RETENTION_DAYS).contains(&d) => Ok((attr("retention_days"), d.to_string())),
            _ => bad("retentionDays", "1 to 36500 days, or null for no limit"),
        },
        "shareUsage" if v == "true" || v == "false" => Ok((attr("share_usage"), v.to_owned())),
        "shareUsage" => bad("shareUsage", "true or false"),
        "addRule" if !v.is_empty() && v.len() <= MAX_RULE_BYTES && !v.chars().any(|c| c.is_control() && c != '\n') => {
            let id = rule_id(v);
            if !rules.contains(&id) {
                rules.push(id.clone());
            }
            Ok((format!("{RULE_PREFIX}{id}"), v.to_owned()))
        }
        "addRule" => bad("addRules", "a rule is 1 to 500 bytes of text"),
        "removeRule" if rules.iter().any(|r| r == v) => {
            rules.retain(|r| r != v);
            Ok((format!("{RULE_PREFIX}{v}"), String::new()))
        }
        "removeRule" => bad("removeRules", "no rule with this id"),
        _ => bad("profile", "unknown field (name, language, timezone, detail, tone, retentionDays, shareUsage, addRule, removeRule)"),
    }
}

impl Engram {
    /// The scope's user's profile settings.
    pub fn profile_settings(&self, scope: &Scope) -> Result<ProfileSettings> {
        Ok(self.partition(scope)?.map(|p| ProfileSettings::from_graph(p.graph())).unwrap_or_default())
    }

    /// Change the scope's user's profile settings: every change is checked before anything
    /// is written (a bad value changes nothing), then each is one attribute op. Setting a
    /// retention removes at once what is older than it ([`Engram::apply_retention`]).
    /// Returns the settings after the change.
    pub fn update_profile(&mut self, scope: &Scope, changes: &[ProfileChange], now: Millis) -> Result<ProfileSettings> {
        scope.validate()?;
        let mut rules: Vec<String> = self.profile_settings(scope)?.rules.into_iter().map(|r| r.id).collect();
        let writes = changes.iter().map(|(f, v)| checked(f, v.as_deref(), &mut rules)).collect::<Result<Vec<_>>>()?;
        if rules.len() > MAX_RULES {
            return Err(Error::invalid("addRules", format!("at most {MAX_RULES} rules")));
        }
        for (attr, value) in &writes {
            self.set_entity_attribute(scope, &user_entity(), attr, value, now)?;
        }
        if changes.iter().any(|(f, v)| f == "retentionDays" && v.is_some()) {
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
pub(crate) mod tests {
    use super::*;
    use crate::config::Config;
    use crate::model::MemoryInput;

    const T0: Millis = 1_764_000_000_000;

    pub(crate) fn changes(c: &[(&str, Option<&str>)]) -> Vec<ProfileChange> {
        c.iter().map(|(f, v)| ((*f).to_owned(), v.map(str::to_owned))).collect()
    }

    #[test]
    fn settings_are_set_cleared_and_checked_before_anything_is_written() {
        let mut e = Engram::new(Config::default(), 1);
        let s = Scope::user("t", "u");
        let set = changes(&[("timezone", Some("Europe/Madrid")), ("language", Some("es")), ("detail", Some("brief")), ("shareUsage", Some("true")), ("addRule", Some("Always give me metric units"))]);
        let after = e.update_profile(&s, &set, T0).expect("set");
        assert_eq!(after.timezone.as_deref(), Some("Europe/Madrid"));
        assert_eq!(after.rules.len(), 1);
        assert!(after.share_usage);
        let bad = e.update_profile(&s, &changes(&[("language", Some("fr")), ("timezone", Some("nowhere at all"))]), T0 + 1);
        assert!(matches!(bad, Err(Error::InvalidInput { field: "timezone", .. })), "{bad:?}");
        assert_eq!(e.profile_settings(&s).expect("read").language.as_deref(), Some("es"), "a refused update writes nothing");
        let id = after.rules[0].id.clone();
        let cleared = e.update_profile(&s, &changes(&[("timezone", None), ("removeRule", Some(&id))]), T0 + 2).expect("clear");
        assert_eq!(cleared.timezone, None);
        assert!(cleared.rules.is_empty());
        for (f, v) in [("tone", Some("shouty")), ("retentionDays", Some("0")), ("retentionDays", Some("-3")), ("admin", Some("true")), ("admin", None), ("removeRule", Some("nope"))] {
            assert!(e.update_profile(&s, &changes(&[(f, v)]), T0).is_err(), "{f} {v:?}");
        }
        let graph = e.partition(&s).expect("scope").expect("partition").graph();
        assert_eq!(graph.attr_writes().filter(|(_, a, _, _)| a.contains("admin")).count(), 0, "no stray attribute was written");
    }

    #[test]
    fn the_same_rule_added_twice_is_one_rule_and_other_users_are_untouched() {
        let mut e = Engram::new(Config::default(), 1);
        let (a, b) = (Scope::user("t", "a"), Scope::user("t", "b"));
        e.update_profile(&a, &changes(&[("addRule", Some("Always give me metric units"))]), T0).expect("add");
        let s = e.update_profile(&a, &changes(&[("addRule", Some("always give me  metric units"))]), T0 + 1).expect("again");
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
        e.update_profile(&s, &changes(&[("retentionDays", Some("30"))]), T0 + 41 * DAY_MS).expect("retention");
        let texts: Vec<String> = e.list(&s, &Default::default(), T0 + 41 * DAY_MS).expect("list").into_iter().map(|r| r.text).collect();
        assert_eq!(texts, vec!["User lives in Lyon"]);
        let ops = e.take_pending();
        assert!(ops.iter().any(|o| matches!(o.body, crate::store::ops::OpBody::Delete { .. })), "the removal is an op");
        let mut other = Engram::new(Config::default(), 2);
        other.apply_ops(e.state_ops()).expect("apply");
        assert_eq!(other.profile_settings(&s).expect("settings").retention_days, Some(30), "settings travel with the state");
    }
}
