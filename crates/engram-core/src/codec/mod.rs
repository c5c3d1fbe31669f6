//! Binary formats: a snapshot of the whole engine and batches of ops. Both are a small
//! envelope — magic, format version, payload length, CRC-32 — around a postcard payload.
//! A wrong magic, another version, a short or corrupt input is a typed error, never a panic.

pub mod frames;
pub mod opaque;
pub mod snapshot;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::store::ops::Op;
use crate::error::{Error, Result};

/// Current format version of snapshots and op batches.
/// Version 2 added `pending_review` and `sealed` to records; earlier versions are refused
/// with `UNSUPPORTED_VERSION` (nothing was released in version 1).
pub const FORMAT_VERSION: u16 = 2;
pub(crate) const HEADER: usize = 4 + 2 + 4 + 4;
pub(crate) const SNAPSHOT_MAGIC: &[u8; 4] = b"ENGS";
const OPS_MAGIC: &[u8; 4] = b"ENGO";

/// Where a sealed value goes, piece by piece — so a caller can copy a large snapshot out
/// (e.g. into a JS buffer) without the whole of it ever sitting in the engine's memory.
pub trait ByteSink {
    /// Called once, before any bytes, with the total length that will follow.
    fn begin(&mut self, len: usize);
    /// The next piece, in order.
    fn write(&mut self, bytes: &[u8]);
}

impl ByteSink for Vec<u8> {
    fn begin(&mut self, len: usize) {
        self.reserve_exact(len);
    }
    fn write(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Where a sealed value is read from, piece by piece — so a caller can decode a large
/// snapshot held outside the engine (e.g. in a JS buffer) without copying it in whole.
pub trait ByteSource {
    /// The total length in bytes.
    fn len(&self) -> usize;
    /// True when there are no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Append bytes `at..at + n` to `out` (callers keep `at + n <= len()`).
    fn read(&mut self, at: usize, n: usize, out: &mut Vec<u8>);
}

impl ByteSource for &[u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    fn read(&mut self, at: usize, n: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(&self[at..at + n]);
    }
}

/// Pieces handed to a [`ByteSink`] are at most this long.
pub(crate) const PIECE: usize = 64 * 1024;

/// First pass: the payload's length and CRC-32, without keeping it.
struct Measure {
    len: usize,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
}

impl postcard::ser_flavors::Flavor for Measure {
    type Output = (usize, u32);
    fn try_push(&mut self, b: u8) -> postcard::Result<()> {
        self.try_extend(&[b])
    }
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.len += data.len();
        if self.buf.len() + data.len() > PIECE {
            self.crc.update(&self.buf);
            self.buf.clear();
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }
    fn finalize(mut self) -> postcard::Result<(usize, u32)> {
        self.crc.update(&self.buf);
        Ok((self.len, self.crc.finalize()))
    }
}

/// Second pass: the payload, in pieces of at most [`PIECE`] bytes.
struct Pieces<'s, S: ByteSink> {
    buf: Vec<u8>,
    sink: &'s mut S,
}

impl<S: ByteSink> postcard::ser_flavors::Flavor for Pieces<'_, S> {
    type Output = ();
    fn try_push(&mut self, b: u8) -> postcard::Result<()> {
        self.try_extend(&[b])
    }
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        if self.buf.len() + data.len() > PIECE {
            self.sink.write(&self.buf);
            self.buf.clear();
        }
        if data.len() >= PIECE {
            self.sink.write(data);
        } else {
            self.buf.extend_from_slice(data);
        }
        Ok(())
    }
    fn finalize(self) -> postcard::Result<()> {
        if !self.buf.is_empty() {
            self.sink.write(&self.buf);
        }
        Ok(())
    }
}

/// Seal `value` into `sink`: measured first (length and checksum go in the header), then
/// written in pieces — the peak is one piece, not the payload, and nothing is copied twice.
pub(crate) fn seal_into<T: Serialize, S: ByteSink>(magic: &[u8; 4], what: &'static str, value: &T, sink: &mut S) -> Result<()> {
    let (size, crc) = postcard::serialize_with_flavor(value, Measure { len: 0, crc: crc32fast::Hasher::new(), buf: Vec::new() }).map_err(failed(what))?;
    sink.begin(HEADER + size);
    sink.write(&header(magic, what, size, crc)?);
    postcard::serialize_with_flavor(value, Pieces { buf: Vec::with_capacity(PIECE.min(size)), sink }).map_err(failed(what))
}

