//! What an English speaker states about themselves, kept as a clean third-person fact:
//! "I'm allergic to peanuts" → "User is allergic to peanuts" (health, key `allergy
//! peanuts`), "My sister is called Ana" → "User's sister is called Ana" (family, linked
//! `user —sister→ Ana`), "I have two kids" → "User has two kids" (family).
//!
//! Every first-person clause that `statements::refusal` lets through is kept: the clause says
//! what it says, and the rules only decide its category, its kind, its importance and —
//! where a new value replaces the old one (the city, the employer, the diet, a favourite) —
//! its supersession key. Keyed identity rules (`rules.rs`) come first: a clause one of them
//! reads is not kept a second time here.

use std::sync::OnceLock;

use regex_lite::Regex;

use crate::statements::refusal::is_dislike;
use crate::text::lexicon::{category_of, is_people_or_faith};
use crate::extract::Extracted;
use crate::model::{FactKey, Kind};

/// The fact a first-person clause states, or `None` when it cannot be put in the third person.
pub(crate) fn self_fact(clause: &str) -> Option<Extracted> {
    let inverted = favorite_first(clause);
    let clause = inverted.as_deref().unwrap_or(clause);
    let text = third_person(clause)?;
    let lower = clause.to_lowercase();
    let p = patterns();
    let dislike = is_dislike(clause);
    // A dislike no lexicon names ("I'm not a fan of horror films") is a preference, not
    // the identity or habit a clause falls back to; "I don't eat pork" stays health.
    let category = match category(&lower) {
        "identity" | "habit" if dislike => "preference",
        c => c,
    };
    let preference = dislike || category == "preference";
    let kind = match category {
        "plan" => Kind::Task,
        _ if preference => Kind::Preference,
        _ => Kind::Fact,
    };
    let mut key = None;
    let mut link = None;
    if let Some(c) = p.favorite.captures(&lower) {
        key = Some(format!("favorite {}", c[1].trim()));
    } else if let Some(c) = p.likes.captures(&lower) {
        let object = c[2].trim().to_owned();
        key = Some(match category_of(&object) {
            Some(cat) => format!("preferred {cat}"),
            None => format!("opinion of {object}"),
        });
        // A short object is a thing the graph can hold (`user —likes→ hiking`); the
        // signals of `consolidate` count the same liking across sessions by it.
        if object.split_whitespace().count() <= 3 {
            let m = c.get(2).map(|m| m.range()).and_then(|r| clause.get(r)).map_or(object.as_str(), str::trim);
            let rel = if dislike { "dislikes" } else if category_of(&object).is_some() { "prefers" } else { "likes" };
            link = Some((rel.to_owned(), m.to_owned(), category_of(&object).unwrap_or("thing")));
        }
    } else if let Some(c) = p.allergy.captures(&lower) {
        key = Some(format!("allergy {}", c[1].trim()));
    } else if p.diet.is_match(&lower) {
        key = Some("diet".into());
    } else if p.status.is_match(&lower) {
        key = Some("relationship status".into());
    } else if p.age.is_match(&lower) {
        key = Some("age".into());
    } else if p.birthday.is_match(&lower) {
        key = Some("birthday".into());
    } else if p.hometown.is_match(&lower) {
        key = Some("hometown".into());
    } else if let Some(m) = p.location.captures(&lower).and_then(|c| c.get(1).or_else(|| c.get(2))).filter(|m| !is_determined(m.as_str())) {
        // Where the user lives now, typed in lower case too ("moved to denver last year",
        // "i live in porto now"): it replaces the city before, as "I live in Denver" does
        // ("a flat", "the city" name no place).
        key = Some("location".into());
        if let Some(city) = clause.get(m.range()).filter(|_| clause.is_ascii()) {
            link = Some(("lives_in".to_owned(), city.to_owned(), "place"));
        }
    }
    if let Some(c) = p.relative_named.captures(clause) {
        let rel = c[1].to_lowercase();
        link = Some((rel, c[2].to_owned(), "person"));
    } else if let Some(c) = p.pet_named.captures(clause) {
        link = Some(("pet".to_owned(), c[2].to_owned(), "pet"));
    }
    let importance = match category {
        "health" => 0.9,
        "identity" | "family" | "date" => 0.85,
        "work" | "place" | "study" => 0.8,
        "preference" => 0.7,
        "habit" | "plan" => 0.65,
        _ => 0.6,
    };
    let mut e = Extracted {
        kind,
        text,
        key: key.map(|a| FactKey::new("user", &a)),
        importance,
        confidence: 0.7,
        tags: vec![format!("category:{category}")],
        link: None,
    };
    if let Some((rel, name, kind)) = link {
        e = e.linked(&rel, &name, kind);
    }
    Some(e)
}

