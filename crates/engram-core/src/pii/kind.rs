//! The kinds of PII the detectors find: a leaf module (the sealed values in records name
//! their kind, and records are below the rest of `pii`).

use serde::{Deserialize, Serialize};

/// A kind of personal or secret data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PiiKind {
    /// A password, PIN or secret stated in text ("my password is …").
    Secret,
    /// An API key or access token of a known provider, a JWT or a bearer token.
    ApiKey,
    /// A mainland China resident ID number (checksum-valid).
    ChinaId,
    /// A payment card number (Luhn-valid).
    Card,
    /// An IBAN (mod 97-valid).
    Iban,
    Email,
    /// A phone number (international, North American, mainland China mobile or landline).
    Phone,
    /// An IPv4 or IPv6 address.
    Ip,
}

impl PiiKind {
    /// The placeholder label.
    pub fn label(self) -> &'static str {
        match self {
            PiiKind::Secret => "SECRET",
            PiiKind::ApiKey => "API_KEY",
            PiiKind::ChinaId => "ID_NUMBER",
            PiiKind::Card => "CARD",
            PiiKind::Iban => "IBAN",
            PiiKind::Email => "EMAIL",
            PiiKind::Phone => "PHONE",
            PiiKind::Ip => "IP",
        }
    }

    /// Kinds never stored, whatever the policy says.
    pub fn always_redacted(self) -> bool {
        matches!(self, PiiKind::Secret | PiiKind::ApiKey | PiiKind::Card)
    }
}