/// Seal `value` into a new buffer, in one pass (for values that fit in memory twice over,
/// such as op batches: the header is filled in after the payload is written behind it).
pub(crate) fn seal<T: Serialize>(magic: &[u8; 4], what: &'static str, value: &T) -> Result<Vec<u8>> {
    let mut out = postcard::serialize_with_flavor(value, Grow(vec![0; HEADER])).map_err(failed(what))?;
    let head = header(magic, what, out.len() - HEADER, crc32fast::hash(&out[HEADER..]))?;
    out[..HEADER].copy_from_slice(&head);
    Ok(out)
}

/// A buffer that grows as postcard writes into it.
struct Grow(Vec<u8>);

impl postcard::ser_flavors::Flavor for Grow {
    type Output = Vec<u8>;
    fn try_push(&mut self, b: u8) -> postcard::Result<()> {
        self.0.push(b);
        Ok(())
    }
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(data);
        Ok(())
    }
    fn finalize(self) -> postcard::Result<Vec<u8>> {
        Ok(self.0)
    }
}

pub(crate) fn failed(what: &'static str) -> impl Fn(postcard::Error) -> Error {
    // The error's name ("DeserializeUnexpectedEnd"), not postcard's sentences: the same
    // cause in a fifth of the module's bytes.
    move |e| Error::Decode { what, reason: format!("{e:?}") }
}

/// The envelope: magic, format version, payload length, CRC-32.
fn header(magic: &[u8; 4], what: &'static str, size: usize, crc: u32) -> Result<[u8; HEADER]> {
    let len = u32::try_from(size).map_err(|_| Error::invalid("payload", format!("{what} over 4 GiB")))?;
    let mut header = [0u8; HEADER];
    header[..4].copy_from_slice(magic);
    header[4..6].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[6..10].copy_from_slice(&len.to_le_bytes());
    header[10..14].copy_from_slice(&crc.to_le_bytes());
    Ok(header)
}

pub(crate) fn open<T: DeserializeOwned>(magic: &[u8; 4], what: &'static str, bytes: &[u8]) -> Result<T> {
    postcard::from_bytes(payload(magic, what, bytes)?).map_err(failed(what))
}

/// The checked payload of a sealed input.
pub(crate) fn payload<'a>(magic: &[u8; 4], what: &'static str, bytes: &'a [u8]) -> Result<&'a [u8]> {
    let (len, crc) = check_header(magic, what, bytes, bytes.len())?;
    let payload = &bytes[HEADER..HEADER + len];
    if crc32fast::hash(payload) != crc {
        return Err(Error::Checksum { what });
    }
    Ok(payload)
}

/// Check a sealed input held by `src` — header and checksum, read in pieces — before any of
/// it is decoded; the payload's length. The payload is `HEADER..HEADER + len` of `src`.
pub(crate) fn check_source(magic: &[u8; 4], what: &'static str, src: &mut impl ByteSource) -> Result<usize> {
    let total = src.len();
    let mut piece = Vec::with_capacity(PIECE.min(total));
    src.read(0, HEADER.min(total), &mut piece);
    let (len, crc) = check_header(magic, what, &piece, total)?;
    let mut hasher = crc32fast::Hasher::new();
    let mut at = HEADER;
    while at < total {
        let n = PIECE.min(total - at);
        piece.clear();
        src.read(at, n, &mut piece);
        hasher.update(&piece);
        at += n;
    }
    if hasher.finalize() != crc {
        return Err(Error::Checksum { what });
    }
    Ok(len)
}

/// Magic, version and length of a sealed input of `total` bytes that starts with `head`
/// (at least the header, when it is that long); the payload's length and checksum.
fn check_header(magic: &[u8; 4], what: &'static str, head: &[u8], total: usize) -> Result<(usize, u32)> {
    if head.len() < 4 || &head[..4] != magic {
        return Err(Error::BadMagic { what });
    }
    if total < HEADER || head.len() < HEADER {
        return Err(Error::Truncated { what });
    }
    let version = u16::from_le_bytes([head[4], head[5]]);
    if version != FORMAT_VERSION {
        return Err(Error::UnsupportedVersion { what, found: version, supported: FORMAT_VERSION });
    }
    let len = u32::from_le_bytes([head[6], head[7], head[8], head[9]]) as usize;
    let crc = u32::from_le_bytes([head[10], head[11], head[12], head[13]]);
    let body = total - HEADER;
    if body < len {
        return Err(Error::Truncated { what });
    }
    if body > len {
        return Err(Error::Decode { what, reason: format!("{} trailing bytes", body - len) });
    }
    Ok((len, crc))
}

