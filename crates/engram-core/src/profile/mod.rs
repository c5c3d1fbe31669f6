//! The user profile (seed 000's `user_profiles`): one per user, derived from their
//! memories whenever it is asked for, so it is always current — basic info, behaviour
//! patterns (frequent topics, response preferences, how often they come back), the
//! knowledge base (learned facts, the rules they asked for) and privacy settings. What
//! the user sets is in [`settings`]; everything else is read from the partition.

pub mod session;
pub mod settings;

use serde::{Deserialize, Serialize};

use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::extract::USER_ENTITY;
use crate::knowledge::graph::norm;
use crate::model::{Kind, Record, Scope, Source};
use crate::index::vector::top_k_by_score;
use crate::store::partition::Partition;
pub use session::SessionMetadata;
pub use settings::{ProfileChange, ProfileRule, ProfileSettings};

pub use crate::store::partition::PROFILE_IMPORTANCE;
/// How many topics a profile names.
const TOPICS: usize = 8;
const DAY_MS: Millis = 86_400_000;

/// A user's profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub basic: BasicInfo,
    pub behaviour: Behaviour,
    pub knowledge: KnowledgeBase,
    pub privacy: Privacy,
}

/// Who the user is. Each value says where it came from: `set` (through the API) or
/// `stated` / `observed` (read from their memories).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BasicInfo {
    pub name: Option<Valued>,
    pub language: Option<Valued>,
    pub timezone: Option<Valued>,
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Valued {
    pub value: String,
    /// `set`, `stated` or `observed`.
    pub from: String,
}

impl Valued {
    fn new(value: impl Into<String>, from: &str) -> Self {
        Valued { value: value.into(), from: from.to_owned() }
    }
}

/// How the user uses the memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Behaviour {
    /// What they talk about most: the words of their turns and facts held by most of them.
    pub topics: Vec<Topic>,
    /// `brief`, `balanced` or `detailed`.
    pub detail: Option<Valued>,
    /// `casual`, `neutral` or `formal`.
    pub tone: Option<Valued>,
    pub visits: Visits,
}

/// One frequent topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Topic {
    pub name: String,
    pub mentions: u32,
}

/// How often the user comes back, from their turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Visits {
    pub sessions: u32,
    /// Distinct days (UTC) with a turn of theirs.
    pub active_days: u32,
    pub first_seen: Option<Millis>,
    pub last_seen: Option<Millis>,
    /// Mean days between the starts of consecutive sessions (none with fewer than two).
    pub mean_days_between: Option<f64>,
}

/// What is known about the user.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBase {
    /// The current facts and preferences that describe them, most important first.
    pub facts: Vec<ProfileFact>,
    /// Rules they asked for through the API, oldest first.
    pub rules: Vec<ProfileRule>,
}

/// One fact of the profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileFact {
    pub id: String,
    pub text: String,
    pub kind: Kind,
    /// `subject/attribute` of its key, when it has one.
    pub key: Option<String>,
    pub importance: f32,
    pub updated_at: Millis,
}

/// Privacy settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Privacy {
    pub retention_days: Option<u32>,
    pub share_usage: bool,
}

/// The current records of `p` that describe the user, most important first: the newest
/// value of every fact key and each unkeyed fact at least [`PROFILE_IMPORTANCE`], of kind
/// fact or preference, not waiting for review; health facts first.
pub(crate) fn profile_records(p: &Partition, now: Millis) -> Vec<&Record> {
    // Health first (allergies, diet: what a helper must never forget, whatever is asked),
    // then by importance, the newest (highest slot) first among equals. Ranked through the
    // vector index's top-k (one sort routine in the module, not one more).
    let mut ranked: Vec<(u32, f32)> = p
        .slots_where(|m| m.live(now) && m.describes_user)
        .filter_map(|s| p.at(s).map(|r| (s, r)))
        .map(|(s, r)| (u32::MAX - s, r.importance + if r.tags.iter().any(|t| t == "category:health") { 1.0 } else { 0.0 }))
        .collect();
    let n = ranked.len();
    top_k_by_score(&mut ranked, n);
    ranked.into_iter().filter_map(|(s, _)| p.at(u32::MAX - s)).collect()
}

/// The name a fact keyed `user/name` states ("User's name is Ana" → "Ana", "用户叫李明" →
/// "李明"; the origin reads its profile's name this way too).
pub fn stated_name(text: &str) -> Option<String> {
    let t = text.trim();
    let v = t.strip_prefix("User's name is ").or_else(|| t.strip_prefix("用户叫")).or_else(|| t.strip_prefix("用户的名字是"))?;
    let v = v.trim().trim_end_matches(['.', '。']);
    (!v.is_empty()).then(|| v.to_owned())
}

