//! Archival documents (issue 19): put, replace, get, list and delete by id per user;
//! chunk search that names document, position and neighbours; the context's documents
//! section; sync between replicas converging after put, replace and delete; forgetting.

use engram_core::{
    decode_ops, encode_ops, Config, ContextRequest, DocumentInput, Engram, Kind, ListFilter, OpBody, RecallQuery, Scope,
};

const T0: i64 = 1_764_000_000_000;

fn handbook() -> String {
    let mut s = String::from("# Employee handbook\n\n");
    for (i, topic) in ["leave", "travel", "expenses", "security", "equipment", "training"].iter().enumerate() {
        s.push_str(&format!("## Section {i}: {topic}\n\n"));
        for j in 0..6 {
            s.push_str(&format!("Rule {j} about {topic} policy number {i}{j}: employees follow the {topic} guideline carefully. "));
        }
        s.push_str("\n\n");
    }
    s.push_str("## Holidays\n\nStaff get 25 days of paid annual leave, plus public holidays in Hangzhou.\n\n员工每年有二十五天带薪年假。");
    s
}

fn doc(id: &str, text: &str) -> DocumentInput {
    DocumentInput { title: format!("The {id}"), source: "intranet".into(), tags: vec!["hr".into()], metadata: "{\"v\":1}".into(), chunk_tokens: Some(64), chunk_overlap: Some(8), ..DocumentInput::new(id, text) }
}

fn chunk_ids(e: &Engram, s: &Scope) -> Vec<String> {
    let f = ListFilter { kinds: vec![Kind::Chunk], ..Default::default() };
    let mut v: Vec<String> = e.list(s, &f, T0 * 2).expect("list").into_iter().map(|r| r.id).collect();
    v.sort();
    v
}

#[test]
fn a_document_put_by_id_reads_back_whole_with_its_fields_and_lists_without_its_text() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    let text = handbook();
    let ids = e.put_document(&me, doc("handbook", &text), T0).expect("put");
    assert!(ids.len() > 5, "{} chunks", ids.len());
    let got = e.get_document(&me, "handbook").expect("get");
    assert_eq!(got.text.as_deref(), Some(text.as_str()));
    assert_eq!((got.title.as_str(), got.source.as_str(), got.metadata.as_str()), ("The handbook", "intranet", "{\"v\":1}"));
    assert_eq!(got.tags, ["hr"]);
    assert_eq!(got.chunks, ids);
    let listed = e.list_documents(&me).expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].text, None);
    // Documents and chunks stay out of the memory list and of memory recall.
    assert!(e.list(&me, &ListFilter::default(), T0).expect("list").is_empty());
    assert!(e.recall(&me, &RecallQuery::text("paid annual leave"), T0).expect("recall").hits.is_empty());
    // Another user sees nothing.
    assert!(e.list_documents(&Scope::user("acme", "bob")).expect("bob").is_empty());
    assert_eq!(e.get_document(&Scope::user("acme", "bob"), "handbook").map_err(|e| e.code()), Err("NOT_FOUND"));
}

#[test]
fn a_search_hit_names_its_document_position_and_neighbours_not_the_whole_document() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    let text = handbook();
    let ids = e.put_document(&me, doc("handbook", &text), T0).expect("put");
    e.put_document(&me, doc("menu", "Lunch is served at noon. The canteen offers noodles and dumplings."), T0).expect("put");
    let hits = e.search_documents(&me, &RecallQuery::text("how many days of paid annual leave"), T0 + 1).expect("search");
    let top = &hits[0];
    assert_eq!(top.document, "handbook");
    assert!(top.text.contains("25 days"), "{:?}", top.text);
    assert!(top.text.len() < text.len() / 3);
    assert_eq!(ids[top.position as usize], top.chunk);
    assert_eq!(top.count as usize, ids.len());
    assert_eq!(top.previous.as_deref(), Some(ids[top.position as usize - 1].as_str()));
    assert_eq!(top.next.as_deref(), ids.get(top.position as usize + 1).map(String::as_str));
    let zh = e.search_documents(&me, &RecallQuery::text("带薪年假有几天"), T0 + 1).expect("search zh");
    assert!(zh[0].text.contains("带薪年假"), "{:?}", zh[0].text);
    let noodles = e.search_documents(&me, &RecallQuery::text("noodles at the canteen"), T0 + 1).expect("search");
    assert_eq!((noodles[0].document.as_str(), noodles[0].position, noodles[0].previous.as_deref()), ("menu", 0, None));
}

