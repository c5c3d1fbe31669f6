//! The sync wire format: a sequence of framed op batches, each with an id.
//!
//! ```text
//! "EGS1" then, repeated to the end: u16 LE id length, id (UTF-8), u32 LE length, op batch
//! ```
//! The op batch is the core codec's encoding ([`crate::encode_ops`]). In a push the id
//! is the client's batch id (`<replica>-<n>`, unique per replica), so a resent batch is
//! recognised; in a pull it is the batch's sequence number at the origin.
//!
//! A malformed body is [`Error::Decode`] with `what` = `"sync body"` and a reason that
//! says what is wrong (`"does not start with EGS1"`, `"truncated batch"`, …); it never panics.
//! The frames are not opened here: each batch is checked by [`crate::decode_ops`] when applied.

use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"EGS1";
const WHAT: &str = "sync body";
/// Longest batch id accepted.
pub const MAX_ID: usize = 200;

/// One framed batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The batch id.
    pub id: String,
    /// The encoded op batch.
    pub ops: Vec<u8>,
}

/// Encode frames into one body.
///
/// Ids are the ones [`decode_frames`] accepts (1 to [`MAX_ID`] bytes) and batches are under
/// 4 GiB: ids come from a decoded push, a replica's `<replica>-<n>` or a sequence number.
pub fn encode_frames(frames: &[Frame]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + frames.iter().map(|f| 6 + f.id.len() + f.ops.len()).sum::<usize>());
    out.extend_from_slice(MAGIC);
    for f in frames {
        debug_assert!(!f.id.is_empty() && f.id.len() <= MAX_ID && u32::try_from(f.ops.len()).is_ok());
        out.extend_from_slice(&(f.id.len() as u16).to_le_bytes());
        out.extend_from_slice(f.id.as_bytes());
        out.extend_from_slice(&(f.ops.len() as u32).to_le_bytes());
        out.extend_from_slice(&f.ops);
    }
    out
}

/// Decode a body; an empty body is no frames.
pub fn decode_frames(body: &[u8]) -> Result<Vec<Frame>> {
    if body.is_empty() {
        return Ok(Vec::new());
    }
    let bad = |why: &str| Error::Decode { what: WHAT, reason: why.to_owned() };
    let mut rest = body.strip_prefix(MAGIC.as_slice()).ok_or_else(|| bad("does not start with EGS1"))?;
    let mut frames = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = take::<2>(rest).ok_or_else(|| bad("truncated id length"))?;
        let id_len = u16::from_le_bytes(len) as usize;
        if id_len == 0 || id_len > MAX_ID || tail.len() < id_len {
            return Err(bad("batch id missing, too long or truncated"));
        }
        let id = core::str::from_utf8(&tail[..id_len]).map_err(|_| bad("batch id is not UTF-8"))?.to_owned();
        let (len, tail) = take::<4>(&tail[id_len..]).ok_or_else(|| bad("truncated batch length"))?;
        let n = u32::from_le_bytes(len) as usize;
        if tail.len() < n {
            return Err(bad("truncated batch"));
        }
        frames.push(Frame { id, ops: tail[..n].to_vec() });
        rest = &tail[n..];
    }
    Ok(frames)
}

fn take<const N: usize>(b: &[u8]) -> Option<([u8; N], &[u8])> {
    let head: [u8; N] = b.get(..N)?.try_into().ok()?;
    Some((head, &b[N..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let frames = vec![Frame { id: "7-1".into(), ops: vec![1, 2, 3] }, Frame { id: "7-2".into(), ops: vec![] }];
        assert_eq!(decode_frames(&encode_frames(&frames)).unwrap(), frames);
        assert_eq!(decode_frames(&[]).unwrap(), vec![]);
    }

    #[test]
    fn every_truncation_of_a_body_is_a_typed_error_not_a_panic() {
        let body = encode_frames(&[Frame { id: "abc".into(), ops: vec![9; 20] }]);
        for cut in (1..body.len()).filter(|c| *c != 4) {
            let err = decode_frames(&body[..cut]).unwrap_err();
            assert_eq!(err.code(), "DECODE", "cut at {cut}");
        }
        assert_eq!(decode_frames(b"XXXX").unwrap_err().code(), "DECODE");
        assert_eq!(decode_frames(b"EGS1").unwrap(), vec![], "the magic alone is an empty push");
    }
}