/// "Horror movies are my favorite", "Mickey Mouse is my favorite character": the same
/// clause with the favourite first ("My favorite character is Mickey Mouse"), so that it is
/// put in the third person and keyed as any favourite is. `None` for any other clause, and
/// when the thing is a pointer ("that is my favorite").
fn favorite_first(clause: &str) -> Option<String> {
    let c = patterns().favorite_last.captures(clause.trim())?;
    let thing = c[1].trim();
    if POINTERS.contains(&thing.to_lowercase().as_str()) {
        return None;
    }
    let (verb, attribute) = (&c[2], &c[3]);
    let what = attribute.strip_prefix("favorite").or_else(|| attribute.strip_prefix("favourite")).unwrap_or("");
    // A common noun loses the capital the sentence gave it ("Horror movies" → "horror
    // movies"); a name keeps it ("Mickey Mouse", "Zelda").
    let rest_lower = thing.split_whitespace().skip(1).all(|w| w.chars().all(|ch| !ch.is_uppercase()));
    let lower = thing.to_lowercase();
    let common = rest_lower && (thing.contains(' ') || category_of(&lower).is_some() || COMMON_KINDS.contains(&what.trim()));
    let thing = if common { lower } else { thing.to_owned() };
    // "Horror movies are my favorite" stays plural; a named attribute takes "is".
    let plural = attribute.starts_with("favo") && what.is_empty() && verb == "are";
    let head = match attribute {
        _ if plural => "My favorites are".to_owned(),
        a if !a.starts_with("favo") => format!("My {a} is"),
        _ => format!("My favorite{what} is"),
    };
    Some(format!("{head} {thing}"))
}

/// Favourites whose members are common nouns ("Pizza is my favorite food" → "pizza").
const COMMON_KINDS: &[&str] = &[
    "food", "foods", "color", "colour", "drink", "animal", "animals", "season", "sport", "flavor", "flavour", "fruit", "dessert", "meal",
    "snack", "hobby", "subject", "genre", "instrument", "vegetable", "dish", "candy", "treat", "breakfast", "cuisine", "pet", "thing",
];

/// Words that point to something said before, not name it.
const POINTERS: &[&str] = &["it", "that", "this", "those", "these", "they", "he", "she", "which", "what", "mine", "yours", "one", "this one", "that one"];

/// What a clause says of someone the user knows ("My sister is a pole dancer" → "User's
/// sister is a pole dancer"): kept about them, in the category `people`, with no key of
/// the user's — "my friend is allergic to peanuts" is not the user's allergy, and the
/// profile does not read it as one.
pub(crate) fn someone_elses_fact(clause: &str) -> Option<Extracted> {
    let mut e = self_fact(clause)?;
    e.kind = Kind::Fact;
    e.key = None;
    e.importance = 0.6;
    e.tags = vec![crate::extract::PEOPLE_TAG.to_owned()];
    Some(e)
}

