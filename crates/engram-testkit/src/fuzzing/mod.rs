//! Fuzz harnesses: one function per `cargo fuzz` target in `fuzz/`, each taking arbitrary
//! bytes through a real decoding or validation path of the core. The targets in
//! `fuzz/fuzz_targets/` are three-line shims over these, and `tests/fuzz_replay.rs` runs
//! every committed crasher and seed through them — so a crash once found stays fixed.
//!
//! A harness may only panic when an invariant breaks (a decoded value that does not
//! re-encode to itself, a restored engine that cannot snapshot again, a card number left in
//! scrubbed text); untrusted input that the core refuses must come back as a typed `Err`.
//!
//! Formats sealed with a CRC-32 (snapshots, op batches, token and embedding tables) are run
//! twice: as given, and with their envelope repaired (version, length, checksum set to what
//! the bytes hold), so mutations of the payload reach the payload decoder instead of
//! stopping at the checksum.

use engram_core::codec::frames::{decode_frames, encode_frames};
use engram_core::embed::{BertConfig, BertEmbedder, StaticEmbedder};
use engram_core::pii::{self, PiiAction, PiiPolicy, Scrubbed};
use engram_core::{
    decode_ops, encode_ops, Bpe, Config, ContextRequest, Engram, ListFilter, MemoryInput, Op, OpBody, RecallQuery, Scope, Sensitivity,
    Source, Tokenizer, Turn,
};
use serde::Deserialize;
use std::sync::Arc;

mod seeds;

pub use seeds::{seed_engine, seeds, tiny_bert, tiny_embedding_table, tiny_token_table};

/// A harness: arbitrary bytes in, a panic only when an invariant breaks.
pub type Harness = fn(&[u8]);

/// The targets, by name, with their harness (the names of `fuzz/fuzz_targets/*.rs`).
pub const TARGETS: &[(&str, Harness)] = &[
    ("snapshot", snapshot),
    ("op_batch", op_batch),
    ("frames", frames),
    ("token_table", token_table),
    ("embedding_table", embedding_table),
    ("safetensors_header", safetensors_header),
    ("pii_extract", pii_extract),
    ("inputs", inputs),
];

pub(crate) const NOW: i64 = 1_764_000_000_000;

/// Texts run through every decoded tokenizer and embedder.
const PROBES: &[&str] = &["", "hello world", "Zhang San prefers Python 🐍", "  \n\t", "abcabcabc ab", "红苹果 red apples"];

fn code(e: &engram_core::Error) -> &'static str {
    // Every refusal has a stable code; touching it checks the error is one of the core's.
    e.code()
}

/// Set the 14-byte envelope of a sealed snapshot or op batch (`magic, u16 version, u32
/// length, u32 CRC-32`) to match the bytes after it. `None` when the input is shorter.
pub fn repair_envelope(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < 14 {
        return None;
    }
    let mut b = data.to_vec();
    b[4..6].copy_from_slice(&engram_core::codec::FORMAT_VERSION.to_le_bytes());
    let len = u32::try_from(b.len() - 14).ok()?;
    b[6..10].copy_from_slice(&len.to_le_bytes());
    let crc = crc32fast::hash(&b[14..]);
    b[10..14].copy_from_slice(&crc.to_le_bytes());
    Some(b)
}

/// Set the trailing CRC-32 of a token or embedding table to match the bytes before it.
pub fn repair_trailing_crc(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < 4 {
        return None;
    }
    let mut b = data.to_vec();
    let at = b.len() - 4;
    let crc = crc32fast::hash(&b[..at]);
    b[at..].copy_from_slice(&crc.to_le_bytes());
    Some(b)
}

/// `Engram::from_snapshot` on the bytes (and on them with a repaired envelope); a restored
/// engine must recall for each of its users, build a context, and snapshot again to bytes
/// that restore to the same canonical state.
pub fn snapshot(data: &[u8]) {
    snapshot_once(data);
    if let Some(fixed) = repair_envelope(data) {
        snapshot_once(&fixed);
    }
}