#[test]
fn re_adding_a_document_writes_only_the_chunks_that_changed() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    let text = handbook();
    let first = e.put_document(&me, doc("handbook", &text), T0).expect("put");
    e.take_pending();
    let again = e.put_document(&me, doc("handbook", &text), T0 + 1).expect("again");
    assert_eq!(again, first);
    assert!(e.take_pending().is_empty(), "the same document again writes nothing");
    let edited = text.replace("Staff get 25 days", "Staff get 28 days");
    let second = e.put_document(&me, doc("handbook", &edited), T0 + 2).expect("edit");
    let ops = e.take_pending();
    let upserts: Vec<&str> = ops.iter().filter_map(|o| if let OpBody::Upsert(r) = &o.body { Some(r.id.as_str()) } else { None }).collect();
    let deletes = ops.iter().filter(|o| matches!(o.body, OpBody::Delete { .. })).count();
    let changed = second.iter().filter(|c| !first.contains(c)).count();
    assert!(changed >= 1 && changed <= 2, "{changed} chunks changed");
    assert_eq!(upserts.len(), changed + 1, "the new chunks and the document record: {upserts:?}");
    assert_eq!(deletes, first.iter().filter(|c| !second.contains(c)).count());
    assert_eq!(e.get_document(&me, "handbook").expect("get").text.as_deref(), Some(edited.as_str()));
    assert_eq!(chunk_ids(&e, &me).len(), { let mut s = second.clone(); s.sort(); s.dedup(); s.len() });
}

#[test]
fn deleting_a_document_removes_it_and_every_chunk() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    e.put_document(&me, doc("handbook", &handbook()), T0).expect("put");
    e.put_document(&me, doc("menu", "Lunch is served at noon."), T0).expect("put");
    assert!(e.delete_document(&me, "handbook", T0 + 1).expect("delete"));
    assert!(!e.delete_document(&me, "handbook", T0 + 2).expect("again"));
    assert_eq!(e.get_document(&me, "handbook").map_err(|e| e.code()), Err("NOT_FOUND"));
    assert_eq!(chunk_ids(&e, &me).len(), 1);
    assert!(e.search_documents(&me, &RecallQuery::text("paid annual leave"), T0 + 3).expect("search").iter().all(|h| h.document == "menu"));
}

#[test]
fn two_replicas_converge_after_put_replace_and_delete_and_forgetting_removes_every_document() {
    let me = Scope::user("acme", "alice");
    let mut a = Engram::new(Config::default(), 1);
    let mut b = Engram::new(Config::default(), 2);
    let sync = |from: &mut Engram, to: &mut Engram| {
        let ops = decode_ops(&encode_ops(&from.take_pending()).expect("encode")).expect("decode");
        to.apply_ops(ops).expect("apply");
    };
    let text = handbook();
    a.put_document(&me, doc("handbook", &text), T0).expect("put");
    sync(&mut a, &mut b);
    assert_eq!(b.get_document(&me, "handbook").expect("b get").text.as_deref(), Some(text.as_str()));
    b.put_document(&me, doc("menu", "Lunch is served at noon."), T0 + 1).expect("b put");
    let edited = text.replace("Holidays", "Holidays and leave");
    a.put_document(&me, doc("handbook", &edited), T0 + 2).expect("replace");
    sync(&mut a, &mut b);
    sync(&mut b, &mut a);
    for e in [&a, &b] {
        assert_eq!(e.get_document(&me, "handbook").expect("get").text.as_deref(), Some(edited.as_str()));
        assert_eq!(e.list_documents(&me).expect("list").len(), 2);
    }
    assert_eq!(chunk_ids(&a, &me), chunk_ids(&b, &me));
    b.delete_document(&me, "handbook", T0 + 3).expect("delete");
    sync(&mut b, &mut a);
    assert_eq!(a.get_document(&me, "handbook").map_err(|e| e.code()), Err("NOT_FOUND"));
    assert_eq!(chunk_ids(&a, &me), chunk_ids(&b, &me));
    assert_eq!(chunk_ids(&a, &me).len(), 1);
    a.forget_user(&me, T0 + 4).expect("forget");
    sync(&mut a, &mut b);
    for e in [&a, &b] {
        assert!(e.list_documents(&me).expect("list").is_empty());
        assert_eq!(e.count(&me).expect("count"), 0);
    }
}

