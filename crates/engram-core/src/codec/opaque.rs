//! Opaque text in op batches, for sync with encryption at rest. The origin must still
//! apply last-writer-wins, forgets and its views, so an op's metadata (user, stamps, ids,
//! scope, kind, keys, tags) stays readable; what it must not read is what a memory says.
//! With a key, the SDK asks [`parts`] of an outgoing batch for the *payload* of each op
//! that carries such a text — every record that is not public (its text and embedding:
//! an embedding leaks its text) and every session summary —, encrypts them (WebCrypto, in
//! TypeScript: the core has no randomness), and gives [`join`] the ciphertexts as texts
//! starting with [`PREFIX`]; their embeddings are emptied. A pulled batch goes the other
//! way: [`parts`] hands out its opaque texts, [`join`] puts the decrypted payloads back.
//! The core does this, not TypeScript, so the op batch keeps one codec.
//!
//! A payload is the op itself, encoded as a batch of one (no second codec). [`join`]
//! restores an op only when its payload is that same op but for text and embedding, so
//! an origin cannot move a ciphertext onto another op, nor alter an encrypted op.

use super::{decode_ops, encode_ops};
use crate::{Op, OpBody};
use crate::error::{Error, Result};
use crate::model::Sensitivity;

/// How an opaque text starts; the rest is the SDK's (base64 of IV and ciphertext).
pub const PREFIX: &str = "engram-opaque:v1:";

/// Whether `op` carries a text the origin must not read: going out, every record that is
/// not public and every summary; coming in, every such text that starts with [`PREFIX`].
fn hidden(op: &Op, outgoing: bool) -> bool {
    let (text, public) = match &op.body {
        OpBody::Upsert(r) => (&r.text, r.sensitivity == Sensitivity::Public),
        OpBody::SessionSummary { text, .. } => (text, false),
        _ => return false,
    };
    if outgoing {
        !public
    } else {
        text.starts_with(PREFIX)
    }
}

/// Put `text` and `embedding` into `op` (a record or a summary); returns what it held.
fn swap_text(op: &mut Op, mut text: String, mut embedding: Option<Vec<f32>>) -> (String, Option<Vec<f32>>) {
    match &mut op.body {
        OpBody::Upsert(r) => {
            std::mem::swap(&mut r.text, &mut text);
            std::mem::swap(&mut r.embedding, &mut embedding);
        }
        OpBody::SessionSummary { text: t, .. } => std::mem::swap(t, &mut text),
        _ => {}
    }
    (text, embedding)
}

/// The parts of `batch`, in op order: `outgoing`, the payload of each op to hide;
/// otherwise each opaque text, as UTF-8. Empty when there are none.
pub fn parts(batch: &[u8], outgoing: bool) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for mut op in decode_ops(batch)? {
        if hidden(&op, outgoing) {
            out.push(if outgoing { encode_ops(std::slice::from_ref(&op))? } else { swap_text(&mut op, String::new(), None).0.into_bytes() });
        }
    }
    Ok(out)
}