/// The category of a first-person clause (lower-cased): the first lexicon that names it.
pub(crate) fn category(lower: &str) -> &'static str {
    let p = patterns();
    // "I plan to go to business school": a plan about school, kept as a plan (a task).
    if p.plan_head.is_match(lower) {
        return "plan";
    }
    // A date is what makes a fact worth its day, whatever it is about ("my exam is on June 14").
    if p.date.is_match(lower) {
        return "date";
    }
    // What the user has, got or owns ("I've got an old Gibson guitar I play every night",
    // "my car is a 2009 Corolla") is a possession, whatever it is used for, unless the
    // thing is a person or a pet, a condition, a degree, a job or a home (its lexicon says).
    if p.possession_head.is_match(lower) && !p.trait_noun.is_match(lower) && !p.categories.iter().any(|(name, re)| ["health", "family", "study", "work", "place"].contains(name) && re.is_match(lower)) {
        return "possession";
    }
    // How the user gets to work says where they live ("I bike to work every day", "my
    // commute is an hour"), however often they do it.
    if p.commute.is_match(lower) {
        return "place";
    }
    // How often says a habit ("I run every morning before work"), unless it is the work.
    if p.frequency.is_match(lower) && !lower.starts_with("i work") {
        return "habit";
    }
    if p.identity.is_match(lower) || is_people_or_faith_predicate(lower) {
        return "identity";
    }
    // "I moved to Denver for work": where the user lives is the head, whatever brought them.
    if p.place_head.is_match(lower) {
        return "place";
    }
    // "I'm a high school chemistry teacher": the role is the head, whatever names its school.
    if p.role_head.is_match(lower) {
        return "work";
    }
    // "I prefer working from home": a stated preference, whatever it is about.
    if p.prefer_head.is_match(lower) {
        return "preference";
    }
    // "I love going to museums", "my favourite class is maths": a liking, whatever it is
    // of — what is liked names no plan, job or school of the user's; what the health or
    // family lexicon reads still files it ("I love vegan food" is health).
    let liking = p.categories.iter().any(|(name, re)| *name == "preference" && re.is_match(lower));
    for (name, re) in &p.categories {
        if re.is_match(lower) && (!liking || matches!(*name, "health" | "family" | "preference")) {
            return name;
        }
    }
    if lower.starts_with("i have ") || lower.starts_with("i've got ") || lower.starts_with("i own ") {
        return "possession";
    }
    if lower.starts_with("i'm ") || lower.starts_with("i am ") || lower.starts_with("i was ") {
        return "identity";
    }
    "habit"
}

/// A phrase that opens with an article or a determiner ("a flat", "the city", "my parents'"):
/// a description, not a name.
fn is_determined(phrase: &str) -> bool {
    phrase.split(' ').next().is_some_and(|w| ["a", "an", "the", "my", "our", "this", "that", "their", "his", "her"].contains(&w))
}

/// "I'm Korean", "I'm a proud Catholic", "I'm half Irish": a people or faith is what the
/// speaker is, not what they talk about ("I'm obsessed with Korean dramas").
fn is_people_or_faith_predicate(lower: &str) -> bool {
    let Some(rest) = lower.strip_prefix("i'm ").or_else(|| lower.strip_prefix("i am ")) else { return false };
    let mut words = rest.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty());
    words.find(|w| !["a", "an", "half", "proud", "proudly", "born", "ethnically", "part", "originally", "also", "actually", "fully", "quarter"].contains(w)).is_some_and(is_people_or_faith)
}

/// "I'm X" → "User is X", "I love Y" → "User loves Y", "My Z is W" → "User's Z is W";
/// later "I", "my", "me" become "they", "their", "them".
pub(crate) fn third_person(clause: &str) -> Option<String> {
    let p = patterns();
    // An emphatic "do" stresses the verb it comes with: "I do enjoy reading" → "I enjoy reading".
    let plain = p.emphatic_do.replace(clause.trim(), "I $1");
    let c = plain.as_ref();
    let (head, rest) = if let Some(m) = p.be.captures(c) {
        let verb = match &m[1].to_lowercase()[..] {
            "i'm" | "i am" => "is",
            "i was" => "was",
            "i've been" | "i have been" => "has been",
            "i've" | "i have" | "i've got" | "i have got" => "has",
            "i had" => "had",
            "i'll" | "i will" => "will",
            "i'd" => "would",
            _ => "is",
        };
        (format!("User {verb}"), &c[m[0].len()..])
    } else if let Some(m) = p.partner_and_i.captures(c) {
        let with = later_persons(&format!(" {}", &m[1])).trim().to_owned();
        let rest = third_person(&format!("I {}", &c[m[0].len()..].trim()))?;
        let rest = rest.trim_end_matches(" together");
        return Some(format!("{rest} with {with}"));
    } else if let Some(m) = p.my.captures(c) {
        ("User's".to_owned(), &c[m[0].len()..])
    } else if let Some(m) = p.me_and_my.captures(c) {
        ("User and their".to_owned(), &c[m[0].len()..])
    } else if let Some(m) = p.dont.captures(c) {
        // A dislike ("I don't drink alcohol"): the only negation a clause may keep.
        let adverb = m.get(1).map_or(String::new(), |a| format!("{} ", a.as_str().trim().to_lowercase()));
        (format!("User {adverb}doesn't"), &c[m[0].len()..])
    } else if let Some(m) = p.verb.captures(c) {
        let adverb = m.get(1).filter(|a| !a.as_str().trim().is_empty()).map_or(String::new(), |a| format!("{} ", a.as_str().split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()));
        // "read" is present unless the clause says when it was ("I mostly read fiction",
        // "I read it last summer").
        let verb = if m[2].eq_ignore_ascii_case("read") && !p.past_time.is_match(&c[m[0].len()..].to_lowercase()) { "reads".to_owned() } else { conjugate(&m[2]) };
        (format!("User {adverb}{verb}"), &c[m[0].len()..])
    } else {
        return None;
    };
    let mut text = later_persons(&format!("{head}{rest}")).trim().trim_end_matches(['.', '!', ',', ';', ' ']).to_owned();
    // "User also likes hiking": "also" points to the other person's turn; the fact is that
    // the user likes hiking.
    if let Some(at) = text.find(" also ").filter(|&at| text[..at].split_whitespace().count() <= 3) {
        text.replace_range(at..at + 5, "");
    }
    (text.split_whitespace().count() >= 3).then_some(text)
}

