//! The detectors: a pattern finds candidates, a check confirms them (boundaries,
//! checksums, ranges), and overlaps resolve by priority.

use std::sync::OnceLock;

use regex_lite::Regex;

use crate::pii::validate::{china_id, iban, luhn};
use crate::pii::PiiKind;

/// One confirmed finding: `text[start..end]` is the value to redact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PiiMatch {
    pub kind: PiiKind,
    pub start: usize,
    pub end: usize,
}

type Check = fn(&str, usize, usize) -> bool;

/// Cheap facts about a text that decide which detectors can possibly match, so most
/// texts (no digits, no `@`, no keyword) skip most patterns.
struct Gate {
    digits: usize,
    at: bool,
    colons: usize,
    lower: String,
}

impl Gate {
    fn of(text: &str) -> Self {
        Gate {
            digits: text.bytes().filter(u8::is_ascii_digit).count(),
            at: text.contains('@'),
            colons: text.bytes().filter(|b| *b == b':').count(),
            lower: text.to_lowercase(),
        }
    }
    fn any(&self, words: &[&str]) -> bool {
        words.iter().any(|w| self.lower.contains(w))
    }
}

struct Detector {
    kind: PiiKind,
    /// False when the pattern cannot match this text.
    gate: fn(&Gate) -> bool,
    re: Regex,
    /// Capture group holding the value (0 = the whole match).
    group: usize,
    check: Check,
}

fn detectors() -> &'static [Detector] {
    static D: OnceLock<Vec<Detector>> = OnceLock::new();
    D.get_or_init(|| {
        let mk = |kind, gate: fn(&Gate) -> bool, pattern: &str, group, check: Check| Detector {
            kind,
            gate,
            // The patterns are constants of this file; a bad one is a bug caught by the tests.
            re: Regex::new(pattern).unwrap_or_else(|e| unreachable!("PII pattern {pattern}: {e}")),
            group,
            check,
        };
        vec![
            mk(
                PiiKind::Secret, |g| g.any(&["pass", "pwd", "pin", "secret", "key", "token"]),
                r#"(?i)\b(?:password|passwd|pwd|passcode|pin(?: ?code)?|secret|api[ _-]?key|access[ _-]?token|token)(?:\s+for(?:\s+[^\s:=]{1,30}){1,4})?\s*(?:is|was|:|=|：)\s*["'“]?([^\s"'”,;，。；]{3,})"#,
                1,
                stated_secret,
            ),
            mk(
                PiiKind::Secret, |g| g.any(&["密码", "口令", "密钥", "验证码", "pin码"]),
                r#"(?:密码|口令|密钥|支付密码|验证码|PIN码)\s*(?:是|为|:|：|=)?\s*["'“]?([^\s"'”，。,;；]{3,})"#,
                1,
                stated_secret_zh,
            ),
            mk(
                PiiKind::ApiKey, |g| g.any(&["sk-", "akia", "asia", "gh", "github_pat_", "xox", "aiza", "_live_", "_test_", "glpat-", "hf_", "npm_", "eyj"]),
                r"(?:sk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z]{30,}|npm_[A-Za-z0-9]{36}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
                0,
                not_inside_word,
            ),
            mk(PiiKind::ApiKey, |g| g.lower.contains("bearer"), r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)", 1, always),
            mk(
                PiiKind::Email, |g| g.at,
                r"(?i)[a-z0-9][a-z0-9._%+-]{0,63}@[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)*\.[a-z]{2,24}",
                0,
                always,
            ),
            mk(PiiKind::ChinaId, |g| g.digits >= 17, r"\d{17}[\dXx]", 0, |t, s, e| digit_bounded(t, s, e) && china_id(&t.as_bytes()[s..e])),
            mk(PiiKind::Card, |g| g.digits >= 13, r"\d(?:[ -]?\d){12,18}", 0, card),
            mk(PiiKind::Iban, |g| g.digits >= 6, r"[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?", 0, iban_check),
            mk(PiiKind::Ip, |g| g.digits >= 4, r"\d{1,3}(?:\.\d{1,3}){3}", 0, ipv4),
            mk(PiiKind::Ip, |g| g.colons >= 2, r"[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}", 0, ipv6),
            mk(PiiKind::Phone, |g| g.digits >= 11, r"(?:\+?86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}", 0, digit_bounded),
            mk(PiiKind::Phone, |g| g.digits >= 10, r"0\d{2,3}-\d{7,8}", 0, digit_bounded),
            mk(PiiKind::Phone, |g| g.digits >= 8, r"\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}", 0, intl_phone),
            mk(PiiKind::Phone, |g| g.digits >= 10, r"(?:\+?1[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}", 0, digit_bounded),
        ]
    })
}

