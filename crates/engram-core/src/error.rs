//! One error type for the whole core. Every variant has a stable machine code
//! (see [`Error::code`]) that the wasm binding and the SDK surface unchanged.

use thiserror::Error;

/// Everything the core can refuse. Untrusted input always ends here, never in a panic.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A caller-supplied value is out of its allowed range or shape.
    #[error("invalid input: {field}: {reason}")]
    InvalidInput { field: &'static str, reason: String },

    /// An embedding's length differs from the dimension this store was opened with.
    #[error("embedding has {found} dimensions but this store uses {expected}; use one embedder per store")]
    DimensionMismatch { expected: usize, found: usize },

    /// An embedding holds NaN or an infinity, or is all zeros.
    #[error("embedding is not usable: {0}")]
    BadEmbedding(&'static str),

    /// Text larger than the configured maximum.
    #[error("text is {len} bytes, over the limit of {max}; split it or raise `max_text_bytes`")]
    TextTooLarge { len: usize, max: usize },

    /// No record with this id in this user's partition.
    #[error("no memory with id {0} for this user")]
    NotFound(String),

    /// A binary input does not start with the expected magic bytes.
    #[error("not an engram {what}: bad magic bytes")]
    BadMagic { what: &'static str },

    /// A binary input was written by a format version this build does not read.
    #[error("{what} format version {found} is not the one this build reads ({supported})")]
    UnsupportedVersion { what: &'static str, found: u16, supported: u16 },

    /// A binary input is shorter than its header says.
    #[error("{what} is truncated")]
    Truncated { what: &'static str },

    /// The checksum of a binary input does not match its payload.
    #[error("{what} is corrupt: checksum mismatch")]
    Checksum { what: &'static str },

    /// The payload decoded to something malformed.
    #[error("{what} could not be decoded: {reason}")]
    Decode { what: &'static str, reason: String },

    /// The tokenizer table could not be used.
    #[error("token table error: {0}")]
    TokenTable(String),

    /// The pre-tokenizer gave up on pathological input.
    #[error("tokenizer could not split the text: {0}")]
    Tokenize(String),

    /// The embedding table could not be used.
    #[error("embedding table error: {0}")]
    EmbedTable(String),

    /// The weights or vocabulary of a transformer embedder could not be used.
    #[error("embedding model error: {0}")]
    EmbedModel(String),

    /// A sealed PII value could not be opened: wrong redaction key or altered data.
    #[error("cannot reveal redacted values: {0}")]
    RedactionKey(&'static str),
}

impl Error {
    /// A stable, machine-readable code, e.g. `"DIMENSION_MISMATCH"`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidInput { .. } => "INVALID_INPUT",
            Error::DimensionMismatch { .. } => "DIMENSION_MISMATCH",
            Error::BadEmbedding(_) => "BAD_EMBEDDING",
            Error::TextTooLarge { .. } => "TEXT_TOO_LARGE",
            Error::NotFound(_) => "NOT_FOUND",
            Error::BadMagic { .. } => "BAD_MAGIC",
            Error::UnsupportedVersion { .. } => "UNSUPPORTED_VERSION",
            Error::Truncated { .. } => "TRUNCATED",
            Error::Checksum { .. } => "CHECKSUM",
            Error::Decode { .. } => "DECODE",
            Error::TokenTable(_) => "TOKEN_TABLE",
            Error::Tokenize(_) => "TOKENIZE",
            Error::RedactionKey(_) => "REDACTION_KEY",
            Error::EmbedTable(_) => "EMBED_TABLE",
            Error::EmbedModel(_) => "EMBED_MODEL",
        }
    }

    /// Whose fault an error is, which is what the SDK's error class says: bytes that
    /// cannot be used (stored, received, or a table or model loaded) are [`ErrorClass::Data`];
    /// everything the caller can fix by changing what it passes is [`ErrorClass::Input`].
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::InvalidInput { .. }
            | Error::DimensionMismatch { .. }
            | Error::BadEmbedding(_)
            | Error::TextTooLarge { .. }
            | Error::NotFound(_)
            | Error::Tokenize(_)
            | Error::RedactionKey(_) => ErrorClass::Input,
            Error::BadMagic { .. }
            | Error::UnsupportedVersion { .. }
            | Error::Truncated { .. }
            | Error::Checksum { .. }
            | Error::Decode { .. }
            | Error::TokenTable(_)
            | Error::EmbedTable(_)
            | Error::EmbedModel(_) => ErrorClass::Data,
        }
    }

    pub(crate) fn invalid(field: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidInput { field, reason: reason.into() }
    }
}

/// Whose fault an error is (see [`Error::class`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The caller passed something it can change; the engine stays usable.
    Input,
    /// Bytes that cannot be used: corrupt, truncated, from a newer version, or a bad table.
    Data,
}

impl ErrorClass {
    /// The class as a lowercase word (`"input"`, `"data"`), as the test vectors write it.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Input => "input",
            ErrorClass::Data => "data",
        }
    }
}

/// Result alias used across the core.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// A number for an error message, to four decimals ("1.5", "-0.25", "NaN"), written
/// without `f32`'s `Display`: that one pulls the standard library's float formatting
/// (Grisu and Dragon4, ~20 KB of the wasm module) in for three messages.
pub(crate) fn shown(x: f32) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "infinity".into() } else { "-infinity".into() };
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let scaled = (f64::from(x).abs() * 10_000.0).round() as u64;
    let (whole, frac) = (scaled / 10_000, scaled % 10_000);
    let frac = format!("{frac:04}");
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() { format!("{sign}{whole}") } else { format!("{sign}{whole}.{frac}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variant names as declared in this file's `enum Error` (the source is the list).
    fn declared_variants() -> Vec<String> {
        let src = include_str!("error.rs");
        let start = src.find("pub enum Error {").map_or(0, |i| i + "pub enum Error {".len());
        let body = &src[start..start + src[start..].find("\n}").unwrap_or(0)];
        body.lines()
            .filter_map(|l| l.strip_prefix("    "))
            .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(|l| l.chars().take_while(char::is_ascii_alphanumeric).collect())
            .collect()
    }

    #[test]
    fn examples_hold_one_error_of_every_declared_variant() {
        let declared = declared_variants();
        assert!(declared.len() >= 15, "found {declared:?}");
        let examples: Vec<String> =
            crate::testing::error_examples().iter().map(|e| format!("{e:?}").chars().take_while(char::is_ascii_alphanumeric).collect()).collect();
        assert_eq!(examples, declared, "list every variant in testing::error_examples, in declaration order");
    }

    #[test]
    fn every_example_has_its_own_code() {
        let mut codes: Vec<&str> = crate::testing::error_examples().iter().map(Error::code).collect();
        codes.sort_unstable();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }

    #[test]
    fn a_number_in_a_message_reads_as_display_would_show_it_to_four_decimals() {
        for (x, want) in [(1.5f32, "1.5"), (-0.25, "-0.25"), (2.0, "2"), (0.123_456, "0.1235"), (1e6, "1000000"), (f32::NAN, "NaN"), (f32::NEG_INFINITY, "-infinity")] {
            assert_eq!(shown(x), want);
        }
    }
}

