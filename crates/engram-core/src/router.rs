//! The router: greetings, thanks and other small talk need no retrieval (seed 001) and state
//! nothing to extract.
//! Skipping them saves latency and keeps irrelevant memories out of the prompt.

use crate::index::lexical::terms::is_cjk;

/// Why the router decided what it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Retrieve memories for this query.
    Retrieve,
    /// Small talk: answer without retrieval.
    SmallTalk,
    /// Nothing to search for (empty or punctuation only).
    Empty,
}

const SMALL_TALK_EN: &[&str] = &[
    "hi", "hello", "hey", "hiya", "yo", "thanks", "thank you", "thanks a lot", "thank you so much", "thx",
    "ty", "ok", "okay", "k", "cool", "nice", "great", "awesome", "bye", "goodbye", "see you", "see ya",
    "good morning", "good night", "good evening", "good afternoon", "lol", "haha", "hehe", "sure", "yes",
    "no", "yep", "nope", "got it", "sounds good", "how are you", "how are you doing", "what's up", "sup",
    "hello there", "hi there", "hey there", "thanks again", "you're welcome", "np", "no problem", "cheers",
    "alright", "all right", "perfect", "wow", "oh", "ah", "hmm", "i see",
];

const SMALL_TALK_ZH: &[&str] = &[
    "你好", "您好", "嗨", "哈喽", "谢谢", "谢谢你", "多谢", "感谢", "好的", "好", "嗯", "嗯嗯", "哦", "哈哈",
    "哈哈哈", "再见", "拜拜", "早上好", "晚上好", "晚安", "午安", "没问题", "可以", "行", "对", "是的", "收到",
    "明白", "知道了", "好吧", "不客气", "你好呀", "在吗", "こんにちは", "ありがとう",
];

/// Decide whether `query` needs retrieval.
pub fn route(query: &str) -> Route {
    let cleaned: String = query
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '\'' || is_cjk(c) { c.to_lowercase().next().unwrap_or(c) } else { ' ' })
        .collect();
    let norm = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if norm.is_empty() {
        return Route::Empty;
    }
    if SMALL_TALK_EN.contains(&norm.as_str()) || SMALL_TALK_ZH.contains(&norm.replace(' ', "").as_str()) {
        return Route::SmallTalk;
    }
    // "hey there, thanks!" — the words split into small-talk phrases only.
    let words: Vec<&str> = norm.split(' ').collect();
    if words.len() <= 8 && covered_by_small_talk(&words) {
        return Route::SmallTalk;
    }
    Route::Retrieve
}

/// True when `words` is a sequence of small-talk phrases (dynamic programming over cuts).
fn covered_by_small_talk(words: &[&str]) -> bool {
    let n = words.len();
    let mut ok = vec![false; n + 1];
    ok[0] = true;
    for end in 1..=n {
        ok[end] = (0..end).any(|start| {
            ok[start] && {
                let phrase = words[start..end].join(" ");
                SMALL_TALK_EN.contains(&phrase.as_str()) || SMALL_TALK_ZH.contains(&words[start..end].concat().as_str())
            }
        });
    }
    ok[n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greetings_and_thanks_skip_retrieval_in_english_and_chinese() {
        for q in ["Hi!", "thanks a lot 🙏", "OK", "good morning :)", "你好！", "谢谢", "好的。", "哈哈哈", "Hey there, thanks"] {
            assert_eq!(route(q), Route::SmallTalk, "{q}");
        }
    }

    #[test]
    fn real_questions_are_retrieved() {
        for q in ["What is my daughter allergic to?", "我的职业是什么", "hi, what's my name?", "remind me of the deadline"] {
            assert_eq!(route(q), Route::Retrieve, "{q}");
        }
    }

    #[test]
    fn punctuation_only_is_empty() {
        assert_eq!(route(" ?!… "), Route::Empty);
    }
}
