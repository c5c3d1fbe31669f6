//! English sentences cut into clauses (`refusal` then tells which state the speaker's
//! own facts).
//!
//! A sentence is cut where a new first-person clause starts ("I love reading, I'm a stunt
//! double, and I was raised by my mom" is three) and where a question follows a statement
//! ("I'm George, what's your name?" keeps "I'm George"). Each clause then loses its
//! openers ("yes,", "oh cool,", "well,", "actually") and its tail ("too", "as well").

use std::sync::OnceLock;

use regex_lite::Regex;

/// The clauses of one sentence, trimmed, openers and tails removed, questions dropped;
/// each with the byte range of the sentence it came from.
pub(crate) fn clauses(sentence: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let p = patterns();
    let mut out = Vec::new();
    let mut rest = sentence;
    // A question after a comma ends the statement before it.
    if let Some(m) = p.question_tail.find(rest) {
        rest = &rest[..m.start()];
    } else if rest.trim_end().ends_with('?') {
        return out;
    }
    if is_hearsay(rest) {
        return out;
    }
    let mut start = 0;
    // A cut runs from the separator's start to the word that begins the next clause: a first
    // person, a new subject ("…, it's a beautiful country", "… but it needs new strings") or
    // whatever follows ", but".
    let next = |c: &regex_lite::Captures<'_>| [1, 2, 4, 5, 6, 7, 8, 9].into_iter().find_map(|i| c.get(i)).map(|m| m.start()).or_else(|| c.get(3).map(|m| m.end()));
    // "Me and my girlfriend…", "my wife and I…" are one subject, not two clauses.
    let one_subject = |before: &str| {
        let b = before.trim().to_lowercase();
        b == "me" || b.ends_with(" me") || super::refusal::names_someone_else(before.trim())
    };
    // Each cut: where the clause before it ends, where the next begins, and whether the next
    // is a verb of the speaker's without its "I" ("I love folk music and hope to…").
    let mut found: Vec<(usize, usize, bool)> = p.cut.captures_iter(rest).filter_map(|c| Some((c.get(0)?.start(), next(&c)?, false))).collect();
    found.extend(p.and_verb.find_iter(rest).filter(|m| p.verb_clause.is_match(&rest[m.end()..])).map(|m| (m.start(), m.end(), true)));
    // "i dont eat pork im muslim", "got a hamster named Nugget hes the best": chat runs a
    // new clause on with no stop; after "when", "because", "like"… it is part of the one before.
    // Nor after a condition or a hedge ("if i ever get rich im buying…", "maybe im…"), which
    // the clause after it depends on.
    let open = |before: &str| before.split(|ch: char| !ch.is_alphabetic()).any(|w| RUN_ON_CONDITIONS.contains(&w.to_lowercase().as_str()));
    found.extend(p.run_on.captures_iter(rest).filter(|c| !RUN_ON_JOINERS.contains(&c[1].to_lowercase().as_str())).filter_map(|c| {
        let word = c.get(1)?;
        (!open(&rest[..word.end()])).then_some((word.end(), c.get(2)?.start(), false))
    }));
    crate::sort::sort(&mut found);
    let mut cuts: Vec<(usize, usize, bool)> = Vec::new();
    for (s, e, verb) in found {
        let from = cuts.last().map_or(0, |&(_, e, _)| e);
        if s < from {
            continue;
        }
        let before = rest[from..s].trim();
        // A verb starts a clause of the speaker's only when the clause before is theirs and
        // says something already ("I live and work in Paris" stays one), and, after "and",
        // when it closes no list ("I like to read, write and paint") and follows no
        // infinitive it may share ("I like to hike and read books").
        let but = rest[s..e].trim_start().starts_with("but");
        let shares = !but && (before.contains(',') || p.infinitive.is_match(before));
        let joins = !verb || ((p.speaker_head.is_match(before) || restored(before).is_some()) && before.split_whitespace().count() >= 3 && !shares);
        if joins && (rest[s..e].contains([',', ';']) || !one_subject(&rest[from..s])) {
            cuts.push((s, e, verb));
        }
    }
    cuts.push((rest.len(), rest.len(), false));
    let mut implied = false;
    for (s, e, verb) in cuts {
        let c = tidy(&rest[start..s]);
        if !c.is_empty() {
            out.push((if implied && !c.starts_with("I ") && !c.starts_with("I'") { format!("I {c}") } else { c }, start..s));
        }
        (start, implied) = (e, verb);
    }
    out
}

