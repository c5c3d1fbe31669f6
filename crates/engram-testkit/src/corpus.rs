//! Seeded text: unrelated chit-chat turns, memory-like facts, and a multilingual corpus
//! for tokenizer parity.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const SUBJECTS: &[&str] = &[
    "the weather", "my commute", "a new recipe", "the football match", "a podcast", "the garden", "a movie",
    "my neighbour's cat", "the train delay", "a museum visit", "the coffee machine", "a board game",
    "the gym", "a jazz concert", "the bakery", "a hiking trail", "the printer", "a birthday party",
];
const VERBS: &[&str] = &["talked about", "complained about", "asked about", "described", "joked about", "mentioned"];
const DETAILS: &[&str] = &[
    "for a while", "in some detail", "briefly", "with enthusiasm", "before lunch", "on the way home",
    "after the meeting", "over the weekend",
];

/// `n` unrelated conversational turns (seeded).
pub fn chit_chat(n: usize, seed: u64) -> Vec<String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            format!(
                "Turn {i}: we {} {} {}.",
                VERBS[rng.gen_range(0..VERBS.len())],
                SUBJECTS[rng.gen_range(0..SUBJECTS.len())],
                DETAILS[rng.gen_range(0..DETAILS.len())]
            )
        })
        .collect()
}

const TOPICS: &[&str] = &[
    "rust", "python", "kubernetes", "postgres", "mongodb", "react", "hiking", "cooking", "jazz", "chess",
    "tennis", "photography", "gardening", "astronomy", "cycling", "painting", "sushi", "coffee", "tea",
    "climbing", "sailing", "yoga", "poetry", "history", "robotics", "finance", "travel", "knitting",
];
const ENTITIES: &[&str] = &[
    "Alice", "Bob", "Carol", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jamal", "Kenji", "Lena",
    "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Yusuf",
];

/// `n` memory-like sentences (seeded), varied enough that BM25 has real work to do.
pub fn memories(n: usize, seed: u64) -> Vec<String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let a = ENTITIES[rng.gen_range(0..ENTITIES.len())];
            let b = ENTITIES[rng.gen_range(0..ENTITIES.len())];
            let t1 = TOPICS[rng.gen_range(0..TOPICS.len())];
            let t2 = TOPICS[rng.gen_range(0..TOPICS.len())];
            match i % 4 {
                0 => format!("{a} likes {t1} and is learning {t2} (note {i})"),
                1 => format!("{a} met {b} to discuss {t1} on day {} (meeting {i})", i % 365),
                2 => format!("{a} decided to use {t1} instead of {t2} for project {} (decision {i})", i % 97),
                _ => format!("{a} finished step {} of the {t1} task with {b} (log {i})", i % 13),
            }
        })
        .collect()
}

/// A multilingual corpus for tokenizer parity: English, Chinese, Japanese, Korean,
/// emoji, code, JSON, numbers and whitespace runs, shuffled together (seeded).
pub fn multilingual(approx_bytes: usize, seed: u64) -> String {
    let mut rng = SmallRng::seed_from_u64(seed);
    let parts: &[&str] = &[
        "The quick brown fox jumps over the lazy dog. ",
        "I'm sure they'll say it's what we've done, isn't it? ",
        "用户叫张三，在阿里巴巴做算法工程师。我偏好Python，不太喜欢Java。",
        "記憶管理の問題を解決するために、ベクトルデータベースを使います。",
        "안녕하세요, 저는 서울에 살고 있습니다. ",
        "🎉🚀 emoji 👩‍👩‍👧‍👦 family 🇨🇳🇯🇵 flags ✨ ",
        "fn main() {\n    let x: Vec<u32> = (0..10).map(|i| i * 2).collect();\n    println!(\"{x:?}\");\n}\n",
        "{\"user_id\": \"u-42\", \"tokens\": [1, 2, 3], \"nested\": {\"ok\": true, \"pi\": 3.14159}}\n",
        "    \n\n\t\t  \r\n   ",
        "1234567890 3.1415926535 -42 1e10 0xFF ",
        "HTTPServerError XMLHttpRequest camelCaseWord snake_case_word CONSTANT_VALUE ",
        "Ünïcödé àccents — “quotes” ‘single’ … ",
        "\u{3000}全角スペース\u{3000}と\u{00a0}nbsp ",
        "https://example.com/path?query=1&b=2#frag ",
        "   leading spaces and trailing spaces   ",
        "'s 't 're 've 'm 'll 'd 'S 'T 'RE ",
    ];
    let mut out = String::with_capacity(approx_bytes + 256);
    while out.len() < approx_bytes {
        out.push_str(parts[rng.gen_range(0..parts.len())]);
        if rng.gen_bool(0.1) {
            let n = rng.gen_range(1..40);
            for _ in 0..n {
                out.push(if rng.gen_bool(0.5) { ' ' } else { '\n' });
            }
        }
    }
    out
}
