//! The rules: one pattern per statement type, English and Chinese. Each produces a fact
//! with a kind, a key, confidence and importance (the tiers of seed 002: ≥ 0.8 identity,
//! decisions and preferences; 0.5–0.7 task details).

use std::sync::OnceLock;

use regex_lite::{Captures, Regex};

use crate::text::lexicon::{category_of, is_people_or_faith};
use crate::extract::Extracted;
use crate::model::{FactKey, Kind};

pub(crate) struct Rule {
    pub re: Regex,
    pub build: fn(&Captures<'_>) -> Vec<Extracted>,
}

/// A rule of `pattern` and its builder (see [`pattern`]).
#[inline(never)]
pub(crate) fn rule(s: &str, build: fn(&Captures<'_>) -> Vec<Extracted>) -> Rule {
    Rule { re: crate::statements::pattern(s), build }
}

pub(crate) fn clean(s: &str) -> String {
    s.trim().trim_end_matches(['.', '!', ',', '。', '！', '，', '、', ';', '；']).trim().to_owned()
}

pub(crate) fn fact(kind: Kind, text: String, attribute: &str, importance: f32, confidence: f32) -> Extracted {
    let tags = category_of_key(attribute).map(|c| vec![format!("category:{c}")]).unwrap_or_default();
    Extracted { kind, text, key: Some(FactKey::new("user", attribute)), importance, confidence, tags, link: None }
}

/// The category of the user's fact a keyed rule writes, by its key's attribute: the same
/// categories `en.rs` gives the other self-facts (the chat app's panel groups by them).
fn category_of_key(attribute: &str) -> Option<&'static str> {
    let a = attribute.to_lowercase();
    Some(match a.split([' ', '_']).next().unwrap_or("") {
        "name" => "identity",
        "occupation" | "employer" => "work",
        "location" => "place",
        "skill" | "uses" => "habit",
        "preferred" | "opinion" | "response" => "preference",
        _ => return None,
    })
}

pub(crate) fn untagged(kind: Kind, text: String, importance: f32, confidence: f32) -> Extracted {
    Extracted { kind, text, key: None, importance, confidence, tags: Vec::new(), link: None }
}

pub(crate) fn zh(s: &str) -> bool {
    s.chars().any(crate::index::lexical::terms::is_cjk)
}

/// "User works as a nurse" (key `occupation`, `user —works_as→ nurse`), with the article
/// the user said.
fn role(article: &str, role: &str) -> Extracted {
    let role = clean(role);
    let article = article.trim().to_lowercase();
    // "a retired teacher", "a former nurse": what the user was, not where they work now.
    let was = ["retired ", "former ", "ex-"].iter().any(|w| role.to_lowercase().starts_with(w));
    let verb = if was { "is" } else { "works as" };
    let text = if article.is_empty() { format!("User {verb} {role}") } else { format!("User {verb} {article} {role}") };
    fact(Kind::Fact, text, "occupation", 0.9, 0.85).linked("works_as", &role, "role")
}

fn employer(name: &str) -> Extracted {
    fact(Kind::Fact, format!("User works at {}", clean(name)), "employer", 0.9, 0.85).linked("works_at", name, "organization")
}

/// A preference (or dislike) of `thing`, keyed by its category when known.
pub(crate) fn preference(thing: &str, likes: bool, chinese: bool) -> Extracted {
    let thing = clean(thing);
    let (text, attr) = match (category_of(&thing), likes) {
        (Some(cat), true) => (
            if chinese { format!("用户偏好{thing}") } else { format!("User prefers {thing}") },
            format!("preferred {cat}"),
        ),
        (_, _) => (
            match (chinese, likes) {
                (true, true) => format!("用户喜欢{thing}"),
                (true, false) => format!("用户不喜欢{thing}"),
                (false, true) => format!("User likes {thing}"),
                (false, false) => format!("User dislikes {thing}"),
            },
            format!("opinion of {}", thing.to_lowercase()),
        ),
    };
    let rel = match (likes, category_of(&thing)) {
        (true, Some(_)) => "prefers",
        (true, None) => "likes",
        (false, _) => "dislikes",
    };
    let kind = category_of(&thing).unwrap_or("thing");
    fact(Kind::Preference, text, &attr, 0.85, 0.85).linked(rel, &thing, kind)
}

/// True for an object that only points back ("it", "those things too"): what it names is
/// in another turn, so nothing is kept from it.
pub(crate) fn is_pronoun(object: &str) -> bool {
    const POINTERS: &[&str] = &["it", "that", "this", "them", "those", "these", "him", "her", "his", "hers", "they", "there", "one", "ones", "things", "stuff", "too", "either", "all", "both", "so", "much", "a", "lot", "the", "also"];
    object.to_lowercase().split_whitespace().all(|w| POINTERS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
}


const NOT_NAMES: &[&str] = &[
    "tired", "fine", "good", "ok", "okay", "sure", "sorry", "back", "here", "done", "ready", "busy", "new", "not", "a", "an",
    "the", "just", "so", "very", "working", "going", "trying", "looking", "happy", "sad", "glad", "afraid", "learning", "vegan",
    "vegetarian",
];

pub(crate) fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        let r = rule;
        vec![
            // ---- identity ----
            // Case-sensitive on purpose: names are capitalized ("my name is Dana Scully and …").
            r(r"\b(?:[Mm]y name is|[Cc]all me|I am called)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})", |c| {
                vec![fact(Kind::Fact, format!("User's name is {}", clean(&c[1])), "name", 0.9, 0.9)]
            }),
            r(r"\b[Ii]'?m\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?:[,.!]|\s+(?:and|btw|by the way|here)\b|$)", |c| {
                let name = clean(&c[1]);
                if NOT_NAMES.contains(&name.to_lowercase().as_str()) || name.split_whitespace().any(|w| is_people_or_faith(&w.to_lowercase())) {
                    return Vec::new();
                }
                vec![fact(Kind::Fact, format!("User's name is {name}"), "name", 0.9, 0.75)]
            }),
            r(r"(?i)\b(?:i work as|i'?m working as|my job is|my role is|i am employed as)\s+(an?\s+)?([a-z][a-z /+-]{2,40}?)(?:\s+at\s+|\s+for\s+|[,.!]|$)", |c| {
                // "My job is in accounting" names a field, not a role: `en.rs` keeps it as said.
                if ["in ", "at ", "to ", "so ", "very ", "really ", "hard", "fun", "great", "boring", "stressful"].iter().any(|w| c[2].to_lowercase().starts_with(w)) {
                    return Vec::new();
                }
                vec![role(c.get(1).map_or("", |a| a.as_str()), &c[2])]
            }),
            // The role after the employer ("I work at Acme as a nurse"): the employer rule
            // reads the clause, so the role is read here or lost.
            r(r"(?i)\bi (?:work|am working|'m working)\s+(?:at|for)\s+[^,.!?]{1,40}?\s+as\s+(an?\s+)?([a-z][a-z /+-]{2,40}?)(?:\s+(?:and|but|since|for)\b|[,.!]|$)", |c| {
                vec![role(c.get(1).map_or("", |a| a.as_str()), &c[2])]
            }),
            // "I'm a software engineer at Spotify": the role, and the employer after it.
            r(r"(?i)\bI'?m (an?\s+)((?:senior |junior |lead |staff |principal )?[a-z-]+ (?:engineer|developer|designer|scientist|manager|researcher|analyst|teacher|doctor|nurse|lawyer|writer|architect|consultant))\b(?:\s+(?:at|for)\s+(?:the\s+)?((?-i:[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})))?", |c| {
                let mut out = vec![role(&c[1], &c[2])];
                out.extend(c.get(3).map(|m| employer(m.as_str())));
                out
            }),
            r(r"\b[Ii](?: work|'m working| am working|'m employed| am employed)\b[^.!?]{0,40}?\b(?:at|for|by)\s+(?:the\s+)?([A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})", |c| {
                vec![employer(&c[1])]
            }),
            r(r"\b[Ii](?: live in| am based in|'m based in| moved to| relocated to| have moved to|'ve moved to)\s+([A-Z][\w'-]*(?:[ ,]+[A-Z][\w'-]*){0,2})", |c| {
                vec![fact(Kind::Fact, format!("User lives in {}", clean(&c[1])), "location", 0.85, 0.85).linked("lives_in", &c[1], "place")]
            }),
            r(r"(?i)\bi(?:'m| am) (?:good at|skilled in|proficient in|fluent in|an expert in)\s+([\w#+ .-]{2,40}?)(?:[,.!]|$)", |c| {
                let s = clean(&c[1]);
                vec![fact(Kind::Fact, format!("User is skilled in {s}"), &format!("skill {}", s.to_lowercase()), 0.8, 0.8).linked("skilled_in", &s, "skill")]
            }),
            // ---- preferences ----
            r(r"(?i)\bi (?:switched|moved|migrated|changed) from\s+([\w#+. -]{1,30}?)\s+to\s+([\w#+.-]{1,30})", |c| {
                vec![preference(&c[2], true, false)]
            }),
            r(r"(?i)\bi (?:really |much |strongly )?(prefer|love|like|enjoy)\s+([\w#+. -]{1,30}?)(?:\s+(over|to|more than)\s+([\w#+.-]{1,30}))?(?:[,.!]|\s+(?:and|but|for|because)\b|$)", |c| {
                // A thing of a known category ("I prefer Rust") or a comparison is keyed here;
                // any other liking is a self-fact of its own (`en.rs`). "Prefer X to Y" compares;
                // "like to go to concerts" does not, and an activity ("to go", "going") is not
                // a thing of a category: "go" the language is "Go".
                let thing = clean(&c[2]);
                let compares = c.get(3).is_some_and(|w| !w.as_str().eq_ignore_ascii_case("to") || c[1].eq_ignore_ascii_case("prefer"));
                let activity = thing.to_lowercase().starts_with("to ") || thing.split_whitespace().next().is_some_and(|w| w.to_lowercase().ends_with("ing"));
                if activity || (category_of(&thing).is_none() || thing == "go") && !compares {
                    return Vec::new();
                }
                let mut out = vec![preference(&thing, true, false)];
                if let Some(other) = c.get(4).filter(|_| compares) {
                    out.push(preference(other.as_str(), false, false));
                }
                out
            }),
            r(r"(?i)\bi (?:don'?t like|do not like|dislike|hate|can'?t stand|avoid)\s+([\w#+. -]{1,30}?)(?:[,.!]|\s+(?:and|but|because)\b|$)", |c| {
                if is_pronoun(&c[1]) {
                    return Vec::new();
                }
                vec![preference(&c[1], false, false)]
            }),
            // ---- how the user wants answers (the profile's response preferences) ----
            r(r"(?i)\b(?:i (?:prefer|like|want|need)|give me|please give me|keep (?:it|them|your (?:answers|replies|responses)))\s+(?:(?:it|them|answers|replies|responses)\s+)?(?:a bit |more |really |very )?(short|brief|concise|detailed|in-depth|thorough)(?:\s+(?:answers|replies|responses|explanations))?\b", |c| {
                // In the user's word ("short answers"); the profile reads it as `brief` or `detailed`.
                vec![fact(Kind::Preference, format!("User prefers {} answers", c[1].to_lowercase()), "response detail", 0.8, 0.8)]
            }),
            r(r"(?i)\b(?:i (?:prefer|like|want)\s+(?:a\s+)?(?:more\s+)?(formal|casual|informal|friendly)\s+(?:tone|style|language)|(?:please\s+)?(?:be|talk|speak|write)\s+(?:more\s+)?(formal|casual|informal)(?:ly)?\s+(?:with|to) me)", |c| {
                let said = c.get(1).or(c.get(2)).map_or("", |m| m.as_str()).to_lowercase();
                let a = if said.starts_with('i') { "an" } else { "a" };
                vec![fact(Kind::Preference, format!("User prefers {a} {said} tone"), "response tone", 0.8, 0.8)]
            }),
            // ---- tools in use ----
            r(r"\b[Ii](?:'m| am)? (?:using|use)\s+([A-Z][\w.+-]{1,20})\s+(?:for|to)\s+([\w -]{3,40}?)(?:[,.!]|$)", |c| {
                let tool = clean(&c[1]);
                vec![fact(Kind::Fact, format!("User uses {tool} for {}", clean(&c[2])), &format!("uses {}", tool.to_lowercase()), 0.7, 0.8).linked("uses", &tool, "tool")]
            }),
            // ---- decisions ----
            r(r"(?i)\b(?:i|we) (?:have )?decided (?:to|that|on)\s+(.{3,120}?)(?:[.!]|$)", |c| {
                vec![untagged(Kind::Event, format!("User decided to {}", clean(&c[1])), 0.85, 0.85)]
            }),
            r(r"(?i)\blet'?s go with\s+(.{2,80}?)(?:[.!]|$)", |c| vec![untagged(Kind::Event, format!("User decided to go with {}", clean(&c[1])), 0.85, 0.8)]),
            // ---- corrections of the assistant ----
            r(r"(?i)^\s*(?:no|nope|that'?s (?:not right|wrong|incorrect)|actually|correction)[,:!.]?\s+(.{3,160}?)\s*$", |c| {
                // "No, the deadline is Friday" corrects; "No, I just play for fun" and "No, not
                // really" answer a question: what a first-person answer states is read as any
                // other clause, and an answer that states nothing is not kept.
                let said = c[1].trim_start().to_lowercase();
                let answers = ["i ", "i'm", "i've", "i'd", "i'll", "my ", "me ", "not", "really", "yet", "thanks", "thank", "never", "nothing", "none"];
                if answers.iter().any(|a| said.starts_with(a)) || said.split_whitespace().count() < 3 {
                    return Vec::new();
                }
                // A correction that only takes back ("no no, the trip isn't mine", "scratch
                // that, it was a typo", "that date was made up") states nothing to keep.
                if crate::statements::refusal::only_takes_back(&said) {
                    return Vec::new();
                }
                // A bare "no" corrects a statement ("No the deadline is Friday"), not a noun:
                // "no dairy pls" asks for something.
                let bare_no = c[0].trim_start().to_lowercase().strip_prefix("no ").is_some();
                let subjects = ["the ", "it", "that", "this", "its", "we ", "he ", "she ", "they ", "you "];
                if bare_no && !subjects.iter().any(|w| said.starts_with(w)) {
                    return Vec::new();
                }
                let mut e = untagged(Kind::Fact, format!("Correction from the user: {}", clean(&c[1])), 0.8, 0.9);
                e.tags.push("correction".into());
                vec![e]
            }),
            // ---- task progress ----
            r(r"(?i)\bi(?:'ve| have)? (?:finished|completed|done with|shipped|wrapped up)\s+(.{3,80}?)(?:[.!]|$)", |c| {
                vec![untagged(Kind::Task, format!("User finished {}", clean(&c[1])), 0.6, 0.85).linked("finished", &c[1], "task")]
            }),
            r(r"(?i)\b(?:i'?m|i am) (?:working on|in the middle of|halfway through)\s+(.{3,80}?)(?:[.!]|$)", |c| {
                vec![untagged(Kind::Task, format!("User is working on {}", clean(&c[1])), 0.6, 0.8).linked("works_on", &c[1], "task")]
            }),
            r(r"(?i)\b(?:next|tomorrow) i(?:'ll| will| plan to| am going to)\s+(.{3,80}?)(?:[.!]|$)", |c| {
                vec![untagged(Kind::Task, format!("User plans to {}", clean(&c[1])), 0.55, 0.75)]
            }),
        ]
    })
}
