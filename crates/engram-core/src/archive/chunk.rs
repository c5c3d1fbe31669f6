//! Token-bounded chunking. A document is cut into pieces that each fit the budget —
//! at headings first, then paragraphs, lines, sentences (English and Chinese punctuation),
//! words (and single CJK characters), and as a last resort inside a word — and the pieces
//! are packed greedily into chunks, every chunk counted exactly with the engine's tokenizer.
//! Each chunk after the first begins with an overlap: the tail of the previous chunk, at a
//! word boundary, within the overlap budget. Chunks are byte ranges of the text, so the
//! first chunk followed by every other chunk without its overlap is the text again.
//!
//! ```
//! use engram_core::archive::chunk::chunk;
//! use engram_core::Tokenizer;
//! let text = "# Setup\n\nInstall the tool. Run it once.\n\n# Use\n\nCall it daily.";
//! let chunks = chunk(text, &Tokenizer::Heuristic, 16, 4).unwrap();
//! assert!(chunks.iter().all(|c| c.tokens <= 16));
//! let mut back = String::new();
//! for c in &chunks { back.push_str(&text[c.start + c.overlap..c.end]); }
//! assert_eq!(back, text);
//! ```

use crate::error::{Error, Result};
use crate::index::lexical::terms::is_cjk;
use crate::context::tokens::Tokenizer;

/// The smallest chunk budget: room for any single character (at most 4 byte tokens).
pub const MIN_CHUNK_TOKENS: usize = 8;
/// The largest chunk budget.
pub const MAX_CHUNK_TOKENS: usize = 8192;
/// One chunk: `text[start..end]`, whose first `overlap` bytes repeat the end of the
/// previous chunk, and its exact token count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub overlap: usize,
    pub tokens: usize,
}

/// Where a piece may begin, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cut {
    Heading,
    Paragraph,
    Line,
    Sentence,
    Word,
    Inside,
}

const LEVELS: [Cut; 5] = [Cut::Heading, Cut::Paragraph, Cut::Line, Cut::Sentence, Cut::Word];

/// A piece of the text that fits the budget on its own, and the cut it begins at.
#[derive(Debug, Clone, Copy)]
struct Piece {
    end: usize,
    lead: Cut,
}

/// Cut `text` into chunks of at most `max_tokens` with up to `overlap_tokens` of overlap.
/// Refused when the budget is out of range or the overlap is more than half of it.
pub fn chunk(text: &str, tok: &Tokenizer, max_tokens: usize, overlap_tokens: usize) -> Result<Vec<Span>> {
    if !(MIN_CHUNK_TOKENS..=MAX_CHUNK_TOKENS).contains(&max_tokens) {
        return Err(Error::invalid("chunkTokens", format!("must be {MIN_CHUNK_TOKENS}..={MAX_CHUNK_TOKENS}")));
    }
    if overlap_tokens * 2 > max_tokens {
        return Err(Error::invalid("chunkOverlap", "must be at most half of chunkTokens"));
    }
    let fits = |s: &str| tok.count(s).tokens <= max_tokens;
    let mut pieces = Vec::new();
    split(text, 0, text.len(), 0, Cut::Heading, tok, max_tokens, &fits, &mut pieces);
    Ok(pack(text, &pieces, tok, max_tokens, overlap_tokens))
}