fn snapshot_once(data: &[u8]) {
    let Ok(engine) = Engram::from_snapshot(data).map_err(|e| code(&e)) else { return };
    let mut scopes: Vec<Scope> = engine.state_ops().into_iter().map(|op| Scope::user(op.user.tenant, op.user.user)).collect();
    scopes.dedup();
    scopes.truncate(4);
    scopes.push(seed_scope());
    for scope in &scopes {
        if let Err(e) = engine.recall(scope, &RecallQuery::text("what does the user prefer?").with_k(5), NOW) {
            code(&e);
        }
        if let Err(e) = engine.build_context(scope, &ContextRequest::new("which language?", 300), NOW) {
            code(&e);
        }
        let _ = engine.list(scope, &ListFilter::default(), NOW);
    }
    let again = engine.snapshot().unwrap_or_else(|e| panic!("a restored engine could not snapshot again: {e}"));
    let back = Engram::from_snapshot(&again).unwrap_or_else(|e| panic!("a snapshot of a restored engine does not restore: {e}"));
    let (a, b) = (engine.canonical_state(), back.canonical_state());
    assert_eq!(a.map_err(|e| e.to_string()), b.map_err(|e| e.to_string()), "snapshot round trip changed the state");
}

/// `decode_ops` (as given and with a repaired envelope); a decoded batch must re-encode
/// and decode to the same ops, and is then applied to a fresh engine op by op (each op
/// is `Ok` or a typed refusal), after which the engine snapshots and restores.
pub fn op_batch(data: &[u8]) {
    op_batch_once(data);
    if let Some(fixed) = repair_envelope(data) {
        op_batch_once(&fixed);
    }
}

fn op_batch_once(data: &[u8]) {
    let Ok(ops) = decode_ops(data).map_err(|e| code(&e)) else { return };
    let encoded = encode_ops(&ops).unwrap_or_else(|e| panic!("a decoded batch does not re-encode: {e}"));
    let again = decode_ops(&encoded).unwrap_or_else(|e| panic!("a re-encoded batch does not decode: {e}"));
    assert!(again == ops || format!("{again:?}") == format!("{ops:?}"), "op batch round trip changed the ops");
    let mut engine = Engram::new(Config::default(), 7);
    for op in ops {
        let scope = Scope::user(op.user.tenant.clone(), op.user.user.clone());
        match engine.apply(op) {
            Ok(_) => {
                let _ = engine.recall(&scope, &RecallQuery::text("anything").with_k(3), NOW);
            }
            Err(e) => {
                code(&e);
            }
        }
    }
    let snap = engine.snapshot().unwrap_or_else(|e| panic!("an engine after applying ops could not snapshot: {e}"));
    Engram::from_snapshot(&snap).unwrap_or_else(|e| panic!("a snapshot after applying ops does not restore: {e}"));
}

/// `decode_frames`; a decoded body re-encodes to exactly its bytes (an empty body and the
/// bare magic both mean no frames), and each frame's batch goes through `decode_ops`.
pub fn frames(data: &[u8]) {
    let Ok(frames) = decode_frames(data).map_err(|e| code(&e)) else { return };
    let encoded = encode_frames(&frames);
    if data.is_empty() {
        assert!(frames.is_empty());
    } else {
        assert_eq!(encoded, data, "a decoded sync body does not re-encode to its bytes");
    }
    assert_eq!(decode_frames(&encoded).as_deref(), Ok(&frames[..]));
    for f in &frames {
        assert!(!f.id.is_empty() && f.id.len() <= engram_core::codec::frames::MAX_ID);
        if let Err(e) = decode_ops(&f.ops) {
            code(&e);
        }
    }
}

/// `RankTable::from_bytes` through `Bpe::from_table_bytes` (as given and with a repaired
/// CRC); a loaded table re-encodes to bytes that load to the same table, and counting,
/// encoding and truncating probe texts neither panics nor disagrees with itself.
pub fn token_table(data: &[u8]) {
    token_table_once(data);
    if let Some(fixed) = repair_trailing_crc(data) {
        token_table_once(&fixed);
    }
}

