//! The demo: replay the multi-session conversation of seed 003 (Zhang San) through the
//! engine, print what was remembered (with the audit trail), why memories are recalled,
//! and the context built for a later question under a 900-token budget.
//!
//! `cargo run --release -p engram-core --example replay -- <o200k_base.engtok>`
//! (`scripts/demo.sh` exports the table first.)

use engram_core::read::decay::DAY_MS;
use engram_core::{
    Bpe, Config, ContextRequest, Engram, Kind, ListFilter, MemoryInput, ProcedureInput, RecallQuery, Scope, Tokenizer, Turn,
};
use std::sync::Arc;

const T0: i64 = 1_764_000_000_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut mem = Engram::new(Config::default(), 0xD3E0);
    match std::env::args().nth(1) {
        Some(path) => {
            let t = std::time::Instant::now();
            let bpe = Bpe::from_table_bytes(&std::fs::read(&path)?)?;
            println!("loaded {} ({} tokens) in {:.1} ms", bpe.encoding().name(), bpe.table().len(), t.elapsed().as_secs_f64() * 1e3);
            mem.set_tokenizer(Tokenizer::Exact(Arc::new(bpe)));
        }
        None => println!("no token table given: budgets use the conservative estimate"),
    }
    let user = Scope::user("demo", "zhang-san");
    // The operator's procedure: in the tenant's own partition, the only text the context
    // renders as instructions.
    mem.put_procedure("demo", ProcedureInput::new("style", "Style", "Answer in the user's language; be concise."), T0)?;

    // Session 1 (seed 003's example conversation).
    let s1 = user.clone().with_session("session-1");
    let session1 = [
        ("user", "我叫张三，在阿里巴巴做算法工程师。"),
        ("assistant", "你好张三！请问有什么可以帮你的？"),
        ("user", "我最近在用LangChain做Agent开发，遇到了记忆管理的问题。"),
        ("assistant", "你可以试试ConversationSummaryBufferMemory……"),
        ("user", "谢谢！我用GPT-4做模型，Token限制不是大问题。"),
        ("assistant", "那你可以考虑用BufferMemory配合向量数据库做长期记忆。"),
        ("user", "好的我试试。对了，我偏好Python，不太喜欢Java。"),
    ];
    for (i, (role, text)) in session1.iter().enumerate() {
        let turn = if *role == "user" { Turn::user(*text) } else { Turn::assistant(*text) };
        mem.append_turn(&s1, turn, T0 + i as i64 * 60_000)?;
    }
    // End of conversation: the rule-based extractor reads the user's turns; what it finds
    // goes through the write path (PII redaction, dedup, supersession by key).
    let end1 = T0 + 10 * 60_000;
    let user_said: Vec<&str> = session1.iter().filter(|(r, _)| *r == "user").map(|(_, t)| *t).collect();
    println!("\n== extracted from session 1 ==");
    for out in mem.observe(&user, &user_said, end1)? {
        let r = mem.get(&user, &out.id)?;
        let key = r.key.map(|k| format!("{}/{}", k.subject, k.attribute)).unwrap_or_else(|| "-".into());
        println!("  {:?}: [{}] {}  (key {key}, importance {:.2})", out.action, r.kind.as_str(), r.text, r.importance);
    }
    // Told again in a later session: dedup reinforces instead of storing a copy.
    let again = mem.observe(&user, &["我用GPT-4做模型。"], end1 + DAY_MS)?;
    if let Some(o) = again.first() {
        println!("\nsaying a known fact again → {:?} (same record {})", o.action, o.id);
    }
    // PII never reaches storage.
    let pii = mem.remember(&user, MemoryInput::fact("张三的邮箱是 zhang.san@example.com，手机 13800138000"), end1 + DAY_MS)?;
    println!("a memory with PII is stored as {:?} (redacted {:?})", mem.get(&user, &pii.id)?.text, pii.redacted);

    // Session 2, three weeks later: a correction that supersedes the old preference.
    let s2 = user.clone().with_session("session-2");
    let t2 = T0 + 21 * DAY_MS;
    let switch_text = "更新一下：我已经从Python改用Go了，新服务都用Go写。";
    mem.append_turn(&s2, Turn::user(switch_text), t2)?;
    for out in mem.observe(&user, &[switch_text], t2)? {
        if !out.superseded.is_empty() {
            println!("\n\"{switch_text}\" superseded {:?}", out.superseded);
        }
    }

    println!("\n== what engram remembers about zhang-san (current) ==");
    for r in mem.list(&user, &ListFilter { kinds: vec![Kind::Fact, Kind::Preference], ..Default::default() }, t2)? {
        println!("  [{}] {} (importance {:.2}, seen {}×, from {})", r.kind.as_str(), r.text, r.importance, r.times_seen, r.source.as_str());
    }
    println!("== audit trail (superseded versions) ==");
    for r in mem.list(&user, &ListFilter { include_superseded: true, ..Default::default() }, t2)?.iter().filter(|r| r.is_superseded()) {
        println!("  {} → superseded by {}", r.text, r.superseded_by.as_deref().unwrap_or("?"));
    }

    // Session 3, a month later.
    let s3 = user.clone().with_session("session-3");
    let t3 = T0 + 35 * DAY_MS;
    for q in ["你好！", "我应该用什么语言写新的Agent服务？", "用户的职业是什么"] {
        let r = mem.recall(&s3, &RecallQuery::text(q).with_k(3), t3)?;
        println!("\nrecall {q:?} → route {:?}", r.route);
        for h in r.hits {
            let p = &h.parts;
            println!(
                "  {:.4}  {}  [bm25 rank {:?}, key rank {:?}, decay {:.2}, importance {:.2}]",
                h.score,
                h.record.text,
                p.lexical.map(|l| l.0),
                p.key,
                p.decay,
                p.importance
            );
        }
    }
    let question = "我应该用什么语言写新的Agent服务？";
    mem.append_turn(&s3, Turn::user(question), t3)?;
    let ctx = mem.build_context(&s3, &ContextRequest::new(question, 900), t3)?;
    println!(
        "\n== context for {question:?}: {} tokens ({}), {} records included, {} dropped ==\n{}",
        ctx.tokens,
        if ctx.exact { "exact o200k_base count" } else { "estimate" },
        ctx.included.len(),
        ctx.dropped.len(),
        ctx.text
    );
    let snapshot = mem.snapshot()?;
    let ops = engram_core::encode_ops(&mem.take_pending())?;
    println!("snapshot {} bytes; {} bytes of ops waiting to sync", snapshot.len(), ops.len());
    Ok(())
}