#[test]
fn the_context_gives_document_chunks_their_own_section_and_share_inside_the_untrusted_block() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    e.put_document(&me, doc("handbook", &handbook()), T0).expect("put");
    let ctx = e.build_context(&me, &ContextRequest::new("how many days of paid annual leave do staff get", 900), T0 + 1).expect("context");
    assert!(ctx.tokens <= 900);
    let open = ctx.text.find("<memory-data").expect("untrusted block");
    let docs = ctx.text.find("[documents]").expect("documents section");
    assert!(open < docs && docs < ctx.text.find("</memory-data>").expect("closed"));
    assert!(ctx.text.contains("25 days"));
    let section: usize = ctx.text[docs..].lines().take_while(|l| !l.starts_with("</")).map(|l| e.count_tokens(l).tokens + 1).sum();
    assert!(section <= 900 * 3 / 10, "{section} tokens");
    let none = ContextRequest { archival_k: 0, ..ContextRequest::new("how many days of paid annual leave", 900) };
    assert!(!e.build_context(&me, &none, T0 + 1).expect("context").text.contains("[documents]"));
    let bad = ContextRequest { archival_share: 1.5, ..ContextRequest::new("leave", 900) };
    assert_eq!(e.build_context(&me, &bad, T0).map_err(|e| e.code()), Err("INVALID_INPUT"));
}

#[test]
fn bad_documents_are_refused_with_typed_errors_and_nothing_is_written() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    let code = |e: &mut Engram, d: DocumentInput| e.put_document(&me, d, T0).map(|_| ()).map_err(|x| x.code());
    assert_eq!(code(&mut e, DocumentInput::new("", "text")), Err("INVALID_INPUT"));
    assert_eq!(code(&mut e, DocumentInput::new("x", "   ")), Err("INVALID_INPUT"));
    assert_eq!(code(&mut e, DocumentInput::new("x".repeat(200), "text")), Err("INVALID_INPUT"));
    assert_eq!(code(&mut e, DocumentInput { chunk_tokens: Some(2), ..DocumentInput::new("x", "text") }), Err("INVALID_INPUT"));
    assert_eq!(code(&mut e, DocumentInput::new("x", "y".repeat(3 << 20))), Err("TEXT_TOO_LARGE"));
    assert_eq!(e.count(&me).expect("count"), 0);
    assert_eq!(e.pending_len(), 0);
}

#[test]
fn documents_survive_a_snapshot_and_their_pii_is_redacted_before_chunking() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    e.put_document(&me, doc("contacts", "Write to the help desk at help@example.com for a new laptop."), T0).expect("put");
    let text = e.get_document(&me, "contacts").expect("get").text.expect("text");
    assert!(!text.contains("help@example.com") && text.contains("[EMAIL"), "{text}");
    let back = Engram::from_snapshot(&e.snapshot().expect("snapshot")).expect("restore");
    assert_eq!(back.get_document(&me, "contacts").expect("get").text.as_deref(), Some(text.as_str()));
    assert_eq!(back.search_documents(&me, &RecallQuery::text("new laptop help desk"), T0).expect("search")[0].document, "contacts");
}

#[test]
fn deleting_a_document_leaves_the_chunks_of_a_document_whose_id_it_prefixes() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    e.put_document(&me, doc("a", "Apples are red. Pears are green."), T0).expect("put a");
    e.put_document(&me, doc("a/b", "Lunch is served at noon in the canteen."), T0).expect("put a/b");
    assert!(e.delete_document(&me, "a", T0 + 1).expect("delete a"));
    let kept = e.get_document(&me, "a/b").expect("a/b is whole");
    assert_eq!(kept.text.as_deref(), Some("Lunch is served at noon in the canteen."));
    assert!(e.search_documents(&me, &RecallQuery::text("lunch canteen"), T0 + 2).expect("search").iter().any(|h| h.document == "a/b"));
}

#[test]
fn forget_refuses_document_and_chunk_ids_so_no_chunk_is_left_behind() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    let chunks = e.put_document(&me, doc("menu", "Lunch is served at noon."), T0).expect("put");
    assert_eq!(e.forget(&me, "d/menu", T0 + 1).map_err(|e| e.code()), Err("INVALID_INPUT"));
    assert_eq!(e.forget(&me, &chunks[0], T0 + 1).map_err(|e| e.code()), Err("INVALID_INPUT"));
    assert_eq!(e.get_document(&me, "menu").expect("still whole").text.as_deref(), Some("Lunch is served at noon."));
}

