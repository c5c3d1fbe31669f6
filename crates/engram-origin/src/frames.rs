//! The sync wire format, as the origin speaks it: the core's codec
//! ([`engram_core::codec::frames`]) with its errors as `400 BAD_REQUEST`.
//!
//! ```text
//! "EGS1" then, repeated to the end: u16 LE id length, id (UTF-8), u32 LE length, op batch
//! ```
//! In a push the id is the client's batch id (`<replica>-<n>`, unique per replica), so a
//! resent batch is recognised; in a pull it is the batch's sequence number at the origin.

use crate::error::ApiError;

pub use engram_core::codec::frames::{Frame, MAX_ID};

/// Encode frames into one body.
pub fn encode(frames: &[Frame]) -> Vec<u8> {
    engram_core::codec::frames::encode_frames(frames)
}

/// Decode a body; an empty body is no frames. A malformed one is `BAD_REQUEST`
/// (`sync body: <what is wrong>`).
pub fn decode(body: &[u8]) -> Result<Vec<Frame>, ApiError> {
    engram_core::codec::frames::decode_frames(body).map_err(|e| match e {
        engram_core::Error::Decode { reason, .. } => ApiError::BadRequest(format!("sync body: {reason}")),
        other => ApiError::BadRequest(format!("sync body: {other}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let frames = vec![Frame { id: "7-1".into(), ops: vec![1, 2, 3] }, Frame { id: "7-2".into(), ops: vec![] }];
        assert_eq!(decode(&encode(&frames)).unwrap(), frames);
        assert_eq!(decode(&[]).unwrap(), vec![]);
    }

    #[test]
    fn every_truncation_of_a_body_is_a_typed_error_not_a_panic() {
        let body = encode(&[Frame { id: "abc".into(), ops: vec![9; 20] }]);
        for cut in (1..body.len()).filter(|c| *c != 4) {
            let err = decode(&body[..cut]).unwrap_err();
            assert_eq!(err.code(), "BAD_REQUEST", "cut at {cut}");
        }
        assert_eq!(decode(b"XXXX").unwrap_err().code(), "BAD_REQUEST");
        assert_eq!(decode(b"XXXX").unwrap_err().to_string(), "bad request: sync body: does not start with EGS1");
        assert_eq!(decode(b"EGS1").unwrap(), vec![], "the magic alone is an empty push");
    }
}
