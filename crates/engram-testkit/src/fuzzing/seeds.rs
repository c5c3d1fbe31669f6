//! Seeds of the fuzz targets: small valid inputs of every format, so the fuzzer starts
//! inside each one, and the tiny tables and engine they are made from.

use engram_core::codec::frames::{encode_frames, Frame};
use engram_core::{encode_ops, Config, Engram, MemoryInput, Scope, Turn};

use super::{seed_scope, NOW};

/// The tiny BERT seed of `safetensors_header`: the core's own test model.
pub fn tiny_bert() -> Vec<u8> {
    engram_core::testing::tiny_bert("")
}

/// A small `.engemb` embedding table (dimension 4, a handful of English tokens).
pub fn tiny_embedding_table() -> Vec<u8> {
    let tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "red", "apple", "##s", "python", ".", "zhang"];
    let dim = 4u16;
    let vocab = tokens.join("\n");
    let mut b = b"ENGE".to_vec();
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&dim.to_le_bytes());
    b.extend_from_slice(&(tokens.len() as u32).to_le_bytes());
    b.extend_from_slice(&(vocab.len() as u32).to_le_bytes());
    b.extend_from_slice(vocab.as_bytes());
    for i in 0..tokens.len() {
        b.extend_from_slice(&(0.01 * (i as f32 + 1.0)).to_le_bytes());
    }
    for i in 0..tokens.len() {
        for d in 0..dim as usize {
            b.push((((i * 31 + d * 17) % 255) as i32 - 127) as i8 as u8);
        }
    }
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// A small `o200k_base`-named rank table: every byte, then a few merges.
pub fn tiny_token_table() -> Vec<u8> {
    let merges: [&[u8]; 6] = [b"ab", b"abc", b"he", b"ll", b"hell", b"hello"];
    let toks: Vec<Vec<u8>> = (0u8..=255).map(|b| vec![b]).chain(merges.iter().map(|m| m.to_vec())).collect();
    engram_core::RankTable::from_tokens("o200k_base", &toks, vec![("<|endoftext|>".into(), 199_999)]).map(|t| t.to_bytes()).unwrap_or_default()
}

/// A small engine with a few memories, turns, session state and a forgotten record.
pub fn seed_engine() -> Engram {
    let mut mem = Engram::new(Config::default(), 42);
    let chat = seed_scope();
    let _ = mem.remember(&chat, MemoryInput::fact("Zhang San prefers Python").with_key("zhang san", "preferred language"), NOW);
    let _ = mem.remember(&chat, MemoryInput::fact("Lives in Berlin, email zs@example.com"), NOW + 1);
    let _ = mem.remember(&Scope::user("acme", "li-si"), MemoryInput { tags: vec!["drinks".into()], ..MemoryInput::fact("Li Si likes tea") }, NOW + 2);
    let _ = mem.append_turn(&chat, Turn::user("Which language should I use for the new service?"), NOW + 3);
    let _ = mem.session_set(&chat, "topic", "\"services\"", NOW + 4);
    let _ = mem.set_summary(&chat, "Talking about a new service.", NOW + 5);
    if let Ok(o) = mem.remember(&chat, MemoryInput::fact("temporary note"), NOW + 6) {
        let _ = mem.forget(&chat, &o.id, NOW + 7);
    }
    mem
}

/// Small valid inputs per target, so the fuzzer starts inside each format.
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    let mut mem = seed_engine();
    match target {
        "snapshot" => vec![mem.snapshot().unwrap_or_default(), Engram::new(Config::default(), 1).snapshot().unwrap_or_default()],
        "op_batch" => {
            let pending = mem.take_pending();
            vec![encode_ops(&pending).unwrap_or_default(), encode_ops(&mem.state_ops()).unwrap_or_default(), encode_ops(&[]).unwrap_or_default()]
        }
        "frames" => {
            let ops = encode_ops(&mem.take_pending()).unwrap_or_default();
            vec![
                encode_frames(&[Frame { id: "42-1".into(), ops: ops.clone() }, Frame { id: "42-2".into(), ops: vec![] }]),
                encode_frames(&[Frame { id: "17".into(), ops }]),
                b"EGS1".to_vec(),
            ]
        }
        "token_table" => vec![tiny_token_table()],
        "embedding_table" => vec![tiny_embedding_table()],
        "safetensors_header" => vec![tiny_bert(), b"\x02\x00\x00\x00\x00\x00\x00\x00{}".to_vec()],
        "pii_extract" => [
            "My name is Zhang San, email zhang.san@example.com, phone +1 415 555 0100.",
            "card 4111 1111 1111 1111 and key sk-proj-abcdefghijklmnopqrstuvwxyz012345",
            "I prefer Python over Java. I live in Berlin. My birthday is 3 May.",
            "我叫张三，我住在北京，我的手机号是13800138000。我喜欢喝茶。",
            "IBAN DE89 3704 0044 0532 0130 00, SSN 078-05-1120, password: hunter2",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect(),
        "inputs" => [
            r#"{"calls":[{"remember":{"scope":{"tenant":"acme","user":"zs","session":"s1"},"input":{"text":"Zhang San prefers Python","key":{"subject":"zhang san","attribute":"preferred language"},"tags":["lang"]},"vector":null,"now":1764000000000}},{"recall":{"scope":{"tenant":"acme","user":"zs"},"query":{"text":"which language","k":5},"vector":null,"now":1764000000001}},{"buildContext":{"scope":{"tenant":"acme","user":"zs","session":"s1"},"request":{"query":"language?","budget":200},"vector":null,"now":1764000000002}}]}"#,
            r#"{"calls":[{"appendTurn":{"scope":{"tenant":"t","user":"u","session":"s"},"role":"user","text":"hello there","vector":null,"now":5}},{"sessionSet":{"scope":{"tenant":"t","user":"u","session":"s"},"key":"k","value":"v","now":6}},{"setSummary":{"scope":{"tenant":"t","user":"u","session":"s"},"summary":"sum","now":7}},{"recentTurns":{"scope":{"tenant":"t","user":"u","session":"s"},"n":3}},{"sessionState":{"scope":{"tenant":"t","user":"u","session":"s"},"now":8}}]}"#,
            r#"{"calls":[{"setEmbedder":{"id":"e","dim":3}},{"remember":{"scope":{"tenant":"t","user":"u"},"input":{"text":"vector memory","importance":0.9,"ttlMs":1000},"vector":[0.1,0.2,0.3],"now":10}},{"recall":{"scope":{"tenant":"t","user":"u"},"query":{"text":"vector"},"vector":[0.3,0.2,0.1],"now":11}},{"list":{"scope":{"tenant":"t","user":"u"},"filter":{},"now":12}},{"forget":{"scope":{"tenant":"t","user":"u"},"id":"x","now":13}},{"forgetUser":{"scope":{"tenant":"t","user":"u"},"now":14}}]}"#,
            r#"{"config":{},"calls":[{"observe":{"scope":{"tenant":"t","user":"u"},"texts":["I live in Paris and I prefer tea."],"now":20}},{"scrub":{"text":"mail a@b.co","sensitivity":"public"}},{"countTokens":{"text":"count me"}}]}"#,
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect(),
        _ => Vec::new(),
    }
}