/// The first persons after a fact's head in the third: "User is working on my degree" →
/// "User is working on their degree", "when I was young" → "when they were young".
pub(crate) fn later_persons(text: &str) -> String {
    let p = patterns();
    let rest = p.later_i_am.replace_all(text, "${1}they are");
    let rest = p.later_i_have.replace_all(&rest, "${1}they have");
    let rest = p.later_i_was.replace_all(&rest, "${1}they were");
    let rest = p.later_i.replace_all(&rest, "${1}they");
    let rest = p.my_word.replace_all(&rest, "${1}their");
    let rest = p.me_word.replace_all(&rest, "${1}them");
    // "my mum lives with us", "our flat": the speaker's household ("the us" is a country).
    let rest = p.our_word.replace_all(&rest, "${1}their");
    let rest = p.us_word.replace_all(&rest, "${1} them");
    p.myself.replace_all(&rest, "${1}themselves").into_owned()
}

/// The third person singular of an English verb in the present ("love" → "loves",
/// "watch" → "watches", "study" → "studies"); a past form stays as it is.
fn conjugate(verb: &str) -> String {
    let v = verb.to_lowercase();
    // "need", "feed", "speed" end in -ed and are not past.
    let present_ed = v.ends_with("eed") && (v.len() <= 5 || ["speed", "bleed", "breed", "succeed", "proceed", "exceed"].contains(&v.as_str()));
    if (v.ends_with("ed") && !present_ed && v != "shed" && v != "embed") || IRREGULAR_PAST.contains(&v.as_str()) {
        return v;
    }
    match v.as_str() {
        "have" => "has".into(),
        "do" => "does".into(),
        // "My wife and I are divorcing" → "User is divorcing with their wife".
        "are" => "is".into(),
        "were" => "was".into(),
        "go" => "goes".into(),
        "can" | "cannot" | "must" | "should" | "will" | "may" | "might" | "could" | "would" | "shall" => v,
        _ if v.ends_with(['s', 'x', 'z']) || v.ends_with("ch") || v.ends_with("sh") || v.ends_with('o') => format!("{v}es"),
        _ if v.ends_with('y') && !v.ends_with("ay") && !v.ends_with("ey") && !v.ends_with("oy") && !v.ends_with("uy") => format!("{}ies", &v[..v.len() - 1]),
        _ => format!("{v}s"),
    }
}

const IRREGULAR_PAST: &[&str] = &[
    "was", "had", "did", "went", "grew", "got", "won", "met", "made", "took", "saw", "began", "became", "came", "left", "lost", "bought",
    "built", "drove", "flew", "fell", "felt", "found", "gave", "knew", "led", "ran", "sang", "sold", "spent", "taught", "thought", "wrote",
    "broke", "caught", "chose", "drew", "ate", "swam", "rode", "held", "kept", "heard", "paid", "read", "said", "sent", "shot", "sat",
    "slept", "spoke", "stood", "told", "understood", "wore", "threw", "used", "quit", "tore", "woke", "forgot", "froze", "stole", "swore",
    "shook", "brought", "fought", "sought", "dealt", "meant", "dug", "hung", "stuck", "struck", "bit", "hid", "lent",
];