#[test]
fn a_quarter_megabyte_with_no_break_is_chunked_within_budget_under_the_exact_tokenizer() {
    // One token piece (a run of letters: a pasted blob) merges by heap, not by the quadratic
    // scan, and is cut inside the word from a bounded window: it chunks like any text.
    let mut e = Engram::new(Config::default(), 1);
    let tok = engram_testkit::tables::o200k();
    e.set_tokenizer(tok.clone());
    let me = Scope::user("acme", "alice");
    let mut r = 7u64;
    let blob: String = (0..256 * 1024)
        .map(|_| {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            char::from(b'a' + (r % 26) as u8)
        })
        .collect();
    let text = format!("Intro line.\n\n{blob} and the rest.");
    let ids = e.put_document(&me, doc("blob", &text), T0).expect("a long piece is chunked");
    assert!(ids.len() > 100, "{} chunks", ids.len());
    assert_eq!(e.get_document(&me, "blob").expect("get").text.as_deref(), Some(text.as_str()));
    let spans = engram_core::archive::chunk::chunk(&text, &tok, 128, 16).expect("chunk");
    assert!(spans.iter().all(|c| c.tokens <= 128 && tok.count(&text[c.start..c.end]).tokens == c.tokens));
    let back: String = spans.iter().map(|c| &text[c.start + c.overlap..c.end]).collect();
    assert_eq!(back, text);
    // Cut into 8-token pieces, the word is looked at through a bounded window per piece
    // (pre-tokenizing the rest of it for each would be quadratic: minutes, not a second).
    let small = engram_core::archive::chunk::chunk(&text, &tok, 8, 0).expect("chunk");
    assert!(small.len() > 10_000 && small.iter().all(|c| c.tokens <= 8));
    let back: String = small.iter().map(|c| &text[c.start..c.end]).collect();
    assert_eq!(back, text);
}

#[test]
fn recall_refuses_to_mix_memories_and_chunks_with_a_typed_error() {
    let mut e = Engram::new(Config::default(), 1);
    let me = Scope::user("acme", "alice");
    e.put_document(&me, doc("menu", "Lunch is served at noon."), T0).expect("put");
    let mut q = RecallQuery::text("When is lunch?").with_k(5);
    q.kinds = vec![Kind::Fact, Kind::Chunk];
    assert_eq!(e.recall(&me, &q, T0 + 1).map(|_| ()).map_err(|e| e.code()), Err("INVALID_INPUT"));
}

#[test]
fn memories_recall_the_same_with_or_without_documents_beside_them() {
    // Chunks have their own lexical and vector pool: they neither change the word
    // statistics memories are ranked by nor cost memory recall a scan.
    let memories = engram_testkit::corpus::memories(300, 5);
    let me = Scope::user("acme", "alice");
    let store = |with_documents: bool| {
        let mut e = Engram::new(Config::default(), 1);
        for (i, m) in memories.iter().enumerate() {
            let v = engram_testkit::embed::hashed_embedding(m, 64);
            e.remember(&me, engram_core::MemoryInput::fact(m.clone()).with_embedding(v), T0 + i as i64).expect("remember");
        }
        if with_documents {
            for d in 0..20 {
                e.put_document(&me, doc(&format!("h{d}"), &handbook()), T0 + 1_000 + d).expect("put");
            }
        }
        e
    };
    let (plain, beside) = (store(false), store(true));
    assert!(beside.list(&me, &ListFilter { kinds: vec![Kind::Chunk], ..Default::default() }, T0 * 2).expect("list").len() > 100);
    for q in engram_testkit::corpus::memories(40, 9).iter().chain(&["What are the employee rules about travel policy?".to_owned()]) {
        let mut query = RecallQuery::text(q.clone()).with_k(10);
        query.force = true;
        query.embedding = Some(engram_testkit::embed::hashed_embedding(q, 64));
        let a = plain.recall(&me, &query, T0 * 2).expect("recall");
        let b = beside.recall(&me, &query, T0 * 2).expect("recall");
        // The lexical channel's own BM25 score too: the same words statistics give the same bits.
        let ids = |r: &engram_core::Recall| r.hits.iter().map(|h| (h.record.id.clone(), h.score.to_bits(), h.parts.lexical.map(|l| l.1.to_bits()))).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b), "{q}");
        assert!(b.hits.iter().all(|h| h.record.kind != Kind::Chunk));
    }
}
