/**
 * The sync wire format (same as the origin's `frames.rs`): `"EGS1"`, then repeated
 * `u16 LE id length, id (UTF-8), u32 LE length, op batch (core codec)`.
 * @module
 */
import { EngramDataError } from "../errors.js";

/** One framed op batch. */
export interface Frame {
  id: string;
  ops: Uint8Array;
}

const MAGIC = [0x45, 0x47, 0x53, 0x31]; // "EGS1"

/** Encode frames into one body. */
export function encodeFrames(frames: Frame[]): Uint8Array {
  const ids = frames.map((f) => new TextEncoder().encode(f.id));
  const size = 4 + frames.reduce((n, f, i) => n + 6 + ids[i].length + f.ops.length, 0);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  out.set(MAGIC, 0);
  let at = 4;
  frames.forEach((f, i) => {
    v.setUint16(at, ids[i].length, true);
    out.set(ids[i], at + 2);
    at += 2 + ids[i].length;
    v.setUint32(at, f.ops.length, true);
    out.set(f.ops, at + 4);
    at += 4 + f.ops.length;
  });
  return out;
}

/** Decode a body; an empty body is no frames. Malformed input throws `SYNC_BODY`. */
export function decodeFrames(body: Uint8Array): Frame[] {
  if (body.length === 0) return [];
  const bad = (why: string) => new EngramDataError("SYNC_BODY", `sync response: ${why}`);
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b)) throw bad("does not start with EGS1");
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const frames: Frame[] = [];
  let at = 4;
  while (at < body.length) {
    if (at + 2 > body.length) throw bad("truncated id length");
    const idLen = v.getUint16(at, true);
    if (idLen === 0 || at + 2 + idLen + 4 > body.length) throw bad("truncated id");
    const id = new TextDecoder().decode(body.subarray(at + 2, at + 2 + idLen));
    at += 2 + idLen;
    const n = v.getUint32(at, true);
    if (at + 4 + n > body.length) throw bad("truncated batch");
    frames.push({ id, ops: body.slice(at + 4, at + 4 + n) });
    at += 4 + n;
  }
  return frames;
}