/// Words after which "im", "hes", "theyre" go on the clause before ("when im stressed",
/// "i think hes right") instead of starting one.
const RUN_ON_JOINERS: &[&str] = &[
    "when", "whenever", "if", "because", "cause", "cuz", "coz", "bc", "since", "that", "what", "where", "as", "while", "whether", "how",
    "why", "who", "until", "till", "unless", "so", "and", "but", "or", "think", "know", "guess", "hope", "say", "said", "mean", "feel",
    "like", "though", "although", "now", "cos", "than", "once", "before", "after", "even", "wish", "swear", "bet", "sure", "reckon",
    "thinks", "says", "believes", "knows", "reckons", "told", "tells", "figured", "realized", "realised", "decided",
];

/// Words that leave a sentence open: what follows them in it is conditional or hedged.
const RUN_ON_CONDITIONS: &[&str] = &["if", "unless", "whenever", "suppose", "imagine", "maybe", "probably", "perhaps", "idk", "might", "would"];

/// A clause without its openers, its tail and its end punctuation.
fn tidy(piece: &str) -> String {
    let p = patterns();
    let piece = p.aside.find(piece).map_or(piece, |m| &piece[..m.start()]);
    let mut c = piece.trim().trim_end_matches(['.', '!', ',', ';', ':', '…', ' ']).trim().to_owned();
    loop {
        let next = p.opener.replace(&c, "").trim().to_owned();
        if next == c {
            break;
        }
        c = next;
    }
    let c = p.filler.replace_all(&c, "");
    // "rn" is "right now" at a clause's end, unless it is a nurse ("im an rn").
    let c = if p.rn_noun.is_match(&c) { c } else { p.rn_now.replace_all(&c, "$1") };
    let c = p.tail.replace(&c, "").trim().trim_end_matches([',', ' ']).to_owned();
    // "cant", "dont", "isnt" typed without their apostrophe.
    let c = p.no_apostrophe.replace_all(&c, "${1}'t").into_owned();
    // "im" or "ive" with no apostrophe opening the clause is the speaker (before a subject
    // is put back: "im a chef at…" has one).
    let c = p.bare_i.replace(&c, "I'$1").into_owned();
    let c = restored(&c).unwrap_or(c);
    let c = p.spelled_im.replace_all(&c, "I'm");
    let c = p.spelled_ive.replace_all(&c, "I've");
    let c = p.spelled_is.replace_all(&c, "${1}'s");
    let c = p.spelled_are.replace_all(&c, "${1}'re");
    // "i" written lower-case is still the speaker.
    p.lower_i.replace_all(&c, "I$1").into_owned()
}

/// What others say of the speaker ("according to my dad, I was a loud baby"): no clause of
/// it, and no keyed rule, is the speaker's own statement.
pub(crate) fn is_hearsay(sentence: &str) -> bool {
    patterns().hearsay.is_match(sentence.trim_start())
}

