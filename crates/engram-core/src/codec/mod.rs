//! Binary formats: a snapshot of the whole engine and batches of ops. Both are a small
//! envelope — magic, format version, payload length, CRC-32 — around a postcard payload.
//! A wrong magic, another version, a short or corrupt input is a typed error, never a panic.

pub mod snapshot;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::engine::sync::Op;
use crate::error::{Error, Result};

/// Current format version of snapshots and op batches.
/// Version 2 added `pending_review` and `sealed` to records; earlier versions are refused
/// with `UNSUPPORTED_VERSION` (nothing was released in version 1).
pub const FORMAT_VERSION: u16 = 2;
const HEADER: usize = 4 + 2 + 4 + 4;
pub(crate) const SNAPSHOT_MAGIC: &[u8; 4] = b"ENGS";
const OPS_MAGIC: &[u8; 4] = b"ENGO";

pub(crate) fn seal<T: Serialize>(magic: &[u8; 4], what: &'static str, value: &T) -> Result<Vec<u8>> {
    let payload = postcard::to_allocvec(value).map_err(|e| Error::Decode { what, reason: e.to_string() })?;
    let len = u32::try_from(payload.len()).map_err(|_| Error::invalid("payload", format!("{what} over 4 GiB")))?;
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

pub(crate) fn open<T: DeserializeOwned>(magic: &[u8; 4], what: &'static str, bytes: &[u8]) -> Result<T> {
    if bytes.len() < 4 || &bytes[..4] != magic {
        return Err(Error::BadMagic { what });
    }
    if bytes.len() < HEADER {
        return Err(Error::Truncated { what });
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != FORMAT_VERSION {
        return Err(Error::UnsupportedVersion { what, found: version, supported: FORMAT_VERSION });
    }
    let len = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]) as usize;
    let crc = u32::from_le_bytes([bytes[10], bytes[11], bytes[12], bytes[13]]);
    let payload = &bytes[HEADER..];
    if payload.len() < len {
        return Err(Error::Truncated { what });
    }
    if payload.len() > len {
        return Err(Error::Decode { what, reason: format!("{} trailing bytes", payload.len() - len) });
    }
    if crc32fast::hash(payload) != crc {
        return Err(Error::Checksum { what });
    }
    postcard::from_bytes(payload).map_err(|e| Error::Decode { what, reason: e.to_string() })
}

/// Encode a batch of ops.
pub fn encode_ops(ops: &[Op]) -> Result<Vec<u8>> {
    seal(OPS_MAGIC, "op batch", &ops)
}

/// Decode a batch of ops.
pub fn decode_ops(bytes: &[u8]) -> Result<Vec<Op>> {
    open(OPS_MAGIC, "op batch", bytes)
}