/// Find PII in `text`: non-overlapping, in text order. Earlier detectors win overlaps.
pub fn detect(text: &str) -> Vec<PiiMatch> {
    let mut kept: Vec<PiiMatch> = Vec::new();
    let gate = Gate::of(text);
    for d in detectors().iter().filter(|d| (d.gate)(&gate)) {
        for caps in d.re.captures_iter(text) {
            let Some(m) = caps.get(d.group) else { continue };
            let (s, e) = (m.start(), m.end());
            if !(d.check)(text, s, e) {
                continue;
            }
            if kept.iter().any(|k| s < k.end && k.start < e) {
                continue;
            }
            kept.push(PiiMatch { kind: d.kind, start: s, end: e });
        }
    }
    crate::sort::sort_by_key(&mut kept, |m| m.start);
    kept
}

fn always(_: &str, _: usize, _: usize) -> bool {
    true
}

fn before(t: &str, s: usize) -> Option<char> {
    t[..s].chars().next_back()
}
fn after(t: &str, e: usize) -> Option<char> {
    t[e..].chars().next()
}

/// Not glued to other digits (an 11-digit phone inside a 20-digit order number is not one).
fn digit_bounded(t: &str, s: usize, e: usize) -> bool {
    !before(t, s).is_some_and(|c| c.is_ascii_digit()) && !after(t, e).is_some_and(|c| c.is_ascii_digit())
}

fn not_inside_word(t: &str, s: usize, e: usize) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    !before(t, s).is_some_and(word) && !after(t, e).is_some_and(word)
}

fn card(t: &str, s: usize, e: usize) -> bool {
    if !digit_bounded(t, s, e) {
        return false;
    }
    let digits: Vec<u8> = t[s..e].bytes().filter(u8::is_ascii_digit).collect();
    (13..=19).contains(&digits.len())
        && (b'2'..=b'6').contains(&digits[0])
        && digits.iter().any(|d| *d != digits[0])
        && luhn(&digits)
}

fn iban_check(t: &str, s: usize, e: usize) -> bool {
    let alnum = |c: char| c.is_ascii_alphanumeric();
    if before(t, s).is_some_and(alnum) || after(t, e).is_some_and(alnum) {
        return false;
    }
    let compact: Vec<u8> = t[s..e].bytes().filter(|b| *b != b' ').collect();
    iban(&compact)
}

fn ipv4(t: &str, s: usize, e: usize) -> bool {
    let b = before(t, s);
    if b.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.') {
        return false;
    }
    let mut rest = t[e..].chars();
    if let Some(c) = rest.next() {
        if c.is_ascii_digit() || (c == '.' && rest.next().is_some_and(|d| d.is_ascii_digit())) {
            return false;
        }
    }
    t[s..e].split('.').all(|o| o.parse::<u16>().is_ok_and(|v| v <= 255) && (o.len() == 1 || !o.starts_with('0')))
}

fn ipv6(t: &str, s: usize, e: usize) -> bool {
    let v = &t[s..e];
    let hexword = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    if before(t, s).is_some_and(hexword) || after(t, e).is_some_and(hexword) {
        return false;
    }
    let compressed = v.matches("::").count();
    let colons = v.matches(':').count();
    let groups = v.split(':').filter(|g| !g.is_empty()).count();
    compressed <= 1 && !v.contains(":::") && groups >= 2 && (colons == 7 || (compressed == 1 && colons <= 7))
}

fn intl_phone(t: &str, s: usize, e: usize) -> bool {
    let n = t[s..e].bytes().filter(u8::is_ascii_digit).count();
    digit_bounded(t, s, e) && (8..=15).contains(&n)
}

/// Words that follow "password is" without being a password.
const NOT_SECRETS: &[&str] = &[
    "too", "very", "not", "the", "a", "an", "weak", "strong", "wrong", "correct", "incorrect", "required", "expired",
    "changed", "same", "different", "invalid", "valid", "missing", "empty", "set", "reset", "saved", "stored",
    "incorrect", "case", "sensitive", "long", "short", "secure", "safe", "unsafe", "needed", "protected", "hidden",
];

/// A stated secret: the value holds a digit or a symbol, or is a single quoted/final word
/// that is not a common adjective ("the password is too short" is not a password).
fn stated_secret(t: &str, s: usize, e: usize) -> bool {
    let v = &t[s..e];
    if v.chars().any(|c| !c.is_alphabetic()) {
        return true;
    }
    let quoted = before(t, s).is_some_and(|c| matches!(c, '"' | '\'' | '“'));
    let final_word = after(t, e).is_none_or(|c| matches!(c, '.' | '!' | '\n' | ')' | '"' | '\'' | '”'));
    (quoted || final_word) && !NOT_SECRETS.contains(&v.to_lowercase().as_str())
}

/// Chinese: the value must contain an ASCII letter or digit ("密码是多少" asks, it does not tell).
fn stated_secret_zh(t: &str, s: usize, e: usize) -> bool {
    t[s..e].chars().any(|c| c.is_ascii_alphanumeric())
}
