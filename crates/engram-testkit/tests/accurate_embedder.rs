//! The accurate embedder: the core's BERT encoder, run from all-MiniLM-L6-v2's own weights,
//! reproduces sentence-transformers' vectors, and through the core's recall it finds the
//! chatterbot answers the full model finds.

use engram_core::embed::{BertConfig, BertEmbedder};
use engram_testkit::qa_eval::{cosine, embed_task, evaluate, load_minilm, load_task, minilm_dir, parity_rows, questions_in, Channels};

#[test]
fn the_encoder_reproduces_sentence_transformers_vectors() {
    let emb = load_minilm();
    assert_eq!(emb.dim(), 384);
    let text = include_str!("../data/bert_parity.tsv");
    let mut worst = 1.0f32;
    let mut compared = 0;
    for (sentence, expected) in parity_rows(text) {
        let c = cosine(&emb.embed(sentence), &expected);
        assert!(c > 0.9999, "{sentence:?}: cosine {c} with sentence-transformers' vector");
        worst = worst.min(c);
        compared += 1;
    }
    eprintln!("{compared} sentences, worst cosine {worst:.6}");
    assert_eq!(compared, 56, "every reference sentence, the empty and the over-long one included");
}

#[test]
fn long_texts_are_cut_at_the_window_and_bad_model_files_are_typed_errors() {
    let emb = load_minilm();
    let ids = emb.tokenize(&"word ".repeat(1000));
    assert_eq!(ids.len(), 256, "[CLS] + 254 pieces + [SEP]");
    let dir = minilm_dir();
    let weights = std::fs::read(dir.join("model.safetensors")).expect("weights");
    let vocab = std::fs::read_to_string(dir.join("vocab.txt")).expect("vocab");
    let code = |w: &[u8], v: &str, c: BertConfig| BertEmbedder::from_safetensors(w, v, c).map(|_| ()).map_err(|e| e.code());
    assert_eq!(code(&weights[..weights.len() - 1], &vocab, BertConfig::MINILM_L6), Err("EMBED_MODEL"), "truncated weights");
    assert_eq!(code(&weights, &vocab[..vocab.len() / 2], BertConfig::MINILM_L6), Err("EMBED_MODEL"), "vocabulary of another model");
    assert_eq!(code(&weights, &vocab, BertConfig { heads: 7, max_tokens: 256 }), Err("EMBED_MODEL"), "heads that do not divide 384");
    assert_eq!(code(&weights, &vocab, BertConfig { heads: 12, max_tokens: 513 }), Err("EMBED_MODEL"), "window past the position table");
    assert_eq!(code(b"not a model", &vocab, BertConfig::MINILM_L6), Err("EMBED_MODEL"));
}

#[test]
fn through_the_core_the_encoder_finds_what_the_full_model_finds() {
    let emb = load_minilm();
    let task = load_task();
    let (a, q) = embed_task(&task, |t| emb.embed(t));
    let (english, english_q) = questions_in(&task, &q, false);
    // The weights for short answers (the default favours conversation: tests/long_conversation.rs).
    let w = engram_core::ChannelWeights::SHORT_ANSWERS;
    for (name, task, q) in [("English", &english, &english_q), ("all", &task, &q)] {
        let vector = evaluate(task, &a, q, Channels::Vector);
        let lexical = evaluate(task, &a, q, Channels::Lexical);
        let hybrid = evaluate(task, &a, q, Channels::Hybrid(w.vector, w.lexical));
        eprintln!("{name} recall@1/@10: vector {:.3}/{:.3}, BM25 {:.3}/{:.3}, hybrid {:.3}/{:.3}", vector.at1, vector.at10, lexical.at1, lexical.at10, hybrid.at1, hybrid.at10);
        if name == "English" {
            // sentence-transformers' own vectors score 0.393 / 0.709 (plain cosine ranking in
            // scripts/distill/distill.py); the core's recall over the same vectors must land
            // on it — importance and fusion may not overturn the ranking.
            assert!((vector.at10 - 0.709).abs() <= 0.005, "vector recall@10 {vector:?}");
            assert!((vector.at1 - 0.393).abs() <= 0.005, "vector recall@1 {vector:?}");
        }
        // At the short-answer weights the fused list is at least as good as either channel alone.
        assert!(hybrid.at10 >= vector.at10 && hybrid.at1 >= vector.at1, "{name}: hybrid {hybrid:?} vs vector {vector:?}");
        assert!(hybrid.at10 > lexical.at10 && hybrid.at1 > lexical.at1, "{name}: hybrid {hybrid:?} vs BM25 {lexical:?}");
    }
}
