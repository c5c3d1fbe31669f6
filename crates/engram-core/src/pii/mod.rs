//! PII detection and redaction, before anything is stored (seed 001: "always scrub
//! passwords, payment details, secrets, emails and phone numbers before storing").
//!
//! Detectors are patterns plus validators, so look-alikes are left alone: card numbers
//! must pass Luhn, resident IDs their MOD 11-2 check and birth date, IBANs mod 97, IPs
//! their octet ranges. Overlaps resolve by priority (a secret beats the email inside it).
//! Redaction is deterministic: `[EMAIL]` by default (irreversible); with a pseudonym key
//! `[EMAIL#1f3a…]` (linkable, still irreversible); with a [`RedactionKey`] the user holds,
//! `[EMAIL#…]` plus the value sealed into the record, reversible only with that key.

mod detect;
mod kind;
mod seal;
mod validate;

use serde::{Deserialize, Serialize};

pub use detect::{detect, PiiMatch};
pub use kind::PiiKind;
pub use seal::{RedactionKey, Sealed};

use crate::model::Sensitivity;

/// What to do with a memory of a sensitivity tier that contains PII.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PiiAction {
    /// Replace each value with a placeholder and store the rest.
    Redact,
    /// Store nothing.
    Drop,
    /// Store as is (the user consented); secrets, keys and card numbers are still redacted.
    KeepWithConsent,
}

/// The PII policy per sensitivity tier, and the optional pseudonym key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PiiPolicy {
    pub public: PiiAction,
    pub session: PiiAction,
    pub personal: PiiAction,
    /// With a key, placeholders carry a keyed tag of the value (`[EMAIL#…]`).
    pub pseudonym_key: Option<u64>,
}

impl Default for PiiPolicy {
    fn default() -> Self {
        PiiPolicy { public: PiiAction::Redact, session: PiiAction::Redact, personal: PiiAction::Redact, pseudonym_key: None }
    }
}

impl PiiPolicy {
    /// The action for a tier.
    pub fn action(&self, tier: Sensitivity) -> PiiAction {
        match tier {
            Sensitivity::Public => self.public,
            Sensitivity::Session => self.session,
            Sensitivity::Personal => self.personal,
        }
    }
}

/// The result of scrubbing a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scrubbed {
    /// The text to store (possibly with placeholders), the kinds replaced and, with a
    /// redaction key, the sealed values behind the placeholders.
    Store { text: String, redacted: Vec<PiiKind>, sealed: Vec<Sealed> },
    /// The policy says not to store this text; the kinds that caused it.
    Drop { found: Vec<PiiKind> },
}

/// Apply `policy` for `tier` to `text`; with `key`, values are sealed (reversible).
pub fn scrub(text: &str, tier: Sensitivity, policy: &PiiPolicy, key: Option<&RedactionKey>) -> Scrubbed {
    let found = detect(text);
    if found.is_empty() {
        return Scrubbed::Store { text: text.to_owned(), redacted: Vec::new(), sealed: Vec::new() };
    }
    let action = policy.action(tier);
    let mut kinds: Vec<PiiKind> = found.iter().map(|m| m.kind).collect();
    crate::sort::sort(&mut kinds);
    kinds.dedup();
    if action == PiiAction::Drop {
        return Scrubbed::Drop { found: kinds };
    }
    let keep = |k: PiiKind| action == PiiAction::KeepWithConsent && !k.always_redacted();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut redacted = Vec::new();
    let mut sealed: Vec<Sealed> = Vec::new();
    for m in &found {
        if keep(m.kind) {
            continue;
        }
        out.push_str(&text[last..m.start]);
        let value = &text[m.start..m.end];
        match key {
            Some(k) => {
                let s = k.seal(m.kind, value);
                out.push_str(&s.placeholder);
                if !sealed.contains(&s) {
                    sealed.push(s);
                }
            }
            None => out.push_str(&placeholder(m.kind, value, policy.pseudonym_key)),
        }
        last = m.end;
        redacted.push(m.kind);
    }
    out.push_str(&text[last..]);
    crate::sort::sort(&mut redacted);
    redacted.dedup();
    Scrubbed::Store { text: out, redacted, sealed }
}

fn placeholder(kind: PiiKind, value: &str, key: Option<u64>) -> String {
    match key {
        None => format!("[{}]", kind.label()),
        Some(k) => {
            // Keyed FNV-1a, folded to 32 bits: deterministic per (key, value), not
            // reversible. (The SDK can keep an encrypted vault for reversibility.)
            let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ k;
            for b in value.as_bytes().iter().chain(&k.to_le_bytes()) {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            format!("[{}#{:08x}]", kind.label(), (h ^ (h >> 32)) as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_and_phones_are_replaced_and_the_rest_kept() {
        let Scrubbed::Store { text, redacted, .. } =
            scrub("Mail me at li.lei@example.com or call 138 0013 8000 tomorrow", Sensitivity::Personal, &PiiPolicy::default(), None)
        else {
            panic!("stored")
        };
        assert_eq!(text, "Mail me at [EMAIL] or call [PHONE] tomorrow");
        assert_eq!(redacted, vec![PiiKind::Email, PiiKind::Phone]);
    }

    #[test]
    fn consent_keeps_contact_details_but_never_secrets() {
        let policy = PiiPolicy { personal: PiiAction::KeepWithConsent, ..Default::default() };
        let Scrubbed::Store { text, .. } = scrub("email a@b.io, password: hunter2!", Sensitivity::Personal, &policy, None) else {
            panic!("stored")
        };
        assert_eq!(text, "email a@b.io, password: [SECRET]");
    }

    #[test]
    fn the_drop_policy_stores_nothing() {
        let policy = PiiPolicy { public: PiiAction::Drop, ..Default::default() };
        assert_eq!(scrub("ping 10.0.0.1", Sensitivity::Public, &policy, None), Scrubbed::Drop { found: vec![PiiKind::Ip] });
    }

    #[test]
    fn keyed_placeholders_are_stable_per_value_and_differ_between_values() {
        let p = PiiPolicy { pseudonym_key: Some(42), ..Default::default() };
        let a = scrub("x a@b.io", Sensitivity::Personal, &p, None);
        let b = scrub("y a@b.io", Sensitivity::Personal, &p, None);
        let c = scrub("x c@d.io", Sensitivity::Personal, &p, None);
        let tag = |s: &Scrubbed| match s {
            Scrubbed::Store { text, .. } => text[2..].to_owned(),
            Scrubbed::Drop { .. } => String::new(),
        };
        assert_eq!(tag(&a), tag(&b));
        assert_ne!(tag(&a), tag(&c));
        assert!(tag(&a).starts_with("[EMAIL#"));
    }

    #[test]
    fn with_a_redaction_key_the_text_can_be_revealed_and_only_with_that_key() {
        let key = RedactionKey::from_bytes(&[7; 32]).unwrap_or_else(|e| panic!("{e}"));
        let original = "Mail li.lei@example.com, call 138 0013 8000, again li.lei@example.com";
        let Scrubbed::Store { text, sealed, .. } = scrub(original, Sensitivity::Personal, &PiiPolicy::default(), Some(&key)) else {
            panic!("stored")
        };
        assert!(!text.contains("example.com") && !text.contains("8000"), "{text}");
        assert_eq!(sealed.len(), 2, "one sealed value per distinct value");
        assert_eq!(key.reveal(&text, &sealed), Ok(original.to_owned()));
        let other = RedactionKey::from_bytes(&[8; 32]).unwrap_or_else(|e| panic!("{e}"));
        assert!(other.reveal(&text, &sealed).is_err());
    }
}
