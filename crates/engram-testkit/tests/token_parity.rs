//! engram's BPE against tiktoken-rs (an independent implementation with fancy-regex
//! lookahead) on a seeded multilingual corpus: identical token ids, zero mismatches.

use engram_core::Encoding;
use engram_testkit::{corpus, tables};
use proptest::prelude::*;

fn assert_parity(enc: Encoding, text: &str) {
    let ours = tables::bpe(enc);
    let theirs = tables::reference(enc);
    let expected = theirs.encode_ordinary(text);
    assert_eq!(ours.encode(text), expected, "{} ids differ on {:?}", enc.name(), text);
    assert_eq!(ours.count(text), expected.len());
}

#[test]
fn ids_match_tiktoken_on_a_multilingual_corpus_line_by_line_and_whole() {
    let text = corpus::multilingual(300_000, 7);
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let mut pieces = 0;
        for chunk in text.split_inclusive('\n') {
            assert_parity(enc, chunk);
            pieces += 1;
        }
        assert!(pieces > 1000, "the corpus should have many lines, had {pieces}");
        assert_parity(enc, &text);
    }
}

#[test]
fn whitespace_runs_before_words_split_like_tiktoken() {
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for t in ["a  b", "a   \n  b", "   x", "x   ", "\t\t y", "a\u{3000}\u{3000}b", " \n \n x", "a \u{00a0} b", "\r\n\r\n  z", "  "] {
            assert_parity(enc, t);
        }
    }
}

#[test]
fn encoded_tokens_decode_back_to_the_text() {
    let bpe = tables::bpe(Encoding::O200kBase);
    let text = corpus::multilingual(20_000, 3);
    assert_eq!(bpe.decode_bytes(&bpe.encode(&text)).expect("ordinary ids"), text.as_bytes());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn arbitrary_unicode_tokenizes_like_tiktoken(s in "\\PC{0,60}") {
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let expected = tables::reference(enc).encode_ordinary(&s);
            prop_assert_eq!(tables::bpe(enc).encode(&s), expected);
        }
    }

    #[test]
    fn strings_from_a_tricky_alphabet_split_exactly_like_tiktoken(
        chars in proptest::collection::vec(proptest::sample::select(vec![
            'a', 'A', 'z', 'Q', 'ǅ', 'ʰ', '中', '\u{301}', '\u{903}', '1', '٣', 'Ⅻ', '½', ' ', '\t', '\n', '\r',
            '\u{a0}', '\u{3000}', '\u{2028}', '\'', 's', 'S', 'ſ', 't', 'T', 'r', 'e', 'E', 'v', 'm', 'l', 'L', 'd',
            'K', '/', '.', '!', '😀', '_', '-', '\u{200d}', '\u{fe0f}', 'é', 'ß', 'İ',
        ]), 0..40)
    ) {
        let s: String = chars.into_iter().collect();
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let expected = tables::reference(enc).encode_ordinary(&s);
            prop_assert_eq!(tables::bpe(enc).encode(&s), expected, "{} on {:?}", enc.name(), s);
        }
    }

    /// Runs of letters with nothing between are one piece each, merged a chunk at a time.
    #[test]
    fn long_pieces_with_no_break_tokenize_like_tiktoken(
        chars in proptest::collection::vec(proptest::sample::select(vec![
            'a', 'a', 'a', 'b', 'n', 'e', 's', 't', 'r', 'A', 'Q', 'z', 'é', 'ß', '中', '文', '的', 'ш', 'я', 'ا', '\u{301}',
        ]), 100..1500)
    ) {
        let s: String = chars.into_iter().collect();
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let expected = tables::reference(enc).encode_ordinary(&s);
            prop_assert_eq!(tables::bpe(enc).encode(&s), expected, "{} on {:?}", enc.name(), s);
        }
    }

    #[test]
    fn truncation_never_exceeds_the_budget_or_splits_a_character(s in "\\PC{0,120}", max in 0usize..40) {
        let bpe = tables::bpe(Encoding::O200kBase);
        let (prefix, n) = bpe.truncate(&s, max);
        prop_assert!(s.starts_with(prefix));
        prop_assert!(n <= max);
        prop_assert_eq!(bpe.count(prefix), n);
        // A char boundary in UTF-8 is a code point boundary, so no surrogate pair is split.
        prop_assert!(s.is_char_boundary(prefix.len()));
        let utf16: Vec<u16> = prefix.encode_utf16().collect();
        prop_assert!(String::from_utf16(&utf16).is_ok());
        if bpe.count(&s) <= max {
            prop_assert_eq!(prefix, s.as_str());
        }
    }

    #[test]
    fn the_heuristic_estimate_truncates_within_its_own_budget(s in "\\PC{0,120}", max in 0usize..40) {
        let (prefix, n) = engram_core::context::tokens::heuristic::truncate(&s, max);
        prop_assert!(n <= max && s.starts_with(prefix));
        prop_assert_eq!(engram_core::context::tokens::heuristic::estimate(prefix), n);
    }
}

#[test]
fn runs_of_one_letter_and_of_words_without_spaces_tokenize_like_tiktoken() {
    let words = "thequickbrownfoxjumpsoverthelazydog";
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for n in [127, 128, 129, 191, 200, 513, 1000, 4096] {
            for c in ["a", "e", "z", "x", "中", "я"] {
                assert_parity(enc, &c.repeat(n));
            }
            assert_parity(enc, &words.repeat(n / words.len() + 1));
            assert_parity(enc, &"ab".repeat(n / 2));
            assert_parity(enc, &"aab".repeat(n / 3));
        }
    }
}

#[test]
fn truncation_keeps_as_many_tokens_as_fit() {
    let bpe = tables::bpe(Encoding::O200kBase);
    let text = "The quick brown fox jumps over the lazy dog. 用户叫张三，在阿里巴巴做算法工程师。🎉🚀";
    let total = bpe.count(text);
    for max in 0..=total {
        let (prefix, n) = bpe.truncate(text, max);
        assert!(n <= max);
        // Never gives back more than one token's worth of room when it cuts inside a piece
        // that ends on a multi-byte character.
        assert!(n + 2 >= max.min(total), "max {max}: kept only {n} tokens of {prefix:?}");
    }
}

#[test]
fn the_exported_table_has_tiktoken_vocabulary_sizes() {
    assert_eq!(tables::bpe(Encoding::O200kBase).table().len(), 199_998);
    assert_eq!(tables::bpe(Encoding::Cl100kBase).table().len(), 100_256);
}
