//! The rules: one pattern per statement type, English and Chinese. Each produces a fact
//! with a kind, a key, confidence and importance (the tiers of seed 002: ≥ 0.8 identity,
//! decisions and preferences; 0.5–0.7 task details).

use std::sync::OnceLock;

use regex_lite::{Captures, Regex};

use crate::knowledge::extract::lexicon::category_of;
use crate::knowledge::extract::Extracted;
use crate::model::{FactKey, Kind};

pub(crate) struct Rule {
    pub re: Regex,
    pub build: fn(&Captures<'_>) -> Vec<Extracted>,
}

pub(crate) fn clean(s: &str) -> String {
    s.trim().trim_end_matches(['.', '!', ',', '。', '！', '，', '、', ';', '；']).trim().to_owned()
}

fn fact(kind: Kind, text: String, attribute: &str, importance: f32, confidence: f32) -> Extracted {
    Extracted { kind, text, key: Some(FactKey::new("user", attribute)), importance, confidence, tags: Vec::new(), link: None }
}

fn untagged(kind: Kind, text: String, importance: f32, confidence: f32) -> Extracted {
    Extracted { kind, text, key: None, importance, confidence, tags: Vec::new(), link: None }
}

fn zh(s: &str) -> bool {
    s.chars().any(crate::index::lexical::terms::is_cjk)
}

/// A preference (or dislike) of `thing`, keyed by its category when known.
fn preference(thing: &str, likes: bool, chinese: bool) -> Extracted {
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

const NOT_NAMES: &[&str] = &[
    "tired", "fine", "good", "ok", "okay", "sure", "sorry", "back", "here", "done", "ready", "busy", "new", "not", "a", "an",
    "the", "just", "so", "very", "working", "going", "trying", "looking", "happy", "sad", "glad", "afraid", "learning",
];

pub(crate) fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        let r = |pattern: &str, build: fn(&Captures<'_>) -> Vec<Extracted>| Rule {
            re: Regex::new(pattern).unwrap_or_else(|e| unreachable!("extraction pattern {pattern}: {e}")),
            build,
        };
        vec![
            // ---- identity ----
            // Case-sensitive on purpose: names are capitalized ("my name is Dana Scully and …").
            r(r"\b(?:[Mm]y name is|[Cc]all me|I am called)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})", |c| {
                vec![fact(Kind::Fact, format!("User's name is {}", clean(&c[1])), "name", 0.9, 0.9)]
            }),
            r(r"\bI'?m\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?:[,.!]|\s+and\b|$)", |c| {
                let name = clean(&c[1]);
                if NOT_NAMES.contains(&name.to_lowercase().as_str()) {
                    return Vec::new();
                }
                vec![fact(Kind::Fact, format!("User's name is {name}"), "name", 0.9, 0.75)]
            }),
            r(r"(?:我叫|我的名字是|我的名字叫)([^，。,.!！？?\s在是的，]{1,8})", |c| {
                vec![fact(Kind::Fact, format!("用户叫{}", clean(&c[1])), "name", 0.9, 0.9)]
            }),
            r(r"(?i)\b(?:i work as|i'?m working as|my job is|my role is|i am employed as)\s+(?:an?\s+)?([a-z][a-z /+-]{2,40}?)(?:\s+at\s+|\s+for\s+|[,.!]|$)", |c| {
                vec![fact(Kind::Fact, format!("User works as {}", clean(&c[1])), "occupation", 0.9, 0.85).linked("works_as", &c[1], "role")]
            }),
            r(r"(?i)\bI'?m an?\s+((?:senior |junior |lead |staff |principal )?[a-z-]+ (?:engineer|developer|designer|scientist|manager|researcher|analyst|teacher|doctor|nurse|lawyer|writer|student|architect|consultant))\b", |c| {
                vec![fact(Kind::Fact, format!("User works as {}", clean(&c[1])), "occupation", 0.9, 0.85).linked("works_as", &c[1], "role")]
            }),
            r(r"(?:我是|做|当|职业是|工作是)(?:一名|一个|个)?([^，。,.!！？?\s]{0,8}(?:工程师|程序员|设计师|经理|产品经理|医生|老师|教师|律师|科学家|研究员|分析师|学生|架构师|顾问))", |c| {
                vec![fact(Kind::Fact, format!("用户的职业是{}", clean(&c[1])), "occupation", 0.9, 0.85).linked("works_as", &c[1], "role")]
            }),
            r(r"\b[Ii](?: work|'m working| am working|'m employed| am employed)\b[^.!?]{0,40}?\b(?:at|for|by)\s+(?:the\s+)?([A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})", |c| {
                vec![fact(Kind::Fact, format!("User works at {}", clean(&c[1])), "employer", 0.9, 0.85).linked("works_at", &c[1], "organization")]
            }),
            r(r"在([^，。,.!！？?\s在]{2,12}?)(?:工作|上班|做|任职)", |c| {
                let place = clean(&c[1]);
                if ["家", "这里", "那里", "用", "学"].iter().any(|w| place.starts_with(w)) {
                    return Vec::new();
                }
                vec![fact(Kind::Fact, format!("用户在{place}工作"), "employer", 0.9, 0.8).linked("works_at", &place, "organization")]
            }),
            r(r"\b[Ii](?: live in| am based in|'m based in| moved to| relocated to| have moved to|'ve moved to)\s+([A-Z][\w'-]*(?:[ ,]+[A-Z][\w'-]*){0,2})", |c| {
                vec![fact(Kind::Fact, format!("User lives in {}", clean(&c[1])), "location", 0.85, 0.85).linked("lives_in", &c[1], "place")]
            }),
            r(r"(?:我住在|我搬到了?|我现在住在|我在([^，。,.!！？?\s]{2,10}?)(?:生活|定居))([^，。,.!！？?\s]{0,10}?)(?:了|，|。|$)", |c| {
                // "我在X生活" captures X in group 1; "我住在X" in group 2.
                let place = clean(c.get(1).map_or(&c[2], |m| m.as_str()));
                if place.chars().count() < 2 || ["用", "做", "学", "想", "找", "看", "写", "跑"].iter().any(|w| place.starts_with(w)) {
                    return Vec::new();
                }
                vec![fact(Kind::Fact, format!("用户住在{place}"), "location", 0.85, 0.75).linked("lives_in", &place, "place")]
            }),
            r(r"(?i)\bi(?:'m| am) (?:good at|skilled in|proficient in|fluent in|an expert in)\s+([\w#+ .-]{2,40}?)(?:[,.!]|$)", |c| {
                let s = clean(&c[1]);
                vec![fact(Kind::Fact, format!("User is skilled in {s}"), &format!("skill {}", s.to_lowercase()), 0.8, 0.8).linked("skilled_in", &s, "skill")]
            }),
            r(r"(?:我擅长|我精通|我会)([^，。,.!！？?\s]{1,12})", |c| {
                let s = clean(&c[1]);
                vec![fact(Kind::Fact, format!("用户擅长{s}"), &format!("skill {s}"), 0.8, 0.75).linked("skilled_in", &s, "skill")]
            }),
            // ---- preferences ----
            r(r"(?i)\bi (?:switched|moved|migrated|changed) from\s+([\w#+. -]{1,30}?)\s+to\s+([\w#+.-]{1,30})", |c| {
                vec![preference(&c[2], true, false)]
            }),
            r(r"(?:从|由)([A-Za-z0-9#+.一-鿿-]{1,20}?)(?:改用|换成|换到|转到|迁移到)了?([A-Za-z0-9#+.-]{1,20}|[^，。,.!！？?\s]{1,10})", |c| {
                vec![preference(&c[2], true, true)]
            }),
            r(r"(?:改用|换成了?|现在用)([A-Za-z0-9#+.-]{1,20})", |c| vec![preference(&c[1], true, true)]),
            r(r"(?i)\bi (?:really |much |strongly )?(?:prefer|love|like|enjoy)\s+([\w#+. -]{1,30}?)(?:\s+(?:over|to|more than)\s+([\w#+.-]{1,30}))?(?:[,.!]|\s+(?:and|but|for|because)\b|$)", |c| {
                let mut out = vec![preference(&c[1], true, false)];
                if let Some(other) = c.get(2) {
                    out.push(preference(other.as_str(), false, false));
                }
                out
            }),
            r(r"(?i)\bi (?:don'?t like|do not like|dislike|hate|can'?t stand|avoid)\s+([\w#+. -]{1,30}?)(?:[,.!]|\s+(?:and|but|because)\b|$)", |c| {
                vec![preference(&c[1], false, false)]
            }),
            r(r"我(?:比较|更|最|很|非常)?(?:偏好|喜欢|爱用|偏爱)([^，。,.!！？?\s]{1,12})", |c| vec![preference(&c[1], true, true)]),
            r(r"(?:不太喜欢|不喜欢|讨厌|不爱用)([^，。,.!！？?\s]{1,12})", |c| vec![preference(&c[1], false, true)]),
            // ---- tools in use ----
            r(r"(?:我(?:最近|现在|目前)?在?用|我使用)([A-Za-z][A-Za-z0-9.+-]{1,20})(?:做|来|开发|写)([^，。,.!！？?\s]{1,12})", |c| {
                let tool = clean(&c[1]);
                let what = clean(&c[2]);
                vec![fact(Kind::Fact, format!("用户用{tool}做{what}"), &format!("uses {}", tool.to_lowercase()), 0.7, 0.8).linked("uses", &tool, "tool")]
            }),
            r(r"\b[Ii](?:'m| am)? (?:using|use)\s+([A-Z][\w.+-]{1,20})\s+(?:for|to)\s+([\w -]{3,40}?)(?:[,.!]|$)", |c| {
                let tool = clean(&c[1]);
                vec![fact(Kind::Fact, format!("User uses {tool} for {}", clean(&c[2])), &format!("uses {}", tool.to_lowercase()), 0.7, 0.8).linked("uses", &tool, "tool")]
            }),
            // ---- decisions ----
            r(r"(?i)\b(?:i|we) (?:have )?decided (?:to|that|on)\s+(.{3,120}?)(?:[.!]|$)", |c| {
                vec![untagged(Kind::Event, format!("User decided to {}", clean(&c[1])), 0.85, 0.85)]
            }),
            r(r"(?i)\blet'?s go with\s+(.{2,80}?)(?:[.!]|$)", |c| vec![untagged(Kind::Event, format!("User decided to go with {}", clean(&c[1])), 0.85, 0.8)]),
            r(r"(?:我|我们)?(?:决定|定了|确定)(?:了)?(?:要|用|采用)?([^。！!？?\n]{2,40})", |c| {
                vec![untagged(Kind::Event, format!("用户决定{}", clean(&c[1])), 0.85, 0.85)]
            }),
            // ---- corrections of the assistant ----
            r(r"(?i)^\s*(?:no|nope|that'?s (?:not right|wrong|incorrect)|actually|correction)[,:!.]?\s+(.{3,160}?)\s*$", |c| {
                let mut e = untagged(Kind::Fact, format!("Correction from the user: {}", clean(&c[1])), 0.8, 0.9);
                e.tags.push("correction".into());
                vec![e]
            }),
            r(r"^\s*(?:不对|错了|不是的|你说错了|更正一下|纠正一下)[，,:：!！。]?\s*(.{2,80})$", |c| {
                let mut e = untagged(Kind::Fact, format!("用户纠正：{}", clean(&c[1])), 0.8, 0.9);
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
            r(r"(?:我)?(?:已经)?(?:完成了|做完了|搞定了)([^，。,.!！？?]{2,30})", |c| {
                vec![untagged(Kind::Task, format!("用户完成了{}", clean(&c[1])), 0.6, 0.85).linked("finished", &c[1], "task")]
            }),
            r(r"(?:我)?(?:正在|在探索|在研究|在做|遇到了)([^，。,.!！？?]{2,30}?)(?:的问题|问题)?(?:[，。,.!！]|$)", |c| {
                let t = clean(&c[1]);
                if !zh(&t) {
                    return Vec::new();
                }
                vec![untagged(Kind::Task, format!("用户在处理{t}"), 0.6, 0.75).linked("works_on", &t, "task")]
            }),
        ]
    })
}