/// A clause typed without its subject, with it put back: chat drops the "I" of news ("just
/// got a new job at Google", "been vegetarian for 5 years"), of a state or an activity
/// ("allergic to penicillin fyi", "majoring in comp sci at UT", "going to japan in april"),
/// of a present fact ("work at Siemens in HR", "have a little brother", "used to live in
/// Berlin"), and the "my" of an attribute ("hometown is Guadalajara", "fave movie is…").
/// `None` when the clause has its subject or is not one of these.
fn restored(c: &str) -> Option<String> {
    let p = patterns();
    // "me i am doing night duty": the "me" that stresses the subject.
    if let Some(rest) = c.strip_prefix("me i ").or_else(|| c.strip_prefix("Me I ")).or_else(|| c.strip_prefix("me I ")) {
        return Some(format!("I {rest}"));
    }
    if let Some(m) = p.dropped_i.captures(c) {
        return Some(if m.get(1).is_some() { format!("I've {c}") } else { format!("I {c}") });
    }
    if p.dropped_am.is_match(c) {
        return Some(format!("I'm {c}"));
    }
    // "Next month I intend to sell the house": the time after what happens then.
    if let Some(m) = p.time_first.captures(c) {
        return Some(format!("{} {}", &m[2], m[1].to_lowercase()));
    }
    if p.born.is_match(c) {
        return Some(format!("I was born{}", &c[4..]));
    }
    // "Am 27 years and am a hardworking lady": the "I" of "I am" left out.
    if let Some(rest) = c.strip_prefix("Am ").or_else(|| c.strip_prefix("am ")) {
        return Some(format!("I am {rest}"));
    }
    if p.dropped_do.is_match(c) && !p.wish.is_match(c) {
        return Some(format!("I {c}"));
    }
    if let Some(m) = p.here.captures(c).filter(|m| is_noun_phrase(&m[1])) {
        let what = &m[1];
        let article = if what.starts_with(|ch: char| "aeiouAEIOU".contains(ch)) { "an" } else { "a" };
        return Some(format!("I'm {article} {what}"));
    }
    if p.role_alone.is_match(c) {
        let article = if c.starts_with(|ch: char| "aeiouAEIOU".contains(ch)) { "an" } else { "a" };
        let c = c.strip_prefix("a ").or_else(|| c.strip_prefix("an ")).unwrap_or(c);
        return Some(format!("I'm {article} {c}"));
    }
    p.dropped_my.is_match(c).then(|| format!("My {c}"))
}

/// A few words that may name what someone is ("nurse", "only child", "mom of 3"): no verb
/// form ("started raining"), no pronoun or adverb ("same", "me", "just").
fn is_noun_phrase(what: &str) -> bool {
    let words: Vec<String> = what.split_whitespace().map(str::to_lowercase).collect();
    let not_nouns = ["same", "me", "you", "it", "just", "over", "right", "been", "still", "not", "nobody", "anyone", "someone", "everyone", "all", "nothing", "everything", "back", "there", "out"];
    words.len() <= 3 && !words.iter().any(|w| w.ends_with("ed") || w.ends_with("ing") || not_nouns.contains(&w.as_str()))
}