fn token_table_once(data: &[u8]) {
    match engram_core::RankTable::from_bytes(data) {
        Err(e) => {
            code(&e);
            return;
        }
        Ok(t) => {
            let back = engram_core::RankTable::from_bytes(&t.to_bytes()).unwrap_or_else(|e| panic!("a loaded table does not re-load: {e}"));
            assert_eq!((back.name(), back.len(), back.specials()), (t.name(), t.len(), t.specials()));
        }
    }
    let Ok(bpe) = Bpe::from_table_bytes(data).map_err(|e| code(&e)) else { return };
    let tok = Tokenizer::Exact(Arc::new(bpe));
    for text in PROBES.iter().copied().chain(std::str::from_utf8(data).ok()) {
        let n = tok.count(text).tokens;
        let (head, m) = tok.truncate(text, n / 2);
        assert!(m <= n / 2 && text.starts_with(head), "truncate exceeded its budget");
        if let Tokenizer::Exact(b) = &tok {
            assert_eq!(b.encode(text).len(), n, "count and encode disagree");
        }
    }
}

/// `StaticEmbedder::from_bytes` (as given and with a repaired CRC); a loaded table embeds
/// probe texts to vectors of its dimension that are unit length or all zeros.
pub fn embedding_table(data: &[u8]) {
    embedding_table_once(data);
    if let Some(fixed) = repair_trailing_crc(data) {
        embedding_table_once(&fixed);
    }
}

fn embedding_table_once(data: &[u8]) {
    let Ok(emb) = StaticEmbedder::from_bytes(data).map_err(|e| code(&e)) else { return };
    let text = String::from_utf8_lossy(data);
    for t in PROBES.iter().copied().chain([&text[..text.len().min(2000)]]) {
        let v = emb.embed(t);
        assert_eq!(v.len(), emb.dim());
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(norm == 0.0 || !norm.is_finite() || (norm - 1.0).abs() < 1e-3, "embedding of norm {norm}");
        let _ = emb.tokenize(t);
    }
}

/// The `safetensors` header reader through `BertEmbedder::from_safetensors` with a tiny
/// vocabulary (the reader is internal to the core); a model that loads embeds a text.
pub fn safetensors_header(data: &[u8]) {
    let config = BertConfig { heads: 2, max_tokens: 6 };
    match BertEmbedder::from_safetensors(data, engram_core::testing::TINY_BERT_VOCAB, config) {
        Ok(m) => {
            for t in PROBES {
                let v = m.embed(t);
                assert_eq!(v.len(), m.dim());
            }
        }
        Err(e) => {
            code(&e);
        }
    }
}

/// Arbitrary text (lossy UTF-8) through `pii::scrub` under every action and tier, with and
/// without a pseudonym key; then through the rule extractor and `Engram::observe`. What a
/// store keeps never holds a secret, API key or card number the detector finds.
pub fn pii_extract(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = &text[..floor_char_boundary(&text, 16 * 1024)];
    let found = pii::detect(text);
    for m in &found {
        assert!(m.start <= m.end && text.is_char_boundary(m.start) && text.is_char_boundary(m.end), "a match off a character boundary");
    }
    for action in [PiiAction::Redact, PiiAction::Drop, PiiAction::KeepWithConsent] {
        for key in [None, Some(0x5eed)] {
            let policy = PiiPolicy { public: action, session: action, personal: action, pseudonym_key: key };
            for tier in [Sensitivity::Public, Sensitivity::Session, Sensitivity::Personal] {
                match pii::scrub(text, tier, &policy, None) {
                    Scrubbed::Store { text: out, .. } => {
                        assert!(action != PiiAction::Drop || found.is_empty(), "a text with PII stored under Drop");
                        if action == PiiAction::Redact {
                            let spans = placeholders(&out);
                            let leak = pii::detect(&out).into_iter().find(|m| m.kind.always_redacted() && !spans.iter().any(|&(a, b)| m.start < b && a < m.end));
                            assert!(leak.is_none(), "scrubbed text still holds a secret, key or card ({leak:?}): {out:?}");
                        }
                    }
                    Scrubbed::Drop { found: kinds } => assert!(action == PiiAction::Drop && !kinds.is_empty()),
                }
            }
        }
    }
    for e in engram_core::extract::extract(text) {
        assert!(!e.text.is_empty(), "an empty extracted fact");
        assert!(e.importance.is_finite() && e.confidence.is_finite());
    }
    let mut engine = Engram::new(Config::default(), 3);
    let scope = seed_scope();
    match engine.observe(&scope, &[text], NOW) {
        Ok(_) => {}
        Err(e) => {
            code(&e);
        }
    }
    let _ = engine.append_turn(&scope, Turn::user(text), NOW + 1).map_err(|e| code(&e));
    let _ = engine.scrub_turn(text);
    let _ = engine.build_context(&scope, &ContextRequest::new(text, 200), NOW + 2).map_err(|e| code(&e));
}

