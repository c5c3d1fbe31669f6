/**
 * The sync wire format, encoded and decoded by the core (`codec/frames.rs`, the same code
 * the origin runs): `"EGS1"`, then repeated `u16 LE id length, id (UTF-8), u32 LE length,
 * op batch (core codec)`. Needs the wasm core loaded (any `Engram.open` loads it).
 * @module
 */
import { coreDecodeFrames, coreEncodeFrames, coreLoaded } from "../core.js";
import { EngramDataError, EngramInputError, fromCore } from "../errors.js";

function needCore(): void {
  if (!coreLoaded()) throw new EngramInputError("INVALID_INPUT", "the sync frame codec runs in the wasm core: open an Engram first");
}

/** One framed op batch. */
export interface Frame {
  id: string;
  ops: Uint8Array;
}

/** Encode frames into one body. An id must be 1 to 200 bytes (`INVALID_INPUT`). */
export function encodeFrames(frames: Frame[]): Uint8Array {
  needCore();
  try {
    return coreEncodeFrames(
      frames.map((f) => f.id),
      frames.map((f) => f.ops),
    );
  } catch (e) {
    throw fromCore(e);
  }
}

/** Decode a body; an empty body is no frames. Malformed input throws `SYNC_BODY`. */
export function decodeFrames(body: Uint8Array): Frame[] {
  needCore();
  try {
    return coreDecodeFrames(body).map(([id, ops]) => ({ id, ops }));
  } catch (e) {
    const err = fromCore(e);
    if (err.code === "DECODE") throw new EngramDataError("SYNC_BODY", `sync response: ${err.message}`, { cause: err });
    throw err;
  }
}
