//! tiktoken's pre-tokenizers for `o200k_base` and `cl100k_base`, hand-written.
//!
//! Both encodings split text with a fixed regular expression, an alternation tried
//! leftmost-first with greedy quantifiers (and, for whitespace, a `\s+(?!\S)` lookahead).
//! A regex engine costs ~330 KB of wasm code plus Unicode tables; these two patterns are
//! small enough to run as scanners over general categories. Each function below names the
//! alternative it implements and resolves its backtracking in closed form. Parity with
//! tiktoken (fancy-regex) and js-tiktoken is tested on a multilingual corpus and on
//! arbitrary Unicode.

use unicode_general_category::{get_general_category, GeneralCategory as G};

use crate::error::{Error, Result};

/// General category, with ASCII answered without a table search (every ASCII char that is
/// not a letter or digit is reported as punctuation: the scanners only ask about letters,
/// numbers and marks).
#[inline(always)]
fn gc(c: char) -> G {
    match c {
        'a'..='z' => G::LowercaseLetter,
        'A'..='Z' => G::UppercaseLetter,
        '0'..='9' => G::DecimalNumber,
        '\0'..='\x7f' => G::OtherPunctuation,
        _ => get_general_category(c),
    }
}

#[inline]
fn is_letter(c: char) -> bool {
    matches!(gc(c), G::UppercaseLetter | G::LowercaseLetter | G::TitlecaseLetter | G::ModifierLetter | G::OtherLetter)
}
#[inline]
fn is_number(c: char) -> bool {
    matches!(gc(c), G::DecimalNumber | G::LetterNumber | G::OtherNumber)
}
#[inline]
fn is_mark(c: char) -> bool {
    matches!(gc(c), G::NonspacingMark | G::SpacingMark | G::EnclosingMark)
}
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
#[inline]
fn is_upperish(c: char) -> bool {
    matches!(gc(c), G::UppercaseLetter | G::TitlecaseLetter | G::ModifierLetter | G::OtherLetter) || is_mark(c)
}
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
#[inline]
fn is_lowerish(c: char) -> bool {
    matches!(gc(c), G::LowercaseLetter | G::ModifierLetter | G::OtherLetter) || is_mark(c)
}
/// `[^\r\n\p{L}\p{N}]` — the optional one-character prefix of a word.
#[inline]
fn is_prefix(c: char) -> bool {
    c != '\r' && c != '\n' && !is_letter(c) && !is_number(c)
}
/// `[^\s\p{L}\p{N}]` — punctuation and symbols.
#[inline]
fn is_symbol(c: char) -> bool {
    !c.is_whitespace() && !is_letter(c) && !is_number(c)
}

/// Byte length of a case-insensitive `'s|'t|'re|'ve|'m|'ll|'d` at the start of `s`.
fn contraction(s: &str) -> usize {
    let mut it = s.chars();
    if it.next() != Some('\'') {
        return 0;
    }
    let (a, b) = (it.next(), it.next());
    // Unicode case folding: 'ſ' (U+017F) folds to 's'; 'K' (Kelvin) is not among these letters.
    let fold = |c: Option<char>| c.map(|c| if c == 'ſ' { 's' } else { c.to_ascii_lowercase() });
    let (a, b) = (fold(a), fold(b));
    let len = |cs: &[Option<char>]| 1 + cs.iter().map(|c| c.map_or(0, char::len_utf8)).sum::<usize>();
    match (a, b) {
        (Some('s' | 't' | 'm' | 'd'), _) => len(&[s[1..].chars().next()]),
        (Some('r' | 'v'), Some('e')) => len(&[s[1..].chars().next(), s[1..].chars().nth(1)]),
        (Some('l'), Some('l')) => len(&[s[1..].chars().next(), s[1..].chars().nth(1)]),
        _ => 0,
    }
}

/// Byte length of the longest run at the start of `s` whose chars satisfy `f`.
#[inline]
fn run(s: &str, f: impl Fn(char) -> bool) -> usize {
    s.char_indices().find(|&(_, c)| !f(c)).map_or(s.len(), |(i, _)| i)
}

/// The encodings engram knows how to pre-tokenize.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// GPT-4o / GPT-4.1 / o-series / GPT-5. The default.
    O200kBase,
    /// GPT-4 / GPT-3.5.
    Cl100kBase,
}