/// Byte spans of the placeholders scrubbing writes (`[EMAIL]`, `[CARD#1a2b]`): the detector
/// may take one for a value (`password: [SECRET]`), which is no leak.
fn placeholders(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let b = text.as_bytes();
    for (i, _) in text.match_indices('[') {
        let Some(len) = b[i + 1..].iter().take(48).position(|&c| c == b']') else { continue };
        let inner = &text[i + 1..i + 1 + len];
        let (label, tag) = inner.split_once('#').unwrap_or((inner, ""));
        if !label.is_empty() && label.bytes().all(|c| c.is_ascii_uppercase() || c == b'_') && tag.bytes().all(|c| c.is_ascii_alphanumeric()) {
            spans.push((i, i + len + 2));
        }
    }
    spans
}

fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// One call the SDK makes through the binding, with the arguments it passes (the JSON a
/// script of calls decodes from is what `serde_wasm_bindgen` would hand the core).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Call {
    Remember { scope: Scope, input: MemoryInput, vector: Option<Vec<f32>>, now: i64 },
    Recall { scope: Scope, query: RecallQuery, vector: Option<Vec<f32>>, now: i64 },
    BuildContext { scope: Scope, request: ContextRequest, vector: Option<Vec<f32>>, now: i64 },
    List { scope: Scope, filter: ListFilter, now: i64 },
    AppendTurn { scope: Scope, role: String, text: String, vector: Option<Vec<f32>>, now: i64 },
    RecentTurns { scope: Scope, n: Option<u32> },
    SessionSet { scope: Scope, key: String, value: String, now: i64 },
    SessionState { scope: Scope, now: i64 },
    SetSummary { scope: Scope, summary: String, now: i64 },
    Forget { scope: Scope, id: String, now: i64 },
    ForgetUser { scope: Scope, now: i64 },
    Scrub { text: String, sensitivity: Option<Sensitivity> },
    CountTokens { text: String },
    SetConfig { config: Config },
    SetEmbedder { id: String, dim: u32 },
    Observe { scope: Scope, texts: Vec<String>, now: i64 },
}

/// A script the `inputs` target decodes: an optional config, then calls.
#[derive(Debug, Deserialize)]
pub struct Script {
    #[serde(default)]
    pub config: Option<Config>,
    pub calls: Vec<Call>,
}