/// Cut `text[start..end]` at the cuts of `LEVELS[level]`, recursing into what does not fit.
#[allow(clippy::too_many_arguments)]
fn split(text: &str, start: usize, end: usize, level: usize, lead: Cut, tok: &Tokenizer, max: usize, fits: &dyn Fn(&str) -> bool, out: &mut Vec<Piece>) {
    if start == end {
        return;
    }
    if fits(&text[start..end]) {
        out.push(Piece { end, lead });
        return;
    }
    let Some(&cut) = LEVELS.get(level) else {
        // Inside a word: the longest prefixes that fit, one after another.
        let mut at = start;
        let mut first = true;
        while at < end {
            // Look no further than a window that outlasts the budget: pre-tokenizing the
            // whole rest of a megabyte-long word for each chunk would be quadratic.
            let mut stop = end.min(at.saturating_add(tok.window(max)));
            while !text.is_char_boundary(stop) {
                stop += 1;
            }
            let (pre, _) = tok.truncate(&text[at..stop], max);
            let len = if pre.is_empty() { text[at..end].chars().next().map_or(1, char::len_utf8) } else { pre.len() };
            at += len;
            out.push(Piece { end: at, lead: if first { lead } else { Cut::Inside } });
            first = false;
        }
        return;
    };
    let mut from = start;
    let mut first = true;
    for c in cuts(&text[start..end], cut).into_iter().map(|c| start + c).chain([end]) {
        if c > from {
            split(text, from, c, level + 1, if first { lead } else { cut }, tok, max, fits, out);
            from = c;
            first = false;
        }
    }
}