/// A response preference the user stated, from a fact keyed `user/response_detail` or
/// `user/response_tone`: the value of the first of `words` (a word said, the value it
/// means) its text holds.
fn stated(records: &[&Record], attribute: &str, words: &[(&str, &'static str)]) -> Option<Valued> {
    let r = records.iter().find(|r| r.key.as_ref().is_some_and(|k| k.subject == "user" && k.attribute == attribute))?;
    let lower = r.text.to_lowercase();
    words.iter().find(|(w, _)| lower.contains(*w)).map(|(_, v)| Valued::new(*v, "stated"))
}

fn visits(p: &Partition) -> Visits {
    let mut sessions: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let mut days: Vec<Millis> = Vec::new();
    let (mut first, mut last): (Option<Millis>, Option<Millis>) = (None, None);
    let (mut first_start, mut last_start): (Option<Millis>, Option<Millis>) = (None, None);
    for (_, r) in p.iter().filter(|(_, r)| r.kind == Kind::Message && r.source == Source::User) {
        let at = r.created_at;
        first = Some(first.map_or(at, |f| f.min(at)));
        last = Some(last.map_or(at, |l| l.max(at)));
        let day = at.div_euclid(DAY_MS);
        if !days.contains(&day) {
            days.push(day);
        }
        if let Some(s) = &r.scope.session {
            if sessions.insert(s.as_str()) {
                // A session's first turn is its start (turns are stored in the order said).
                first_start = Some(first_start.map_or(at, |f| f.min(at)));
                last_start = Some(last_start.map_or(at, |l| l.max(at)));
            }
        }
    }
    // The mean of the gaps between consecutive starts is the span of the starts over
    // their number less one.
    let n = sessions.len();
    let mean = match (first_start, last_start) {
        (Some(a), Some(b)) if n >= 2 => Some((b - a) as f64 / DAY_MS as f64 / (n - 1) as f64),
        _ => None,
    };
    Visits { sessions: n as u32, active_days: days.len() as u32, first_seen: first, last_seen: last, mean_days_between: mean }
}

/// The user's language as their own turns are written: `zh` when most hold Chinese, else
/// `en`; none without turns.
fn observed_language(p: &Partition) -> Option<Valued> {
    let (mut zh, mut all) = (0usize, 0usize);
    for (_, r) in p.iter().filter(|(_, r)| r.kind == Kind::Message && r.source == Source::User) {
        all += 1;
        zh += usize::from(r.text.chars().any(crate::index::lexical::terms::is_cjk));
    }
    (all > 0).then(|| Valued::new(if zh * 2 > all { "zh" } else { "en" }, "observed"))
}

/// Words of conversation that name no topic (beside the index's stop words).
const NOT_TOPICS: &[&str] = &[
    "like", "love", "really", "think", "know", "good", "great", "well", "much", "very", "lot", "also", "too", "yeah", "yes",
    "sure", "going", "want", "would", "could", "should", "will", "time", "thing", "things", "something", "anything", "make",
    "made", "get", "got", "getting", "go", "went", "see", "say", "said", "tell", "told", "nice", "cool", "fun", "enjoy",
    "user", "i'm", "i've", "i'd", "i'll", "don't", "didn't", "that's", "it's", "what", "there", "here", "then", "than",
    "when", "where", "which", "who", "how", "why", "about", "always", "never", "often", "sometimes", "usually", "still",
    "right", "kind", "sort", "way", "day", "today", "now", "back", "maybe", "actually", "pretty", "awesome", "amazing",
    "interesting", "wow", "hey", "hello", "thanks", "thank", "please", "sounds", "sound", "prefer", "prefers", "loves", "likes",
    "enjoys", "does", "doing", "done", "have", "having", "been", "being", "were", "was", "are", "is", "one", "two", "new", "again", "name", "called", "just", "some", "more", "most", "other", "every",
];
/// Characters of Chinese that make a two-character term grammar, not a topic.
const NOT_TOPIC_ZH: &str = "我你他她它的是了有在很不也都就和吗呢吧啊这那个们么什要会";

/// What the user talks about most: each word of their turns (at least four letters, or
/// a Chinese pair of content characters) by how many turns hold it, at least two; the
/// words of their graph's entities count one more per relation. Facts count only where
/// there are no turns (a store written through `remember`): a fact taken from a turn
/// would count that turn's words twice.
fn topics(p: &Partition, now: Millis) -> Vec<Topic> {
    let mut count: std::collections::BTreeMap<String, u32> = std::collections::BTreeMap::new();
    let user_turn = |r: &Record| r.kind == Kind::Message && r.source == Source::User;
    let live: Vec<&Record> = p
        .slots_where(|m| m.live(now) && !m.from_model && matches!(m.kind, Kind::Message | Kind::Fact | Kind::Preference | Kind::Event))
        .filter_map(|s| p.at(s))
        .filter(|r| r.kind != Kind::Message || r.source == Source::User)
        .collect();
    let turns = live.iter().any(|r| user_turn(r));
    for r in live.into_iter().filter(|r| user_turn(r) == turns) {
        let mut seen: Vec<String> = Vec::new();
        for t in crate::index::lexical::terms::terms(&r.text) {
            let cjk = t.chars().any(crate::index::lexical::terms::is_cjk);
            let keep = if cjk { t.chars().count() == 2 && !t.chars().any(|c| NOT_TOPIC_ZH.contains(c)) } else { t.chars().count() >= 4 && t.chars().all(char::is_alphabetic) && !NOT_TOPICS.contains(&t.as_str()) };
            if keep && !seen.contains(&t) {
                *count.entry(t.clone()).or_insert(0) += 1;
                seen.push(t);
            }
        }
    }
    let g = p.graph();
    for (k, _) in g.out(&norm(USER_ENTITY), None).filter(|(_, s)| s.present) {
        if let Some(e) = g.entity(&k.to) {
            for w in crate::index::lexical::terms::terms(&e.name) {
                if let Some(c) = count.get_mut(&w) {
                    *c += 1;
                }
            }
        }
    }
    // Most mentions first, then by name (the map's order).
    let words: Vec<(String, u32)> = count.into_iter().filter(|(_, n)| *n >= 2).collect();
    let mut ranked: Vec<(u32, f32)> = words.iter().enumerate().map(|(i, (_, n))| (i as u32, *n as f32)).collect();
    top_k_by_score(&mut ranked, TOPICS);
    ranked.into_iter().map(|(i, _)| Topic { name: words[i as usize].0.clone(), mentions: words[i as usize].1 }).collect()
}

impl Engram {
    /// The scope's user's profile at `now`, with at most `fact_limit` facts.
    pub fn profile(&self, scope: &Scope, fact_limit: usize, now: Millis) -> Result<Profile> {
        let settings = self.profile_settings(scope)?;
        let Some(p) = self.partition(scope)? else {
            return Ok(Profile::from_settings(settings, Vec::new()));
        };
        let records = profile_records(p, now);
        let mut profile = Profile::from_settings(settings, Vec::new());
        let b = &mut profile.basic;
        if b.name.is_none() {
            b.name = records.iter().filter(|r| r.key.as_ref().is_some_and(|k| k.attribute == "name")).find_map(|r| stated_name(&r.text)).map(|n| Valued::new(n, "stated"));
        }
        if b.language.is_none() {
            b.language = observed_language(p);
        }
        let h = &mut profile.behaviour;
        if h.detail.is_none() {
            const DETAIL: &[(&str, &str)] = &[("short", "brief"), ("brief", "brief"), ("concise", "brief"), ("detailed", "detailed"), ("in-depth", "detailed"), ("thorough", "detailed")];
            h.detail = stated(&records, "response_detail", DETAIL);
        }
        if h.tone.is_none() {
            const TONE: &[(&str, &str)] = &[("informal", "casual"), ("formal", "formal"), ("casual", "casual"), ("friendly", "casual")];
            h.tone = stated(&records, "response_tone", TONE);
        }
        h.topics = topics(p, now);
        h.visits = visits(p);
        profile.knowledge.facts = records
            .into_iter()
            .take(fact_limit)
            .map(|r| ProfileFact {
                id: r.id.clone(),
                text: r.text.clone(),
                kind: r.kind,
                key: r.key.as_ref().map(|k| format!("{}/{}", k.subject, k.attribute)),
                importance: r.importance,
                updated_at: r.updated_at,
            })
            .collect();
        Ok(profile)
    }
}

impl Profile {
    fn from_settings(s: ProfileSettings, facts: Vec<ProfileFact>) -> Self {
        let set = |v: Option<String>| v.map(|v| Valued::new(v, "set"));
        Profile {
            basic: BasicInfo { name: set(s.name), language: set(s.language), timezone: set(s.timezone) },
            behaviour: Behaviour { detail: set(s.detail), tone: set(s.tone), ..Behaviour::default() },
            knowledge: KnowledgeBase { facts, rules: s.rules },
            privacy: Privacy { retention_days: s.retention_days, share_usage: s.share_usage },
        }
    }
}

#[cfg(test)]
mod tests;