/// Encode a batch of ops.
pub fn encode_ops(ops: &[Op]) -> Result<Vec<u8>> {
    seal(OPS_MAGIC, "op batch", &ops)
}

/// Decode a batch of ops.
pub fn decode_ops(bytes: &[u8]) -> Result<Vec<Op>> {
    open(OPS_MAGIC, "op batch", bytes)
}

/// Split an encoded batch into batches of at most `max` bytes each, the ops in order; an op
/// larger than `max` alone makes a batch of its own. A batch that fits comes back as it
/// is. The same bytes split the same way every time, so a part resent is the same part.
pub fn split_ops(bytes: &[u8], max: usize) -> Result<Vec<Vec<u8>>> {
    if bytes.len() <= max {
        decode_ops(bytes)?;
        return Ok(vec![bytes.to_vec()]);
    }
    let ops = decode_ops(bytes)?;
    // The header and the ops' count (a varint of at most 5 bytes), then each op's bytes.
    let (mut out, mut start, mut size) = (Vec::new(), 0, HEADER + 5);
    for (i, op) in ops.iter().enumerate() {
        let one = postcard::to_allocvec(op).map_err(failed("op batch"))?.len();
        if i > start && size + one > max {
            out.push(encode_ops(&ops[start..i])?);
            (start, size) = (i, HEADER + 5);
        }
        size += one;
    }
    out.push(encode_ops(&ops[start..])?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_splits_into_parts_under_the_limit_with_every_op_once_and_in_order() {
        use crate::{Config, Engram, MemoryInput, Scope};
        let mut e = Engram::new(Config::default(), 7);
        let scope = Scope::user("t", "u");
        let inputs: Vec<MemoryInput> = (0..40).map(|i| MemoryInput::fact(format!("fact {i}: {}", "x".repeat(300)))).collect();
        e.remember_many(&scope, inputs, 1_764_000_000_000).expect("write");
        let whole = encode_ops(&e.take_pending()).expect("encode");
        let parts = split_ops(&whole, 2_000).expect("split");
        assert!(parts.len() >= 6, "{} parts", parts.len());
        assert!(parts.iter().all(|p| p.len() <= 2_000), "{:?}", parts.iter().map(Vec::len).collect::<Vec<_>>());
        let ops: Vec<Op> = parts.iter().flat_map(|p| decode_ops(p).expect("part decodes")).collect();
        assert_eq!(ops, decode_ops(&whole).expect("whole"));
        assert_eq!(split_ops(&whole, 2_000).expect("again"), parts, "the same bytes split the same way");
        assert_eq!(split_ops(&whole, whole.len()).expect("fits"), vec![whole.clone()], "a batch that fits is left as it is");
        let one = split_ops(&whole, 10).expect("tiny limit");
        assert_eq!(one.len(), decode_ops(&whole).expect("whole").len(), "an op over the limit is a batch of its own");
        for junk in [&b"ENGO junk"[..], &b"not a batch at all"[..]] {
            let code = split_ops(junk, 4).map(|p| p.len()).map_err(|e| e.code());
            assert!(matches!(code, Err("TRUNCATED" | "BAD_MAGIC" | "DECODE" | "CHECKSUM")), "{junk:?}: {code:?}");
        }
    }

    #[test]
    fn one_pass_and_streamed_sealing_write_the_same_bytes_and_open_back() {
        let values: Vec<Vec<String>> = vec![vec![], vec!["a".into()], (0..20_000).map(|i| format!("value {i}")).collect()];
        for v in values {
            let one = seal(OPS_MAGIC, "test", &v).expect("seal");
            let mut streamed = Vec::new();
            seal_into(OPS_MAGIC, "test", &v, &mut streamed).expect("seal_into");
            assert_eq!(one, streamed);
            assert_eq!(open::<Vec<String>>(OPS_MAGIC, "test", &one).expect("open"), v);
        }
    }
}