/// Byte offsets (inside `s`, not 0) where a piece of kind `cut` may begin.
fn cuts(s: &str, cut: Cut) -> Vec<usize> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    match cut {
        Cut::Heading => {
            for (i, _) in s.match_indices('\n') {
                if b.get(i + 1) == Some(&b'#') {
                    out.push(i + 1);
                }
            }
        }
        Cut::Paragraph | Cut::Line => {
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'\n' {
                    let mut j = i;
                    while j < b.len() && (b[j] == b'\n' || b[j] == b'\r' || b[j] == b' ' || b[j] == b'\t') {
                        j += 1;
                    }
                    let blank = b[i..j].iter().filter(|&&c| c == b'\n').count() >= 2;
                    if j < b.len() && (cut == Cut::Line || blank) {
                        out.push(j);
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
        }
        Cut::Sentence | Cut::Word => {
            let mut it = s.char_indices().peekable();
            while let Some((i, c)) = it.next() {
                let next = it.peek().copied();
                let ends = match cut {
                    Cut::Sentence => matches!(c, '。' | '！' | '？' | '；' | '…') || (matches!(c, '.' | '!' | '?' | ';') && next.is_some_and(|(_, d)| d.is_whitespace())),
                    _ => c.is_whitespace() || is_cjk(c) || next.is_some_and(|(_, d)| is_cjk(d)),
                };
                if !ends {
                    continue;
                }
                // The cut goes after the whitespace that follows.
                let mut at = i + c.len_utf8();
                while let Some(&(j, d)) = it.peek() {
                    if !d.is_whitespace() {
                        break;
                    }
                    at = j + d.len_utf8();
                    it.next();
                }
                if at < s.len() {
                    out.push(at);
                }
            }
        }
        Cut::Inside => {}
    }
    out
}

/// Pack pieces greedily into chunks of at most `max` tokens, each after the first opening
/// with an overlap of at most `overlap` tokens. A chunk past half its budget ends before a
/// heading rather than run into the next section.
fn pack(text: &str, pieces: &[Piece], tok: &Tokenizer, max: usize, overlap: usize) -> Vec<Span> {
    let count = |a: usize, b: usize| tok.count(&text[a..b]).tokens;
    let mut out: Vec<Span> = Vec::new();
    let mut i = 0;
    let mut piece_start = 0;
    while i < pieces.len() {
        let body = piece_start;
        let mut start = out.last().map_or(body, |prev| overlap_start(text, prev, tok, overlap));
        if start < body && count(start, pieces[i].end) > max {
            start = body;
        }
        let mut end = pieces[i].end;
        let mut tokens = count(start, end);
        i += 1;
        while i < pieces.len() {
            if pieces[i].lead == Cut::Heading && tokens * 2 >= max {
                break;
            }
            let t = count(start, pieces[i].end);
            if t > max {
                break;
            }
            end = pieces[i].end;
            tokens = t;
            i += 1;
        }
        out.push(Span { start, end, overlap: body - start, tokens });
        piece_start = end;
    }
    out
}

/// Where the overlap after `prev` begins: the earliest word boundary inside `prev` (not its
/// start) from which the rest of `prev` fits `overlap` tokens; `prev.end` when none does.
fn overlap_start(text: &str, prev: &Span, tok: &Tokenizer, overlap: usize) -> usize {
    if overlap == 0 {
        return prev.end;
    }
    let inner = &text[prev.start..prev.end];
    let mut best = prev.end;
    for at in cuts(inner, Cut::Word).into_iter().rev().map(|c| prev.start + c) {
        if at <= prev.start || tok.count(&text[at..prev.end]).tokens > overlap {
            break;
        }
        best = at;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rebuild(text: &str, spans: &[Span]) -> String {
        spans.iter().map(|c| &text[c.start + c.overlap..c.end]).collect()
    }

    fn words() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            "[a-z]{1,12}",
            "[A-Z][a-z]{0,8}[.!?]",
            "[\u{4e00}-\u{4e80}]{1,6}[。，！？]?",
            Just("\n\n".to_owned()),
            Just("\n# Heading\n".to_owned()),
            "[a-z]{30,90}",
        ];
        proptest::collection::vec(word, 0..300).prop_map(|w| w.join(" "))
    }

    proptest! {
        #[test]
        fn no_chunk_exceeds_its_budget_and_the_chunks_minus_overlap_are_the_text(text in words(), max in 8usize..120, ov in 0usize..4) {
            let overlap = max * ov / 8;
            let spans = chunk(&text, &Tokenizer::Heuristic, max, overlap).unwrap();
            for s in &spans {
                prop_assert!(s.tokens <= max);
                prop_assert_eq!(s.tokens, Tokenizer::Heuristic.count(&text[s.start..s.end]).tokens);
                prop_assert!(s.overlap < s.end - s.start);
                prop_assert!(Tokenizer::Heuristic.count(&text[s.start..s.start + s.overlap]).tokens <= overlap);
            }
            prop_assert_eq!(rebuild(&text, &spans), text.clone());
            prop_assert_eq!(chunk(&text, &Tokenizer::Heuristic, max, overlap).unwrap(), spans);
        }
    }

    #[test]
    fn chunks_end_at_headings_and_paragraphs_before_sentences() {
        let text = "# One\n\nFirst part here. It has two sentences.\n\n# Two\n\nSecond part is here too.";
        let spans = chunk(text, &Tokenizer::Heuristic, 20, 0).unwrap();
        let texts: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(texts, ["# One\n\nFirst part here. It has two sentences.\n\n", "# Two\n\nSecond part is here too."]);
    }

    #[test]
    fn chinese_is_cut_after_its_sentence_marks() {
        let text = "我住在杭州。我在阿里巴巴工作。我喜欢喝龙井茶。周末我去西湖散步。";
        let spans = chunk(text, &Tokenizer::Heuristic, 16, 0).unwrap();
        for s in &spans {
            assert!(text[s.start..s.end].ends_with('。'), "{:?}", &text[s.start..s.end]);
        }
        assert_eq!(rebuild(text, &spans), text);
    }

    #[test]
    fn the_overlap_repeats_the_end_of_the_previous_chunk() {
        let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau";
        let spans = chunk(text, &Tokenizer::Heuristic, 12, 4).unwrap();
        assert!(spans.len() > 2);
        for w in spans.windows(2) {
            assert!(w[1].overlap > 0);
            assert!(text[w[0].start..w[0].end].ends_with(&text[w[1].start..w[1].start + w[1].overlap]));
        }
    }

    #[test]
    fn a_budget_out_of_range_or_too_much_overlap_is_refused() {
        assert!(chunk("x", &Tokenizer::Heuristic, 4, 0).is_err());
        assert!(chunk("x", &Tokenizer::Heuristic, 64, 40).is_err());
        assert!(chunk("", &Tokenizer::Heuristic, 64, 8).unwrap().is_empty());
    }
}
