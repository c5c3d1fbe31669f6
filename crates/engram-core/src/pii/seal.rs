//! Reversible redaction: with a key the user holds, each PII value is replaced by a
//! placeholder `[EMAIL#1f3a9c0d]` and sealed (ChaCha20-Poly1305) into the record. Only the
//! key opens it; the engine never stores the key (it is not in the config or snapshots).
//!
//! Sealing is deterministic (synthetic nonce: an HMAC of the value, as in SIV), so the same
//! value always gives the same placeholder and ciphertext — dedup and sync stay stable —
//! and the only thing revealed without the key is that two placeholders hold equal values.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::{Error, Result};
use crate::pii::kind::PiiKind;

type HmacSha256 = Hmac<Sha256>;

/// A user-held key that makes redaction reversible. Derived sub-keys only; `Debug` hides it.
#[derive(Clone)]
pub struct RedactionKey {
    enc: [u8; 32],
    mac: [u8; 32],
}

impl std::fmt::Debug for RedactionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RedactionKey(…)")
    }
}

/// One sealed value: the placeholder that stands for it in the text, and its ciphertext
/// (hex of nonce ‖ ciphertext ‖ tag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    pub placeholder: String,
    pub kind: PiiKind,
    pub cipher: String,
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut m = <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("hmac takes any key length"));
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

impl RedactionKey {
    /// A key from 32 bytes of the user's secret (e.g. from a passphrase KDF or a key store).
    pub fn from_bytes(secret: &[u8]) -> Result<Self> {
        if secret.len() != 32 {
            return Err(Error::InvalidInput { field: "redactionKey", reason: format!("must be 32 bytes, got {}", secret.len()) });
        }
        Ok(RedactionKey { enc: hmac(secret, &[b"engram/redaction/enc"]), mac: hmac(secret, &[b"engram/redaction/mac"]) })
    }

    /// Seal `value` of `kind`: its placeholder and sealed form.
    pub fn seal(&self, kind: PiiKind, value: &str) -> Sealed {
        let label = kind.label().as_bytes();
        let synthetic = hmac(&self.mac, &[label, &[0], value.as_bytes()]);
        let nonce = Nonce::from_slice(&synthetic[..12]);
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&self.enc));
        // Encryption into a Vec only fails for plaintexts over 256 GiB.
        let ct = cipher
            .encrypt(nonce, Payload { msg: value.as_bytes(), aad: label })
            .unwrap_or_else(|_| unreachable!("chacha20poly1305 encrypts any text under 256 GiB"));
        let mut bytes = synthetic[..12].to_vec();
        bytes.extend_from_slice(&ct);
        Sealed { placeholder: format!("[{}#{}]", kind.label(), hex(&synthetic[12..16])), kind, cipher: hex(&bytes) }
    }

    /// Open one sealed value. A wrong key or altered data is `REDACTION_KEY`.
    pub fn open(&self, sealed: &Sealed) -> Result<String> {
        let bytes = unhex(&sealed.cipher).ok_or(Error::RedactionKey("sealed value is not hex"))?;
        if bytes.len() < 12 + 16 {
            return Err(Error::RedactionKey("sealed value is truncated"));
        }
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&self.enc));
        let plain = cipher
            .decrypt(Nonce::from_slice(&bytes[..12]), Payload { msg: &bytes[12..], aad: sealed.kind.label().as_bytes() })
            .map_err(|_| Error::RedactionKey("wrong key or altered data"))?;
        String::from_utf8(plain).map_err(|_| Error::RedactionKey("sealed value is not UTF-8"))
    }

    /// `text` with every sealed placeholder replaced by its value.
    pub fn reveal(&self, text: &str, sealed: &[Sealed]) -> Result<String> {
        let mut out = text.to_owned();
        for s in sealed {
            out = out.replace(&s.placeholder, &self.open(s)?);
        }
        Ok(out)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(b: u8) -> RedactionKey {
        RedactionKey::from_bytes(&[b; 32]).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_sealed_value_opens_only_with_its_key() {
        let s = key(1).seal(PiiKind::Email, "li.lei@example.com");
        assert_eq!(key(1).open(&s), Ok("li.lei@example.com".to_owned()));
        assert_eq!(key(2).open(&s).map_err(|e| e.code()), Err("REDACTION_KEY"));
        assert!(!s.cipher.contains("example"));
    }

    #[test]
    fn sealing_is_deterministic_per_key_and_value() {
        assert_eq!(key(1).seal(PiiKind::Phone, "13800138000"), key(1).seal(PiiKind::Phone, "13800138000"));
        assert_ne!(key(1).seal(PiiKind::Phone, "13800138000").placeholder, key(1).seal(PiiKind::Phone, "13800138001").placeholder);
        assert_ne!(key(1).seal(PiiKind::Phone, "13800138000").cipher, key(2).seal(PiiKind::Phone, "13800138000").cipher);
    }

    #[test]
    fn altered_or_relabelled_ciphertext_is_refused() {
        let mut s = key(1).seal(PiiKind::Email, "a@b.io");
        let mut relabelled = s.clone();
        relabelled.kind = PiiKind::Phone;
        assert!(key(1).open(&relabelled).is_err());
        s.cipher.replace_range(30..32, if &s.cipher[30..32] == "00" { "01" } else { "00" });
        assert!(key(1).open(&s).is_err());
        s.cipher = "zz".into();
        assert!(key(1).open(&s).is_err());
    }

    #[test]
    fn keys_must_be_32_bytes() {
        assert_eq!(RedactionKey::from_bytes(&[0; 16]).map(|_| ()).map_err(|e| e.code()), Err("INVALID_INPUT"));
    }
}
