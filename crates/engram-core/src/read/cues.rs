//! What a query says about the memory it wants, beyond its words: who said it and whether
//! the answer is a time. Both are multipliers on a memory's lexical match, measured on
//! long conversations (LoCoMo's development split, recall@10 with stemming and
//! neighbours): naming the speaker +0.015, asking "when" +0.013.
//!
//! - **Speaker.** A memory written as `"<speaker>: <text>"` (a transcript line) was said by
//!   `<speaker>`. When the query names that speaker ("What did Caroline paint?"), the
//!   speaker's own lines count more than lines that only mention them.
//! - **Time.** A query that asks when ("When did…", "什么时候…") prefers memories that
//!   carry a time: a date, a weekday or month, "yesterday", "last week", "two weeks ago".

use unicode_segmentation::UnicodeSegmentation;

use crate::text::carries_time;

/// How much more a line by a speaker the query names counts.
const SPEAKER_BOOST: f32 = 1.5;
/// How much more a memory that carries a time counts when the query asks when.
const TIME_BOOST: f32 = 1.3;
/// The largest factor [`QueryCues::boost`] gives (every factor is at least 1).
pub const MAX_BOOST: f32 = SPEAKER_BOOST * TIME_BOOST;

/// The cues of one query.
#[derive(Debug, Clone, Default)]
pub struct QueryCues {
    /// The query's words, lowercased (to find a speaker's name among them).
    words: Vec<String>,
    asks_when: bool,
}

impl QueryCues {
    /// Read the cues of `query`.
    pub fn of(query: &str) -> Self {
        let words: Vec<String> = query.unicode_words().map(str::to_lowercase).collect();
        let first_two = words.iter().take(2).map(String::as_str).collect::<Vec<_>>();
        let asks_when = matches!(first_two.first(), Some(&"when"))
            || matches!(first_two.as_slice(), ["what", "date" | "year" | "month" | "day" | "time"] | ["how", "long"])
            || ["什么时候", "何时", "哪天", "哪一天", "几月", "哪年", "多久"].iter().any(|w| query.contains(w));
        QueryCues { words, asks_when }
    }

    /// The largest factor [`QueryCues::boost_of`] can give a stored text, when
    /// `is_speaker` says which of the query's words some stored text's speaker is: 1 for
    /// a query that names no speaker and does not ask when.
    pub fn max_boost(&self, is_speaker: impl Fn(&str) -> bool) -> f32 {
        let speaker = if self.words.iter().any(|w| is_speaker(w)) { SPEAKER_BOOST } else { 1.0 };
        speaker * if self.asks_when { TIME_BOOST } else { 1.0 }
    }

    /// True when `text` is a transcript line by a speaker this query names, by name or
    /// possessive ("Caroline", "Caroline's"): what recall's rerank (`read::rerank`) lifts.
    pub fn names_speaker_of(&self, text: &TextCues) -> bool {
        text.speaker.as_deref().is_some_and(|n| {
            self.words.iter().any(|w| w == n || w.strip_suffix("'s") == Some(n) || w.strip_suffix("\u{2019}s") == Some(n))
        })
    }

    /// The factor by which `text`'s lexical match counts for this query (1 when no cue applies).
    pub fn boost(&self, text: &str) -> f32 {
        self.boost_of(&TextCues::of(text))
    }

    /// [`QueryCues::boost`] of a text whose cues were read beforehand (the partition reads
    /// them once per record when storing it: recall weighs hundreds of matching lines).
    pub fn boost_of(&self, text: &TextCues) -> f32 {
        let mut f = 1.0;
        // The bare name only: counting "Caroline's" here too cost recall@10 on two of
        // the three development conversations (26 0.777 → 0.770, 41 0.756 → 0.749).
        if text.speaker.as_deref().is_some_and(|n| self.words.iter().any(|w| w == n)) {
            f *= SPEAKER_BOOST;
        }
        if self.asks_when && text.timed {
            f *= TIME_BOOST;
        }
        f
    }
}

/// What a memory's text offers to a query's cues: the first word of its speaker
/// (lowercased), whether it carries a time, and whether it asks (ends with "?"). Derived
/// from the text alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextCues {
    speaker: Option<Box<str>>,
    timed: bool,
    asks: bool,
}

impl TextCues {
    /// Read the cues of `text`.
    pub fn of(text: &str) -> Self {
        let speaker = speaker(text).and_then(|name| name.unicode_words().next()).map(|w| w.to_lowercase().into_boxed_str());
        TextCues { speaker, timed: carries_time(text), asks: text.trim_end().ends_with('?') }
    }