struct Patterns {
    role_head: Regex,
    past_time: Regex,
    be: Regex,
    my: Regex,
    me_and_my: Regex,
    partner_and_i: Regex,
    dont: Regex,
    verb: Regex,
    later_i_am: Regex,
    later_i_have: Regex,
    later_i_was: Regex,
    later_i: Regex,
    my_word: Regex,
    me_word: Regex,
    our_word: Regex,
    us_word: Regex,
    myself: Regex,
    favorite: Regex,
    favorite_last: Regex,
    possession_head: Regex,
    trait_noun: Regex,
    emphatic_do: Regex,
    prefer_head: Regex,
    likes: Regex,
    plan_head: Regex,
    allergy: Regex,
    diet: Regex,
    status: Regex,
    age: Regex,
    birthday: Regex,
    hometown: Regex,
    relative_named: Regex,
    pet_named: Regex,
    date: Regex,
    frequency: Regex,
    commute: Regex,
    place_head: Regex,
    location: Regex,
    identity: Regex,
    categories: Vec<(&'static str, Regex)>,
}

/// Family words, in the plural too, as they follow "my".
const RELATIVES: &str = r"(?:mom|mum|mother|dad|father|parents?|brothers?|sisters?|siblings?|sons?|daughters?|kids?|children|child|wife|husband|spouse|girlfriend|boyfriend|partner|bf|gf|hubby|wifey|fianc\w*|step(?:mom|mother|dad|father|son|daughter|kids?|children|sister|brother)s?|grand(?:ma|pa|mother|father|parents?|kids?|children|son|daughter)s?|cousins?|aunts?|uncles?|nieces?|nephews?|twins?|family|friends?|best friend|roommates?|in-laws?|stepmom|stepdad|baby|babies)";
const MONTHS: &str = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)";
const PETS: &str = r"(?:dogs?|cats?|pets?|puppy|puppies|kitten|kittens|birds?|parrots?|fish|hamsters?|rabbits?|bunny|bunnies|horses?|turtles?|tortoises?|snakes?|lizards?|guinea pigs?|ferrets?|cow|cows|goats?|chickens?|pigs?|german shepherd|labrador|poodle|beagle|terrier|retriever|husky|greyhound|dachshund|corgi|pug|bulldog|collie|spaniel|chihuahua)";

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::statements::pattern;
        let cat = |name: &'static str, s: &str| (name, re(s));
        Patterns {
            be: re(r"(?i)^(i'm|i am|i was|i've been|i have been|i've got|i have got|i've|i have|i had|i'll|i will|i'd)\b"),
            my: re(r"^(?i:my)\b"),
            me_and_my: re(r"^(?i:me and my)\b"),
            partner_and_i: re(&format!(r"^((?i:my|our) (?:\w+ )?(?i:{RELATIVES})(?: [A-Z][a-z]+)?) (?:and|&) I\b")),
            dont: re(r"^I\s+((?i:really|just|absolutely|truly)\s+)?(?i:don't|do not|dont)\b"),
            role_head: re(r"^i(?:'m| am) an? (?:[a-z-]+ ){0,3}(?:teacher|nurse|engineer|doctor|lawyer|chef|plumber|electrician|mechanic|farmer|driver|pilot|firefighter|officer|accountant|developer|designer|manager|professor|librarian|barista|cashier|waiter|waitress|programmer|scientist|researcher|consultant|analyst|architect|dentist|pharmacist|therapist|vet|veterinarian)\b"),
            past_time: re(r"\b(?:yesterday|last|ago|once|when (?:i|they) (?:was|were)|as a (?:kid|child|teen)|in (?:19|20)\d\d)\b"),
            verb: re(r"^I\s+((?:(?i:also|really|usually|always|just|still|actually|often|sometimes|mostly|only|mainly|currently|recently|finally|absolutely|totally|definitely|even|especially|now|already|never)\s+){0,2})([A-Za-z]+)\b"),
            later_i_am: re(r"(\W)(?:I'm|I am)\b"),
            later_i_have: re(r"(\W)(?:I've|I have)\b"),
            later_i_was: re(r"(\W)I was\b"),
            later_i: re(r"(\W)I\b"),
            my_word: re(r"(\W)(?i:my)\b"),
            me_word: re(r"(\W)(?i:me)\b"),
            our_word: re(r"(\W)(?i:our)\b"),
            us_word: re(r"\b(with|for|to|at|about|near|from|visit|visits|visited|join|joins|joined|help|helps|helped|tell|tells|told|give|gives|gave|call|calls|called|let|lets) us\b"),
            myself: re(r"(\W)(?i:myself)\b"),
            favorite: re(r"^my (?:favorite|favourite|fav|fave) ([a-z ]{2,30}?) (?:is|are|was)\b"),
            possession_head: re(r"^i(?:'ve| have)? (?:just |recently |finally )?(?:got|bought|own|have got|'ve got)\b|^i (?:just |recently )?(?:have|own) (?:a|an|two|three|four|five|several|[0-9]+|my own|a few|lots of)\b|^my (?:\w+ )?(?:car|truck|bike|motorbike|motorcycle|phone|laptop|computer|guitar|piano|violin|camera|boat|van|minivan|watch|collection)\b"),
            prefer_head: re(r"^i (?:really |much |generally |usually |definitely |also |still )?(?:prefer|would rather)\b|^i'd (?:much )?rather\b|^i(?:'m| am) (?:more of )?an? (?:cat|dog|morning|night|beach|mountain|coffee|tea|summer|winter) person\b"),
            emphatic_do: re(r"^I\s+do\s+((?:(?i:really|also|still|sometimes|often)\s+)?(?i:enjoy|like|love|miss|find|drink|eat|want|need|feel|prefer|play|watch|listen|know|hope|wish|care|appreciate|remember|believe|think|have|read)\b)"),
            // "I have a fear of deep water", "I've got a knack for languages": a trait, not a thing.
            trait_noun: re(r"\b(?:fear|phobia|habit|knack|talent|gift for|passion|weakness|tendency|hobby|hobbies|love of|interest in|sense of)\b"),
            favorite_last: re(r"^([A-Za-z][A-Za-z' -]{1,40}?) (is|are) my ((?:favorite|favourite)(?: [a-z]+){0,3}|mother tongue|native language|first language|weakness)$"),
            likes: re(r"^i (?:really |also |just |absolutely |truly )?(love|like|enjoy|prefer|adore|hate|dislike|detest|don't like|do not like|can't stand)\s+(?:to\s+)?(.{2,60}?)(?:\s+(?:so much|a lot|very much|the most))?$"),
            plan_head: re(r"^i(?:'ll| will) (?:be )?[a-z]+|^i(?:'m| am) [a-z]+ing\b.*\b(?:next (?:week|month|year|spring|summer|fall|autumn|winter|weekend)|this (?:spring|summer|fall|autumn|winter|weekend|year)|in (?:the )?(?:spring|summer|autumn|fall|winter|january|february|march|april|may|june|july|august|september|october|november|december))\b|^i(?:'m| am|'ve| have)? (?:plan(?:ning)? (?:to|on)|want to|hope to|hoping to|intend to|going to|gonna|would like to|aspire to|dream of|aim to|aiming to|determined to|decided to|applying (?:to|for)|starting|signing up|training for|renovating|going back to|booked|moving in with|getting married|getting an? [a-z]+|saving (?:up )?(?:for|to))\b|^my (?:plan|goal|dream|aim) (?:is|for)\b|^i(?:'m| am) (?:so |really |also |super |very )*(?:looking forward to|excited to) [a-z]+|^i (?:really |just )?(?:can't|cannot|cant) wait to [a-z]+"),
            allergy: re(r"allergic to ([a-z ]{2,30})"),
            diet: re(r"\b(?:i(?:'m| am) (?:a )?(?:vegetarian|vegan|pescatarian|on a [a-z]+ diet|keto|gluten[- ]free)|i (?:eat|follow) (?:a )?(?:vegan|vegetarian|plant-based|keto|paleo|kosher|halal))\b"),
            status: re(r"^i(?:'m| am) (?:single|married|divorced|engaged|widowed|in a relationship|dating)\b"),
            age: re(r"^i(?:'m| am) (?:\d{1,3}|[a-z]+(?:-[a-z]+)?) years? old\b|^i(?:'m| am) [0-9]{1,3}\b|^i(?:'m| am) turning [0-9]{1,3}\b|^i (?:just )?turned [0-9]{1,3}\b|^i(?:'m| am) in my (?:twenties|thirties|forties|fifties|sixties|seventies|\d0s)\b"),
            birthday: re(r"^my birthday\b|\bi was born on\b"),
            hometown: re(r"^i(?:'m| am) (?:originally )?from\b|^i grew up in\b|^i was (?:born|raised) in\b"),
            relative_named: re(&format!(r"(?i)\bmy ({RELATIVES})(?:'s name is|\s+is (?:called|named)|\s+named|\s+called|,)\s+([A-Z][a-z]+)")),
            pet_named: re(&format!(r"(?i)\b(?:my |a |an |two |three )?({PETS})(?:'s name is|\s+is (?:called|named)|\s+named|\s+called)\s+([A-Z][a-z]+|[a-z]+)")),
            date: re(&format!(r"\b(?:birthday|bday|anniversary|born on|wedding (?:is|was) on|due date|appointment|interview|ceremony|name day|scheduled for)\b|\b(?:on|is|by|until|since|the) (?:the )?(?:\d{{1,2}}(?:st|nd|rd|th)\b|{MONTHS} \d{{1,2}}(?:st|nd|rd|th)?\b|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{MONTHS}\b|(?:first|second|third|\w+th) of {MONTHS}\b)|\b(?:on|next|this) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")),
            location: re(r"^i(?:'ve| have)? (?:just |recently |finally |now )?(?:moved|relocated) (?:back )?to ([a-z][a-z'-]*(?: [a-z][a-z'-]*)??)(?: (?:last|this|in|for|with|because|since|a|two|three|[0-9]+|after|when|and|but|now)\b|$)|^i (?:now |currently )?live in ([a-z][a-z'-]*(?: [a-z][a-z'-]*)??)(?: (?:now|with|since|for|and|but|near|with)\b|$)"),
            place_head: re(r"^i(?:'ve| have)? (?:just |recently |finally |also )?(?:moved|relocated|live|lived|grew up|settled)\b"),
            commute: re(r"\bcommute\b|\b(?:bike|cycle|walk|drive|ride|take the (?:bus|train|metro|subway|tube|tram|ferry)) (?:[0-9]+ (?:mins?|minutes|hours?) )?to work\b"),
            frequency: re(r"\b(?:night owl|early bird|early riser|every (?:day|week|weekend|morning|evening|night|year|month|summer|winter|sunday|saturday)|once a|twice a|\w+ times a|most (?:mornings|evenings|nights|weekends|days)|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends))\b"),
            identity: re(r"\b(?:years? old|turning [0-9]{1,3}\b|(?:just )?turned [0-9]{1,3}\b|born in (?:19|20)\d\d|native language|first language|mother tongue|i speak|fluent in|nickname|full name|surname|my name|go by|pronouns|nonbinary|non-binary|transgender|i(?:'m| am) (?:trans|gay|lesbian|bisexual|queer|straight|religious|spiritual|left-handed|right-handed|an introvert|an extrovert|introverted|extroverted|a (?:man|woman|guy|girl|boy|lady|gentleman)\b))"),
            categories: vec![
                cat("health", r"\b(?:allerg\w*|vegetarian|vegan|pescatarian|diet|gluten|lactose|diabet\w*|asthma|cancer|surgery|injur\w*|disabilit\w*|blind|deaf|wheelchair|anxiety|depress\w*|adhd|autism|autistic|medication|pregnant|sick|illness|disease|health\w*|doctor told|sober|recovering|chronic|arthritis|migraine\w*|insomnia|eat (?:meat|fish)|calories|weight|gym|fitness|work out|workout|exercise|halal|kosher|dairy|dairy-free|celiac|coeliac|fasting|knee|back pain|glasses|contact lenses|blood pressure|cholesterol|meds|eczema|psoriasis|colou?rblind|thyroid|hypothyroidism|hyperthyroidism|epilep\w*|seizures|hearing aid|ptsd|bipolar|ocd|quit (?:drinking|smoking)|smoker|keto|ibs|endometriosis|pcos|acl|physio\w*|epipen|covid|(?:eat|drink) (?:pork|beef|dairy|eggs|alcohol|gluten))\b"),
                cat("family", &format!(r"^(?:my |me and my )(?:\w+ )?{RELATIVES}\b|\bi(?:'m| am) (?:single|married|divorced|engaged|widowed|a widow(?:er)?|a (?:\w+ )?(?:mom|mum|mother|dad|father|parent|grandma|grandmother|grandfather|twin|only child|stepmom|stepdad)|an only child|pregnant|in a relationship)\b|\b(?:married|divorced|engaged to|dating)\b|\bi(?: have|'ve got|'ve| have got) (?:a |an |\w+ )?(?:\w+ )?{RELATIVES}\b|\bmy (?:\w+ )?{PETS}\b|\bi(?: have|'ve got|'ve| have got| adopted| got| just got| bought) (?:a |an |\w+ )?(?:\w+ )?{PETS}\b|\b{PETS} (?:named|called)\b")),
                cat("study", r"\b(?:school|college|university|student|studying|study|major(?:ing)?|degree|graduat\w*|class(?:es)?|course|phd|masters?|bachelor\w*|freshman|sophomore|junior year|senior year|homework|semester|campus|learning to|taking lessons|majored|bootcamp|mba|homeschool\w*|year [0-9]{1,2}|ielts|toefl|gre|gmat|a-levels?|gcses?|exams?|cpa|lsat|mcat|in (?:the )?\w+ grade|thesis|diploma|certificate|apprentice\w*|undergrad\w*|enrolled|med school|law school|grad school|went to (?:[A-Z]\w+|\w+ (?:school|college|university)))\b"),
                cat("work", r"\b(?:work\w*|job|jobs|career|employ\w*|boss|office|company|business|retired|retire|profession\w*|hired|fired|quit|salary|shift|coworkers?|colleagues?|clients?|customers?|manager|engineer|teacher|nurse|doctor|lawyer|chef|cook at|plumber|electrician|mechanic|farmer|driver|pilot|firefighter|police|officer|soldier|army|navy|military|marine|veteran|accountant|programmer|developer|designer|writer|author|artist|musician|singer|actor|actress|dancer|photographer|waitress|waiter|bartender|cashier|barista|nanny|janitor|librarian|scientist|researcher|professor|coach|stunt|wrestler|athlete|model|ceo|owner|entrepreneur|freelanc\w*|volunteer\w*|pharmacist|vet|veterinarian|paralegal|dentist|journalist|reporter|editor|cto|cfo|coo|stay-at-home|stay at home|lecturer|tutor|surgeon|pastor|priest|imam|postie|postman|courier|security guard|guard|cleaner|caretaker|midwife|for a living|side hustle|part[- ]time|full[- ]time|nine to five|night duty|night shifts?|i run an? (?:[a-z]+ ){0,3}(?:shop|store|business|restaurant|cafe|salon|bakery|farm|stall)|therapist|consultant|analyst|technician|clerk|receptionist|paramedic|carpenter|welder|hairdresser|tailor|seamstress|banker|realtor|marketing|sales|i teach|teach \w+ grade|run my own|self-employed|unemployed|promoted|intern|internship|startup)\b"),
                cat("place", r"\b(?:live|lives|lived|living|grew up|born in|raised in|from|moved|moving|hometown|apartment|neighborhood|relocat\w*|immigrated|emigrated|childhood in|my home is|based in|[a-z]+ based|dorm|settled in)\b"),
                cat("plan", r"\b(?:flying to|heading to|travell?ing to|plan|plans|planning|want to|wanna|going to|gonna|hope to|hoping to|goal|dream|someday|one day|next (?:year|month|week|summer|spring|fall|winter)|saving (?:up )?for|about to|intend|aspire|would like to|trying to)\b"),
                cat("habit", r"\b(?:afraid of|scared of|fear|phobia|terrified|hobby|hobbies|every (?:day|week|weekend|morning|night|year|month)|once a|twice a|usually|always|often|daily|weekly|play|plays|playing|practice|practise|collect\w*|skilled|good at|speak|fluent|can (?:play|speak|cook|sing|dance|swim|draw|code))\b"),
                cat("preference", r"^i (?:really |also |just |absolutely |truly )?(?:love|like|enjoy|prefer|adore|hate|dislike|detest|don't like|do not like|can't stand)\b|\bmy (?:favorite|favourite|fav|fave)\b|\b(?:favorite|fav|fave)\b|\bi(?:'m| am) (?:really |so |totally |super |very |a )?(?:(?:big |huge |massive )?fan of|into|obsessed with|passionate about|crazy about|mad about|nuts about|addicted to)\b|\bi(?:'m| am) an? (?:big |huge |massive )?(?:[a-z]+ ){1,3}fan\b|^i find (?:[a-z]+ ){1,4}(?:boring|amazing|fun|relaxing|fascinating|beautiful|annoying|overrated|delicious|disgusting)\b|\bmy (?:passion|weakness)\b"),
                cat("possession", r"^i (?:have|own|bought|got|drive|ride)\b|^i've got\b"),
            ],
        }
    })
}

#[cfg(test)]
mod tests;