/// `batch` with `parts` put in, one for each op [`parts`] listed: `outgoing`, opaque texts
/// (each starting with [`PREFIX`]) that replace the texts, embeddings emptied; otherwise
/// the decrypted payloads, whose texts and embeddings replace the opaque ones.
pub fn join(batch: &[u8], outgoing: bool, parts: &[Vec<u8>]) -> Result<Vec<u8>> {
    let mut ops = decode_ops(batch)?;
    let mut given = parts.iter();
    let wrong = |reason: &'static str| Error::invalid("parts", reason);
    for op in ops.iter_mut().filter(|op| hidden(op, outgoing)) {
        let Some(part) = given.next() else { return Err(wrong("fewer than the batch's opaque texts")) };
        if outgoing {
            match std::str::from_utf8(part) {
                Ok(t) if t.starts_with(PREFIX) => swap_text(op, t.to_owned(), None),
                _ => return Err(wrong("an opaque text must start with engram-opaque:v1:")),
            };
            continue;
        }
        let mut p = match <[Op; 1]>::try_from(decode_ops(part)?) {
            Ok([p]) => p,
            Err(_) => return Err(wrong("a payload is one op")),
        };
        let (text, embedding) = swap_text(&mut p, String::new(), None);
        swap_text(op, String::new(), None);
        if encode_ops(std::slice::from_ref(&p))? != encode_ops(std::slice::from_ref(op))? {
            return Err(Error::Decode { what: "opaque payload", reason: "it is not the op it was pulled with".into() });
        }
        swap_text(op, text, embedding);
    }
    if given.next().is_some() {
        return Err(wrong("more than the batch's opaque texts"));
    }
    encode_ops(&ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::working::Turn;
    use crate::config::Config;
    use crate::engram::Engram;
    use crate::model::{MemoryInput, Scope};

    /// A batch of every kind of op: personal records with and without vectors, a public
    /// one, a turn, a summary, session state, a graph edge, a delete.
    fn batch() -> (Vec<Op>, Vec<u8>) {
        let mut e = Engram::new(Config::default(), 3);
        let s = Scope::user("t", "ana").with_session("s1");
        let t0 = 1_764_000_000_000;
        e.remember(&s, MemoryInput::fact("Ana lives in Lisbon").with_key("ana", "city").with_embedding(vec![0.6, 0.8, 0.0]), t0).expect("fact");
        let mut public = MemoryInput::fact("The office opens at nine");
        public.sensitivity = Sensitivity::Public;
        e.remember(&s, public, t0 + 1).expect("public");
        e.append_turn(&s, Turn::user("my passport number is in the drawer"), t0 + 2).expect("turn");
        e.set_summary(&s, "Ana talked about her passport", t0 + 3).expect("summary");
        e.session_set(&s, "mood", "fine", t0 + 4).expect("state");
        let gone = e.remember(&s, MemoryInput::fact("to be deleted"), t0 + 5).expect("doomed").id;
        e.forget(&s, &gone, t0 + 6).expect("forget");
        let ops = e.take_pending();
        let bytes = encode_ops(&ops).expect("encode");
        (ops, bytes)
    }

    /// Stand-in for the SDK's encryption: the payload in hex after the prefix.
    fn wrap(p: &[u8]) -> Vec<u8> {
        format!("{PREFIX}{}", p.iter().map(|b| format!("{b:02x}")).collect::<String>()).into_bytes()
    }
    fn unwrap(t: &[u8]) -> Vec<u8> {
        let h = std::str::from_utf8(&t[PREFIX.len()..]).expect("utf-8");
        (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).expect("hex")).collect()
    }

    #[test]
    fn a_batch_made_opaque_and_restored_equals_the_original() {
        let (ops, bytes) = batch();
        let payloads = parts(&bytes, true).expect("payloads");
        // The fact, the turn, the summary, the deleted fact's upsert: not the public record.
        assert_eq!(payloads.len(), 4);
        let texts: Vec<Vec<u8>> = payloads.iter().map(|p| wrap(p)).collect();
        let opaque = join(&bytes, true, &texts).expect("opaque");
        let seen = parts(&opaque, false).expect("texts");
        assert_eq!(seen, texts);
        let back: Vec<Vec<u8>> = seen.iter().map(|t| unwrap(t)).collect();
        let restored = join(&opaque, false, &back).expect("restore");
        assert_eq!(decode_ops(&restored).expect("decode"), ops);
    }

    #[test]
    fn an_opaque_batch_hides_text_and_vectors_and_leaves_the_rest_as_it_was() {
        let (ops, bytes) = batch();
        let texts: Vec<Vec<u8>> = parts(&bytes, true).expect("payloads").iter().map(|_| format!("{PREFIX}x").into_bytes()).collect();
        let opaque = decode_ops(&join(&bytes, true, &texts).expect("opaque")).expect("decode");
        let hidden_text = format!("{PREFIX}x");
        assert_eq!(opaque.len(), ops.len());
        for (o, a) in opaque.iter().zip(&ops) {
            o.validate().expect("the origin accepts it");
            assert_eq!((&o.user, o.stamp), (&a.user, a.stamp));
            match (&o.body, &a.body) {
                (OpBody::Upsert(r), OpBody::Upsert(was)) if was.sensitivity == Sensitivity::Public => assert_eq!(r, was),
                (OpBody::Upsert(r), OpBody::Upsert(was)) => {
                    assert_eq!((r.text.as_str(), &r.embedding), (hidden_text.as_str(), &None));
                    let mut r = r.clone();
                    (r.text, r.embedding) = (was.text.clone(), was.embedding.clone());
                    assert_eq!(r, *was, "only text and embedding change");
                }
                (OpBody::SessionSummary { session, text }, OpBody::SessionSummary { session: s, .. }) => assert_eq!((session, text), (s, &hidden_text)),
                (o, a) => assert_eq!(o, a),
            }
        }
    }

    #[test]
    fn a_payload_moved_to_another_op_an_altered_op_or_a_wrong_count_is_refused() {
        let (_, bytes) = batch();
        let payloads = parts(&bytes, true).expect("payloads");
        let texts: Vec<Vec<u8>> = payloads.iter().map(|p| wrap(p)).collect();
        let opaque = join(&bytes, true, &texts).expect("opaque");
        let code = |r: Result<Vec<u8>>| r.map(|_| ()).map_err(|e| e.code());
        let swapped = vec![payloads[1].clone(), payloads[0].clone(), payloads[2].clone(), payloads[3].clone()];
        assert_eq!(code(join(&opaque, false, &swapped)), Err("DECODE"));
        assert_eq!(code(join(&opaque, false, &payloads[..3])), Err("INVALID_INPUT"));
        assert_eq!(code(join(&opaque, false, &[payloads.clone(), vec![payloads[0].clone()]].concat())), Err("INVALID_INPUT"));
        assert_eq!(code(join(&bytes, true, &[b"plain".to_vec(), texts[1].clone(), texts[2].clone(), texts[3].clone()])), Err("INVALID_INPUT"));
        assert_eq!(code(join(&opaque, false, &[vec![1, 2, 3], payloads[1].clone(), payloads[2].clone(), payloads[3].clone()])), Err("BAD_MAGIC"));
        // The origin changes an encrypted record's tags: its payload no longer matches it.
        let mut altered = decode_ops(&opaque).expect("decode");
        if let OpBody::Upsert(r) = &mut altered[0].body {
            r.tags.push("moved".into());
        }
        assert_eq!(code(join(&encode_ops(&altered).expect("encode"), false, &payloads)), Err("DECODE"));
        assert_eq!(code(join(&opaque, false, &payloads)), Ok(()));
    }

    #[test]
    fn a_batch_without_opaque_texts_has_none_to_restore() {
        let (ops, bytes) = batch();
        assert_eq!(parts(&bytes, false).expect("texts"), Vec::<Vec<u8>>::new());
        assert_eq!(decode_ops(&join(&bytes, false, &[]).expect("restore")).expect("decode"), ops);
    }
}