    /// The speaker's first word, lowercased, when the text is a transcript line.
    pub fn speaker(&self) -> Option<&str> {
        self.speaker.as_deref()
    }

    /// Whether the text is a question (its reply counts its words: `read::spread`).
    pub fn asks(&self) -> bool {
        self.asks
    }
}

/// The speaker of a transcript line `"<speaker>: <text>"`: one to three words of letters
/// (a name, or a role such as "user"), at most 40 bytes, before the first colon.
pub fn speaker(text: &str) -> Option<&str> {
    let (name, rest) = text.split_once(':')?;
    if name.is_empty() || name.len() > 40 || !rest.starts_with(' ') {
        return None;
    }
    let words = name.split(' ').filter(|w| !w.is_empty()).count();
    let letters = name.chars().all(|c| c.is_alphabetic() || matches!(c, ' ' | '-' | '\'' | '.'));
    ((1..=3).contains(&words) && letters && name.chars().next().is_some_and(char::is_alphabetic)).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_text_is_boosted_past_the_bound_its_query_gives() {
        let texts = ["Caroline: I went to a support group yesterday", "Melanie: nice!", "We met on 8 May 2023.", "plain words", "caroline: lower case"];
        let queries = ["When did Caroline go to the support group?", "What did Melanie say?", "what groups exist", "When was it?", "Who is Bob?"];
        for q in queries {
            let cues = QueryCues::of(q);
            let stored: Vec<TextCues> = texts.iter().map(|t| TextCues::of(t)).collect();
            let bound = cues.max_boost(|w| stored.iter().any(|c| c.speaker() == Some(w)));
            for (t, c) in texts.iter().zip(&stored) {
                assert!(cues.boost_of(c) <= bound, "{q} / {t}: {} > {bound}", cues.boost_of(c));
            }
        }
        assert_eq!(QueryCues::of("what groups exist").max_boost(|w| w == "caroline"), 1.0, "no speaker named, no when");
        assert_eq!(QueryCues::of("Who is Bob?").max_boost(|w| w == "caroline"), 1.0, "Bob wrote nothing");
        assert_eq!(QueryCues::of("When did Caroline go?").max_boost(|w| w == "caroline"), MAX_BOOST);
    }

    #[test]
    fn a_transcript_line_names_its_speaker() {
        assert_eq!(speaker("Caroline: I went to a support group"), Some("Caroline"));
        assert_eq!(speaker("Mary Ann Lee: hi"), Some("Mary Ann Lee"));
        assert_eq!(speaker("user: prefers Go"), Some("user"));
        assert_eq!(speaker("Note: 3:00 pm"), Some("Note"));
        assert_eq!(speaker("at 10:30 we met"), None);
        assert_eq!(speaker("https://example.com"), None);
        assert_eq!(speaker("Prefers Python"), None);
    }

    #[test]
    fn a_query_naming_the_speaker_boosts_their_lines_only() {
        let q = QueryCues::of("What did Caroline paint?");
        assert!(q.boost("Caroline: I painted a lake") > 1.0);
        assert_eq!(q.boost("Melanie: Caroline painted a lake"), 1.0);
        assert_eq!(q.boost("Caroline painted a lake"), 1.0);
    }

    #[test]
    fn a_query_names_a_speaker_by_name_or_possessive_but_not_inside_another_word() {
        let caroline = TextCues::of("Caroline: I painted a lake");
        assert!(QueryCues::of("What is Caroline's identity?").names_speaker_of(&caroline));
        assert!(QueryCues::of("What is Caroline\u{2019}s identity?").names_speaker_of(&caroline));
        assert!(QueryCues::of("Where did caroline go?").names_speaker_of(&caroline));
        assert!(!QueryCues::of("What did Carolines paint?").names_speaker_of(&caroline));
        assert!(!QueryCues::of("What did Melanie paint?").names_speaker_of(&caroline));
        assert!(!QueryCues::of("What did Caroline paint?").names_speaker_of(&TextCues::of("Caroline painted a lake")));
    }

    #[test]
    fn asking_when_prefers_memories_that_carry_a_time() {
        let q = QueryCues::of("When did Melanie go camping?");
        assert!(q.boost("Melanie: we went camping two weekends ago") > q.boost("Melanie: we love camping"));
        assert_eq!(QueryCues::of("What does Melanie like?").boost("Melanie: camping last week"), SPEAKER_BOOST);
        assert!(QueryCues::of("你什么时候去的杭州").boost("上周去了杭州") > 1.0);
        assert!(carries_time("Born in 1987"));
        assert!(!carries_time("I have 1234 stamps"));
    }
}
