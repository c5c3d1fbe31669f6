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
    // Measure first, then write the payload once, after its header, into a buffer of the
    // exact size: no doubling growth, no second copy (a snapshot is most of a worker's heap).
    let fail = |e: postcard::Error| Error::Decode { what, reason: e.to_string() };
    let size = postcard::experimental::serialized_size(value).map_err(fail)?;
    let len = u32::try_from(size).map_err(|_| Error::invalid("payload", format!("{what} over 4 GiB")))?;
    let mut out = Vec::with_capacity(HEADER + size);
    out.extend_from_slice(magic);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut out = postcard::to_extend(value, out).map_err(fail)?;
    let crc = crc32fast::hash(&out[HEADER..]);
    out[HEADER - 4..HEADER].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

pub(crate) fn open<T: DeserializeOwned>(magic: &[u8; 4], what: &'static str, bytes: &[u8]) -> Result<T> {
    postcard::from_bytes(payload(magic, what, bytes)?).map_err(|e| Error::Decode { what, reason: e.to_string() })
}

/// The checked payload of a sealed input.
pub(crate) fn payload<'a>(magic: &[u8; 4], what: &'static str, bytes: &'a [u8]) -> Result<&'a [u8]> {
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
    Ok(payload)
}

/// Encode a batch of ops.
pub fn encode_ops(ops: &[Op]) -> Result<Vec<u8>> {
    seal(OPS_MAGIC, "op batch", &ops)
}

/// Decode a batch of ops.
pub fn decode_ops(bytes: &[u8]) -> Result<Vec<Op>> {
    open(OPS_MAGIC, "op batch", bytes)
}