/// The SDK's input validation: bytes → JSON → the core's input types (`Scope`,
/// `MemoryInput`, `RecallQuery`, `ContextRequest`, `ListFilter`, `Config`) → the engine
/// calls the binding makes. Every call is `Ok` or a typed error; afterwards the engine
/// still works (a snapshot restores), and every op it queued passes `Op::validate` and
/// applies on another replica — an input accepted locally never blocks sync.
pub fn inputs(data: &[u8]) {
    let Ok(script) = serde_json::from_slice::<Script>(data) else { return };
    let mut engine = match script.config {
        Some(c) => match c.validate() {
            Ok(()) => Engram::new(c, 11),
            Err(e) => {
                code(&e);
                Engram::new(Config::default(), 11)
            }
        },
        None => Engram::new(Config::default(), 11),
    };
    for call in script.calls.into_iter().take(64) {
        let r: engram_core::Result<()> = match call {
            Call::Remember { scope, mut input, vector, now } => {
                input.embedding = vector.filter(|v| !v.is_empty());
                engine.remember(&scope, input, now).map(drop)
            }
            Call::Recall { scope, mut query, vector, now } => {
                query.embedding = vector.filter(|v| !v.is_empty());
                engine.recall(&scope, &query, now).map(drop)
            }
            Call::BuildContext { scope, mut request, vector, now } => {
                request.embedding = vector.filter(|v| !v.is_empty());
                engine.build_context(&scope, &request, now).map(|c| assert!(c.tokens <= request.budget, "a context of {} tokens over its budget of {}", c.tokens, request.budget))
            }
            Call::List { scope, filter, now } => engine.list(&scope, &filter, now).map(drop),
            Call::AppendTurn { scope, role, text, vector, now } => {
                let role = match role.as_str() {
                    "user" => Source::User,
                    "assistant" => Source::Assistant,
                    "tool" => Source::Tool,
                    "system" => Source::System,
                    _ => continue,
                };
                engine.append_turn(&scope, Turn { role, text, embedding: vector.filter(|v| !v.is_empty()) }, now).map(drop)
            }
            Call::RecentTurns { scope, n } => engine.recent_turns(&scope, n.map(|n| n as usize)).map(drop),
            Call::SessionSet { scope, key, value, now } => engine.session_set(&scope, &key, &value, now),
            Call::SessionState { scope, now } => engine.session_state(&scope, now).map(drop),
            Call::SetSummary { scope, summary, now } => engine.set_summary(&scope, &summary, now),
            Call::Forget { scope, id, now } => engine.forget(&scope, &id, now).map(drop),
            Call::ForgetUser { scope, now } => engine.forget_user(&scope, now).map(drop),
            Call::Scrub { text, sensitivity } => {
                let _ = engine.scrub(&text, sensitivity.unwrap_or(Sensitivity::Personal));
                Ok(())
            }
            Call::CountTokens { text } => {
                let _ = engine.count_tokens(&text);
                Ok(())
            }
            Call::SetConfig { config } => engine.set_config(config),
            Call::SetEmbedder { id, dim } => engine.set_embedder(engram_core::EmbedderInfo { id, dim: dim as usize }),
            Call::Observe { scope, texts, now } => {
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                engine.observe(&scope, &texts, now).map(drop)
            }
        };
        if let Err(e) = r {
            code(&e);
        }
    }
    let ops: Vec<Op> = engine.take_pending();
    let mut other = Engram::new(Config::default(), 12);
    for op in &ops {
        op.validate().unwrap_or_else(|e| panic!("a locally accepted input queued an op that fails validation ({e}): {op:?}"));
    }
    let batch = encode_ops(&ops).unwrap_or_else(|e| panic!("pending ops do not encode: {e}"));
    let ops = decode_ops(&batch).unwrap_or_else(|e| panic!("pending ops do not decode: {e}"));
    for op in ops {
        let upsert = matches!(op.body, OpBody::Upsert(_));
        if let Err(e) = other.apply(op) {
            panic!("another replica refused a locally accepted op ({e}); upsert: {upsert}");
        }
    }
    let snap = engine.snapshot().unwrap_or_else(|e| panic!("the engine could not snapshot after the calls: {e}"));
    Engram::from_snapshot(&snap).unwrap_or_else(|e| panic!("the snapshot after the calls does not restore: {e}"));
}

/// The scope the seeds and the harnesses write in.
pub(crate) fn seed_scope() -> Scope {
    Scope::user("acme", "zhang-san").with_session("s1")
}