struct Patterns {
    dropped_am: Regex,
    dropped_do: Regex,
    dropped_my: Regex,
    wish: Regex,
    here: Regex,
    born: Regex,
    time_first: Regex,
    hearsay: Regex,
    role_alone: Regex,
    no_apostrophe: Regex,
    question_tail: Regex,
    cut: Regex,
    opener: Regex,
    tail: Regex,
    aside: Regex,
    lower_i: Regex,
    filler: Regex,
    rn_now: Regex,
    rn_noun: Regex,
    spelled_im: Regex,
    spelled_ive: Regex,
    spelled_is: Regex,
    spelled_are: Regex,
    run_on: Regex,
    bare_i: Regex,
    and_verb: Regex,
    verb_clause: Regex,
    speaker_head: Regex,
    infinitive: Regex,
    dropped_i: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = super::pattern;
        Patterns {
            dropped_am: re(r"^(?i:(?:also|now|still|currently|recently|so|pretty|super|really|severely|mildly|totally)\s+)*(?i:allergic to|intolerant to|lactose intolerant|gluten intolerant|terrified of|scared of|afraid of|obsessed with|addicted to|married to|engaged to|divorced|widowed|single|pregnant|retired|vegan|vegetarian|pescatarian|diabetic|celiac|coeliac|originally from|new to|based in|majoring in|minoring in|studying|prepping for|preparing for|cramming for|revising for|training for|doing my|taking (?:a|an|evening|night|online|weekend|some)? ?(?:class|classes|course|courses|lessons)|learning|recovering from|turning [0-9]+|getting (?:a|an|married|my)|going to (?:[a-z]+ (?:in|for|next|this|on)\b|(?:see|visit|watch|start|try|move|buy|learn|take|do|be)\b)|gonna [a-z]+|hoping to|aiming to|intending to|doing (?:a|an|my) (?:diploma|degree|course|masters|master's|phd|mba|apprenticeship|certificate)|going (?:home|back) to|doing (?:keto|chemo|physio|ivf|intermittent fasting|a [a-z]+ diet)|on (?:meds|medication|antidepressants|insulin|warfarin|the pill)\b|trying to|planning (?:to|on)|saving (?:up )?(?:to|for)|moving to|flying to|working (?:as|at|on|in|for)|living in|in my (?:[0-9]0s|twenties|thirties|forties|fifties|sixties))\b|^(?:going|heading) to [A-Z][a-z]+|^from [A-Z][a-z]+"),
            dropped_do: re(r"^(?i:(?:also|now|still|currently|usually|mostly|only|really|actually)\s+)*(?i:work (?:as|at|in|for|from)|live (?:in|out|with|on|near|alone|by)|have (?:a|an|two|three|four|five|six|[0-9]+) |love (?:to )?[a-z]|hate [a-z]|cant stand|can't stand|run (?:every|[0-9])|play (?:the|in|for|on)|drive (?:a|an)|own (?:a|an|two|[0-9])|speak [A-Za-z]|used to|grew up|was born|lived in|studied [a-z]|trained as|worked (?:as|at|in|for)|(?:tore|broke|sprained|fractured|injured|hurt|pulled|dislocated) my|go (?:to the gym|running|swimming|climbing|hiking|fishing))"),
            dropped_my: re(r"^(?i:hometown|birthday|bday|fav|fave|favorite|favourite|commute|name|surname|nickname|major|degree|goal|plan|dream|graduation|wedding|exam|interview|appointment|surgery|due date)\b[a-z ]{0,30}\b(?i:is|are|was)\b"),
            hearsay: re(r"^(?i:according to|apparently|supposedly|rumou?r has it|word is)\b"),
            time_first: re(r"^((?i:next|this|last) (?:month|week|year|summer|spring|winter|autumn|fall|weekend)|(?i:tomorrow|tonight|today|yesterday)|(?i:every|most) (?:day|morning|night|evening|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|(?i:at the age of) [a-z0-9-]+),?\s+([Ii]\b.*)$"),
            // "born 2 feb 1998", "born and raised in Brooklyn" (not "born to run").
            born: re(r"^(?i:born) (?:on |in |and raised )?(?:[0-9]|the |[A-Z]|in )"),
            // "nurse here", "INFJ here", "only child here": the speaker introduced by what they are.
            here: re(r"^(?:an? )?([A-Za-z][A-Za-z0-9 -]{1,24}?) here$"),
            // "mechanic by trade", "product manager at a gaming company": a role without its "I'm a".
            role_alone: re(r"^(?i:(?:an? )?(?:[a-z-]+ ){0,2}(?:teacher|nurse|engineer|doctor|lawyer|chef|plumber|electrician|mechanic|farmer|driver|pilot|firefighter|accountant|developer|designer|manager|professor|lecturer|librarian|barista|cashier|waiter|waitress|programmer|scientist|researcher|consultant|analyst|architect|dentist|pharmacist|therapist|vet|veterinarian|paramedic|carpenter|welder|hairdresser|student|freelancer|intern) (?:by trade|at|for|in|with)\b)"),
            no_apostrophe: re(r"(?i)\b(can|don|won|didn|isn|doesn|wasn|aren|haven|hasn|couldn|wouldn|shouldn)t\b"),
            // "have a nice day", "love you": a wish or a word to the other, not a fact.
            wish: re(r"^(?i:have an? (?:good|nice|great|lovely|wonderful|fun|safe|happy|look|go|try|think|seat|break|chat)|love (?:you|u|ya|it|that|this|them)\b|hate (?:it|that|this|when)\b)"),
            question_tail: re(r"(?i)[,;:—–-]\s*(?:and\s+|but\s+|so\s+)?(?:what|how|do|does|did|are|is|have|has|can|could|would|will|where|who|which|why|when|any)\b[^.!]*\?\s*$"),
            cut: re(r"(?:[,;]\s*(?:and\s+|but\s+|so\s+|plus\s+)?|\s+(?:and|but|so|plus|because|since|while|although)\s+)(?:(?i:also|actually|really|now|then|still|these days|nowadays|yes|yeah|honestly)\s+)?((?:I|I'm|I've|I'd|I'll|My|my|i|i'm|i've|i'd|i'll|im|ive)\b)|[,;]\s*(?:but\s+|and\s+)?((?i:it|that|this|which|time|life|nothing|everything)(?:'s|'re|\s+(?:is|was|are|were|has|had|makes|made)\b)|(?i:they|he|she|we)(?:'s|'re|'ve|\s+[a-z]+\b)|(?i:its|thats|theyre|hes|shes)\s)|[,;]\s*((?:but|though|although)\s)|\s+(?:but|so)\s+((?i:it|they|he|she)(?:'s|'re|\s+[a-z]+\b))|(?:,\s*|\s+so\s+)((?:[a-z]+\s+)?[a-z]+\s+(?:is|are|was|were)\s)|(?:[,;]\s*|\s+(?:so|and|anyway|but)\s+)((?i:can|could|would|will) (?:you|u)\b|(?i:please|pls|plz|kindly|sorry)\b|(?i:give|make|write|tell|help|show|send|put|find|suggest|explain|recommend|need) (?:me|us|some|a)\b)|\s+so\s+((?i:the|my|a|an|this|that|it|we|they|he|she|nothing|no|please|pls)\b)|[,;]\s*((?i:never|rarely|not)\s)|\s+and\s+((?i:we|they|he|she)\s|(?i:the|my|our|it|this|that)\s+[a-z]+\s+(?:is|are|was|were|has|have)\b)"),
            opener: re(r"(?i)^(?:(?:oh|ah|wow|well|yes|yeah|yep|yup|sure|ok|okay|hi|hey|hello|haha|lol|hmm|um|uh|cool|nice|great|awesome|really|honestly|actually|so|and|but|anyway|anyways|also|now|me too|same here|of course|that's (?:great|cool|awesome|nice|amazing|interesting|so cool|true|right)|i see|thanks|thank you|no way|right|indeed|absolutely|definitely|totally|random|fyi|ngl|omg|ugh+|update|fun fact|quick question|good morning|good evening|good afternoon|morning|phew|yay|basically|tbh|btw|yo|bro|hey so|just so you know|for context|for reference|as you know)\b[\s,!.:;-]*)"),
            tail: re(r"(?i)(?:,?\s+(?:too|as well|also|myself|either|btw|by the way|lol|haha|tbh|fyi|sorry))+$"),
            // "…, wish me luck", "…, which sucks", "…, like the footballer": a remark on what
            // was said, not more of it.
            aside: re(r"(?i)[,;]\s*(?:which (?:sucks|is (?:fun|nice|great|cool|awesome|annoying|hard|weird|funny))|so no\b|(?:wish|pray for) me\b|like the\b|if that helps\b|which (?:probably |might |would |totally |kind of )?explains\b|always (?:have|has) been\b|nothing fancy\b|it pays the bills\b|go figure\b|lucky me\b|(?:just )?for context\b|if that matters\b|so (?:excited|nervous|stoked|pumped|happy|proud|scared)\b)|\s+which (?:probably |might |would |totally |kind of )?explains\b|,?\s+which (?:makes|means)\b|\s+if that matters\b"),
            lower_i: re(r"\bi\b('m|'ve|'d|'ll)?"),
            // Chat's words that say nothing of the fact ("rn", "tbh", "lol") wherever they
            // stand, and emoji.
            rn_now: re(r"\s+rn([,;.!?]|$)"),
            rn_noun: re(r"(?i)\b(?:an?|the|my|as)\s+rn\b"),
            filler: re(r"(?i),?\s+(?:tbh|ngl|lol+|lmao|haha+|hehe)\b|\s*[\x{2600}-\x{27BF}\x{1F000}-\x{1FAFF}\x{FE0F}\x{200D}]+"),
            // "im", "ive", "hes", "theyre", "thats" typed without their apostrophe.
            run_on: re(r"\b([A-Za-z']+)\s+(im|hes|shes|theyre)\s"),
            spelled_im: re(r"\bim\b"),
            spelled_ive: re(r"\bive\b"),
            spelled_is: re(r"\b(he|she|that|what|there)s\b"),
            spelled_are: re(r"\b(they|you)re\b"),
            bare_i: re(r"^(?i:i)(m|ve)\b"),
            // "… and have two kids", "… but hated it": a new clause of the same subject.
            verb_clause: re(r"^(?:have|live|work|love|like|enjoy|hope|want|plan|play|own|spend|teach|study|volunteer|collect|drive|ride|hate|prefer|need|went|moved|grew|worked|studied|bought|started|quit|became|hated|loved)\b"),
            and_verb: re(r"\s+(?:and|but)\s+(?:then\s+|also\s+)?"),
            speaker_head: re(r"^(?:I|I'm|I've|I was|I am)\s"),
            // An infinitive or a modal the next verb may share: "to hike and read", "can run and play".
            infinitive: re(r"\bto [a-z]+|\b(?:can|could|will|would|should|must|might|may)\b|'(?:ll|d)\b"),
            // A clause that opens with the past of news, or with "been", and names what: the
            // speaker's, its "I" left out. ("Got it", "been there" point at another turn.)
            dropped_i: re(r"^(?i:(?:just|finally|recently|also|now)\s+)*(?i:(been) (?:(?:an? )?(?:[a-z]+ ){0,2}[a-z]+ (?:for|since|my whole life|all my life)|(?:in|living in|based in) [A-Za-z]+)|got (?:a|an|my|married|engaged|promoted|hired|divorced)|started (?:a|an|my)|moved (?:to|back|out|in|from)|(?:bought|adopted) (?:a|an|my|our|two|three|[0-9])|passed (?:my|the)|finished|graduated|paid off|quit|joined|switched to|landed|became)\s+[A-Za-z0-9]"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        clauses(s).into_iter().map(|(c, _)| c).collect()
    }

    #[test]
    fn a_sentence_of_three_first_person_statements_is_three_clauses() {
        assert_eq!(
            texts("I love reading, I'm a stunt double, and I was raised in a single parent household."),
            vec!["I love reading", "I'm a stunt double", "I was raised in a single parent household"]
        );
    }

    #[test]
    fn a_question_after_a_statement_leaves_the_statement() {
        assert_eq!(texts("I'm George, what's your name?"), vec!["I'm George"]);
        assert!(clauses("Do you like cooking shows?").is_empty());
    }

    #[test]
    fn im_written_without_its_apostrophe_is_the_speaker_and_though_ends_a_clause() {
        assert_eq!(texts("im catholic"), vec!["I'm catholic"]);
        assert_eq!(texts("ive got two kids"), vec!["I've got two kids"]);
        assert_eq!(texts("I'm Jewish, though not very observant"), vec!["I'm Jewish", "not very observant"]);
    }

    #[test]
    fn openers_tails_and_asides_are_removed() {
        assert_eq!(texts("Oh cool, I love dogs too!"), vec!["I love dogs"]);
        assert_eq!(texts("I'm Priya btw"), vec!["I'm Priya"]);
        assert_eq!(texts("I'm studying for the bar exam, wish me luck"), vec!["I'm studying for the bar exam"]);
        assert_eq!(texts("I'm allergic to cats, which sucks because I love them"), vec!["I'm allergic to cats", "I love them"]);
        assert_eq!(texts("My surname is Okafor, like the footballer"), vec!["My surname is Okafor"]);
        assert_eq!(texts("Yes, I take dance lessons once a week."), vec!["I take dance lessons once a week"]);
    }

    #[test]
    fn a_second_verb_of_the_speaker_is_a_clause_of_its_own() {
        assert_eq!(texts("I love folk music and hope to make it big someday"), vec!["I love folk music", "I hope to make it big someday"]);
        assert_eq!(texts("I work at a bank and have two kids"), vec!["I work at a bank", "I have two kids"]);
        assert_eq!(texts("I went to school to be a veterinarian but hated it"), vec!["I went to school to be a veterinarian", "I hated it"]);
        // Not when the first says nothing yet, nor when its subject is someone else.
        assert_eq!(texts("I live and work in Paris"), vec!["I live and work in Paris"]);
        assert_eq!(texts("My dad was a builder and loved fishing"), vec!["My dad was a builder and loved fishing"]);
        assert_eq!(texts("I like cats and dogs"), vec!["I like cats and dogs"]);
        assert_eq!(texts("I like to read, watch movies and play video games"), vec!["I like to read, watch movies and play video games"]);
        assert_eq!(texts("I like to go on hikes and read books"), vec!["I like to go on hikes and read books"]);
        assert_eq!(texts("I can run around and play all day"), vec!["I can run around and play all day"]);
        assert_eq!(texts("I have a violin but it needs new strings"), vec!["I have a violin", "it needs new strings"]);
    }

    #[test]
    fn me_and_my_partner_is_one_subject_not_two_clauses() {
        assert_eq!(texts("me and my girlfriend have been dating for two years"), vec!["me and my girlfriend have been dating for two years"]);
        assert_eq!(texts("my wife and I live in Toronto"), vec!["my wife and I live in Toronto"]);
    }

    #[test]
    fn news_typed_without_its_i_is_the_speakers_and_chatter_without_it_is_not() {
        assert_eq!(texts("just got a new job at google as a PM!!"), vec!["I just got a new job at google as a PM"]);
        assert_eq!(texts("been vegetarian for like 5 years now"), vec!["I've been vegetarian for like 5 years now"]);
        assert_eq!(texts("finally paid off my student loans!"), vec!["I finally paid off my student loans"]);
        for said in ["Got it", "Got to go", "Been busy lately", "Been a while!", "Started raining here", "Finished!", "Moved on, anyway"] {
            assert!(!texts(said).iter().any(|c| c.starts_with('I')), "{said:?}: {:?}", texts(said));
        }
    }

    #[test]
    fn a_new_subject_after_a_comma_or_so_ends_the_speakers_clause() {
        assert_eq!(texts("lol yeah i have 3 kids so mornings are chaos"), vec!["I have 3 kids", "mornings are chaos"]);
        assert_eq!(texts("i'm a nurse at st mary's, night shifts are rough"), vec!["I'm a nurse at st mary's", "night shifts are rough"]);
        assert_eq!(texts("I'm allergic to bees so hiking is scary"), vec!["I'm allergic to bees", "hiking is scary"]);
    }

    #[test]
    fn a_subject_chat_leaves_out_is_put_back_and_a_wish_or_a_remark_is_not_given_one() {
        assert_eq!(texts("allergic to penicillin fyi"), vec!["I'm allergic to penicillin"]);
        assert_eq!(texts("work at Siemens in the HR department"), vec!["I work at Siemens in the HR department"]);
        assert_eq!(texts("hometown is guadalajara"), vec!["My hometown is guadalajara"]);
        assert_eq!(texts("nurse here"), vec!["I'm a nurse"]);
        assert_eq!(texts("mechanic by trade, 20 yrs at the same garage"), vec!["I'm a mechanic by trade, 20 yrs at the same garage"]);
        assert_eq!(texts("used to live in berlin but moved to lisbon in 2022"), vec!["I used to live in berlin", "I moved to lisbon in 2022"]);
        for said in ["have a great weekend", "love it", "Started raining here", "same here", "going to bed"] {
            assert!(!texts(said).iter().any(|c| c.starts_with('I')), "{said:?}: {:?}", texts(said));
        }
    }

    #[test]
    fn a_lower_case_i_starts_a_clause_of_its_own_and_hearsay_is_not_the_speakers() {
        assert_eq!(texts("im 19 so i cant really rent a car here yet"), vec!["I'm 19", "I can't really rent a car here yet"]);
        assert_eq!(texts("beach holidays bore me, i'd rather go hiking"), vec!["beach holidays bore me", "I'd rather go hiking"]);
        assert!(clauses("according to my dad, i was a really loud baby").is_empty());
        assert!(crate::extract::extract("according to my dad, i'm allergic to cats").is_empty(), "no keyed rule reads hearsay either");
        for said in ["from now on you are my lawyer", "Have a look at this", "going to bed"] {
            assert!(crate::extract::extract(said).is_empty(), "{said}");
        }
    }

    #[test]
    fn chat_spelling_is_mended_and_its_fillers_and_emoji_are_dropped() {
        assert_eq!(texts("i bite my nails when im stressed"), vec!["I bite my nails when I'm stressed"]);
        assert_eq!(texts("im a chef at an italian place"), vec!["I'm a chef at an italian place"]);
        assert_eq!(texts("i'm obsessed with korean dramas rn"), vec!["I'm obsessed with korean dramas"]);
        assert_eq!(texts("im doing keto rn, down 8 kilos so far"), vec!["I'm doing keto, down 8 kilos so far"]);
        assert_eq!(texts("i game like 6 hours a day ngl"), vec!["I game like 6 hours a day"]);
        assert_eq!(texts("im an rn at st mary's"), vec!["I'm an rn at st mary's"], "a nurse, not \"right now\"");
        assert_eq!(texts("I'm an RN"), vec!["I'm an RN"]);
        assert_eq!(texts("favourite colour is green 💚"), vec!["My favourite colour is green"]);
        assert_eq!(texts("im an aquarius ♒ if that matters for the horoscope thing"), vec!["I'm an aquarius"]);
        assert_eq!(texts("im in my late 40s, just for context"), vec!["I'm in my late 40s"]);
        assert_eq!(texts("graduation is may 18th, so excited"), vec!["My graduation is may 18th"]);
        assert_eq!(texts("i'm left-handed which makes calligraphy a nightmare"), vec!["I'm left-handed"]);
    }

    #[test]
    fn a_new_subject_typed_without_its_apostrophe_or_a_stop_still_ends_the_clause() {
        assert_eq!(texts("have a little brother, hes 12 years younger than me"), vec!["I have a little brother", "he's 12 years younger than me"]);
        assert_eq!(texts("im a single mum of twins, theyre 4"), vec!["I'm a single mum of twins", "they're 4"]);
        assert_eq!(texts("honestly im a huge perfectionist, its a problem"), vec!["I'm a huge perfectionist", "its a problem"]);
        assert_eq!(texts("my birthday is 3 june, so yes im a gemini"), vec!["my birthday is 3 june", "I'm a gemini"]);
        assert_eq!(texts("i dont eat pork im muslim"), vec!["I don't eat pork", "I'm muslim"]);
        assert_eq!(texts("got a hamster named Nugget hes the best"), vec!["I got a hamster named Nugget", "he's the best"]);
        // A run-on after "when", "thinks", a condition or a hedge belongs to what came before.
        assert_eq!(texts("my coworker thinks im too nice to clients"), vec!["my coworker thinks I'm too nice to clients"]);
        assert_eq!(texts("if i ever get rich im buying a lambo"), vec!["if I ever get rich I'm buying a lambo"]);
        assert_eq!(texts("maybe im a night owl idk"), vec!["maybe I'm a night owl idk"]);
    }

    #[test]
    fn a_request_a_denial_after_a_comma_and_a_time_said_first_are_put_in_their_place() {
        assert_eq!(texts("I'm lactose intolerant, can you swap the cream in this recipe"), vec!["I'm lactose intolerant", "can you swap the cream in this recipe"]);
        assert_eq!(texts("I love Bollywood songs from the 90s, make me a playlist"), vec!["I love Bollywood songs from the 90s", "make me a playlist"]);
        assert_eq!(texts("I'm a night owl, never asleep before 2"), vec!["I'm a night owl", "never asleep before 2"]);
        assert_eq!(texts("Next month I intend to sell the house"), vec!["I intend to sell the house next month"]);
        assert_eq!(texts("so every sunday i do meal prep"), vec!["I do meal prep every sunday"]);
        assert_eq!(texts("born 2 feb 1998"), vec!["I was born 2 feb 1998"]);
        assert!(!texts("Born to run").iter().any(|c| c.starts_with('I')));
    }
}