impl Encoding {
    /// The name tiktoken uses.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Look an encoding up by its tiktoken name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "o200k_base" => Ok(Encoding::O200kBase),
            "cl100k_base" => Ok(Encoding::Cl100kBase),
            other => Err(Error::TokenTable(format!("unknown encoding {other:?}; expected o200k_base or cl100k_base"))),
        }
    }
}

/// The end (relative to `s`) of a piece at the start of `s`; `s` is not empty.
pub fn next_piece(encoding: Encoding, s: &str) -> usize {
    match encoding {
        Encoding::O200kBase => o200k(s),
        Encoding::Cl100kBase => cl100k(s),
    }
}

fn first(s: &str) -> (char, usize) {
    s.chars().next().map_or(('\0', 0), |c| (c, c.len_utf8()))
}

/// `[^\r\n\p{L}\p{N}]?` then `body`, as a backtracking engine runs it: first with the
/// prefix consumed, then without. (Both can apply: a combining mark is in the prefix class
/// and in the word classes.)
fn with_prefix(s: &str, body: impl Fn(&str) -> Option<usize>) -> Option<usize> {
    let (c, n) = first(s);
    if is_prefix(c) {
        if let Some(e) = body(&s[n..]) {
            return Some(n + e);
        }
    }
    body(s)
}

fn o200k(s: &str) -> usize {
    // 1. [^\r\n\p{L}\p{N}]?[U]*[L]+(?i:'s|…)?   (U = Lu Lt Lm Lo M, L = Ll Lm Lo M)
    let a1 = |t: &str| -> Option<usize> {
        let u = run(t, is_upperish);
        let end = if t[u..].chars().next().is_some_and(is_lowerish) {
            u + run(&t[u..], is_lowerish)
        } else {
            // Backtrack into the U-run: L+ takes its last char that is also in L.
            let (i, c) = t[..u].char_indices().rev().find(|&(_, c)| is_lowerish(c))?;
            i + c.len_utf8()
        };
        Some(end + contraction(&t[end..]))
    };
    if let Some(e) = with_prefix(s, a1) {
        return e;
    }
    // 2. [^\r\n\p{L}\p{N}]?[U]+[L]*(?i:'s|…)?
    let a2 = |t: &str| -> Option<usize> {
        let u = run(t, is_upperish);
        if u == 0 {
            return None;
        }
        let end = u + run(&t[u..], is_lowerish);
        Some(end + contraction(&t[end..]))
    };
    if let Some(e) = with_prefix(s, a2) {
        return e;
    }
    common_tail(s, true)
}

fn cl100k(s: &str) -> usize {
    // 1. (?i:'s|'t|'re|'ve|'m|'ll|'d)
    let c = contraction(s);
    if c > 0 {
        return c;
    }
    // 2. [^\r\n\p{L}\p{N}]?\p{L}+
    let a2 = |t: &str| -> Option<usize> {
        let l = run(t, is_letter);
        (l > 0).then_some(l)
    };
    if let Some(e) = with_prefix(s, a2) {
        return e;
    }
    common_tail(s, false)
}

/// The alternatives both patterns end with:
/// `\p{N}{1,3} | ' '?[^\s\p{L}\p{N}]+[\r\n(/)]* | \s*[\r\n]+ | \s+(?!\S) | \s+`.
fn common_tail(s: &str, slash: bool) -> usize {
    let (c, n) = first(s);
    // \p{N}{1,3}
    if is_number(c) {
        return s.chars().take(3).take_while(|ch| is_number(*ch)).map(char::len_utf8).sum();
    }
    // ' '?[^\s\p{L}\p{N}]+[\r\n/]*  (o200k) or [\r\n]* (cl100k)
    let sym_start = if c == ' ' && s[n..].chars().next().is_some_and(is_symbol) { n } else { 0 };
    if sym_start > 0 || is_symbol(c) {
        let e = sym_start + run(&s[sym_start..], is_symbol);
        return e + run(&s[e..], |c| c == '\r' || c == '\n' || (slash && c == '/'));
    }
    // Whitespace (c is whitespace here: every other char is a letter, number or symbol).
    let w = run(s, char::is_whitespace);
    // \s*[\r\n]+ : up to and including the last newline in the run.
    if let Some((i, ch)) = s[..w].char_indices().rev().find(|&(_, ch)| ch == '\r' || ch == '\n') {
        return i + ch.len_utf8();
    }
    // \s+(?!\S) : the run, less its last char when a non-space follows and it is longer than one.
    if w < s.len() {
        if let Some((last, _)) = s[..w].char_indices().next_back() {
            if last > 0 {
                return last;
            }
        }
    }
    // \s+
    w.max(n)
}
