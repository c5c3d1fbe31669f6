//! The default embedder: the Rust implementation reproduces the distillation script's
//! vectors, and on the chatterbot question → answer task the core's fusion of BM25 and the
//! table beats each channel alone.

use engram_core::index::lexical::terms::is_cjk;
use engram_testkit::qa_eval::{cosine, embed_task, evaluate, load_default_table, load_task, parity_rows, questions_in, Channels};

#[test]
fn the_rust_embedder_reproduces_the_distillation_scripts_vectors() {
    let emb = load_default_table();
    assert_eq!(emb.dim(), 256);
    let text = include_str!("../data/embed_parity.tsv");
    let (mut compared, mut declined) = (0, 0);
    for (sentence, expected) in parity_rows(text) {
        let got = emb.embed(sentence);
        if got.iter().all(|&x| x == 0.0) {
            // Declined: more unknown words than known ones — only for text the English
            // vocabulary lacks.
            assert!(sentence.chars().any(is_cjk), "declined an English sentence: {sentence:?}");
            declined += 1;
            continue;
        }
        let c = cosine(&got, &expected);
        assert!(c > 0.9999, "{sentence:?}: cosine {c} with the script's vector");
        compared += 1;
    }
    assert!(compared >= 35 && compared > 2 * declined, "compared {compared}, declined {declined}");
}

#[test]
fn fused_recall_beats_bm25_alone_and_the_table_alone() {
    let emb = load_default_table();
    let task = load_task();
    assert!(task.questions.len() > 1000 && task.answers.len() > 1000);
    let (a, q) = embed_task(&task, |t| emb.embed(t));
    let vector = evaluate(&task, &a, &q, Channels::Vector);
    let lexical = evaluate(&task, &a, &q, Channels::Lexical);
    // The weights for short answers (the default favours conversation: tests/long_conversation.rs).
    let w = engram_core::ChannelWeights::SHORT_ANSWERS;
    let hybrid = evaluate(&task, &a, &q, Channels::Hybrid(w.vector, w.lexical));
    eprintln!("recall@10: vector {:.3}, BM25 {:.3}, hybrid {:.3}", vector.at10, lexical.at10, hybrid.at10);
    assert!(hybrid.at10 > lexical.at10 && hybrid.at10 > vector.at10, "hybrid {hybrid:?} vs BM25 {lexical:?} vs vector {vector:?}");
    assert!(hybrid.at1 >= lexical.at1.max(vector.at1), "hybrid {hybrid:?} vs BM25 {lexical:?} vs vector {vector:?}");

    // English questions alone, where the table is strongest: fusion must still add to it.
    let (english, english_q) = questions_in(&task, &q, false);
    let vector = evaluate(&english, &a, &english_q, Channels::Vector);
    let lexical = evaluate(&english, &a, &english_q, Channels::Lexical);
    let hybrid = evaluate(&english, &a, &english_q, Channels::Hybrid(w.vector, w.lexical));
    eprintln!("English recall@10: vector {:.3}, BM25 {:.3}, hybrid {:.3}", vector.at10, lexical.at10, hybrid.at10);
    assert!(hybrid.at10 > vector.at10 && hybrid.at10 > lexical.at10, "English: hybrid {hybrid:?} vs BM25 {lexical:?} vs vector {vector:?}");
}

#[test]
fn the_shipped_table_keeps_its_measured_english_recall() {
    // The full all-MiniLM-L6-v2 reaches recall@10 0.709 on these 745 English questions
    // (scripts/distill/distill.py); the fitted table measured 0.577 through the core (81 %).
    // A table rebuilt worse than 0.57 fails here: the unfitted distillation measured 0.388,
    // the table fitted on chit-chat and WordNet alone 0.557.
    let emb = load_default_table();
    let task = load_task();
    let (a, q) = embed_task(&task, |t| emb.embed(t));
    let (english, english_q) = questions_in(&task, &q, false);
    assert_eq!(english.questions.len(), 745);
    let vector = evaluate(&english, &a, &english_q, Channels::Vector);
    assert!(vector.at10 >= 0.57, "English recall@10 of the table alone: {vector:?}");
}
