/**
 * The layouts of what a store keeps beside the core's own codecs: the header of a
 * snapshot generation, an outbox entry, and the checks that tell a damaged value at open.
 * @module
 */
import type { CoreHandle } from "../core.js";
import { fromCore } from "../errors.js";

/** A snapshot generation starts with the sequence number it covers, written twice (u64 LE each). */
export const HEADER = 16;

/** An outbox entry: `"ENGQ"`, u16 LE id length, the frame id (UTF-8), then the op batch. */
const OUTBOX_MAGIC = [0x45, 0x4e, 0x47, 0x51]; // "ENGQ"

/** A snapshot's bytes behind the header of the sequence number `seq` it covers. */
export function withHeader(seq: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + body.length);
  const v = new DataView(out.buffer);
  for (const at of [0, 8]) {
    v.setUint32(at, seq % 2 ** 32, true);
    v.setUint32(at + 4, Math.floor(seq / 2 ** 32), true);
  }
  out.set(body, HEADER);
  return out;
}

/** The sequence number a snapshot covers; undefined when the two copies disagree. */
export function readHeader(bytes: Uint8Array): number | undefined {
  if (bytes.length < HEADER) return undefined;
  const v = new DataView(bytes.buffer, bytes.byteOffset, HEADER);
  const a = v.getUint32(0, true) + v.getUint32(4, true) * 2 ** 32;
  const b = v.getUint32(8, true) + v.getUint32(12, true) * 2 ** 32;
  return a === b ? a : undefined;
}

/** The outbox entry of `ops` under the frame id `id`. */
export function outboxEntry(id: string, ops: Uint8Array): Uint8Array {
  const name = new TextEncoder().encode(id);
  const out = new Uint8Array(6 + name.length + ops.length);
  out.set(OUTBOX_MAGIC, 0);
  new DataView(out.buffer).setUint16(4, name.length, true);
  out.set(name, 6);
  out.set(ops, 6 + name.length);
  return out;
}

/** An outbox entry's frame id and op batch; an entry of an older version is the bare batch (no id). */
export function readOutboxEntry(entry: Uint8Array): { id: string | undefined; bytes: Uint8Array } {
  if (entry.length < 6 || !OUTBOX_MAGIC.every((b, i) => entry[i] === b)) return { id: undefined, bytes: entry };
  const n = new DataView(entry.buffer, entry.byteOffset, entry.byteLength).getUint16(4, true);
  return { id: new TextDecoder().decode(entry.subarray(6, 6 + n)), bytes: entry.subarray(6 + n) };
}

/** The op batch of an outbox entry. */
export function outboxBatch(entry: Uint8Array): Uint8Array {
  return readOutboxEntry(entry).bytes;
}

/**
 * Whether `batch` decodes as an op batch (checked by the core's codec, not applied). A
 * batch of a newer format counts as sound: a later version reads it (and the origin may).
 */
export function decodes(handle: CoreHandle, batch: Uint8Array): boolean {
  try {
    handle.splitOps(batch, 0xffff_ffff);
    return true;
  } catch (e) {
    return fromCore(e).code === "UNSUPPORTED_VERSION";
  }
}

/** A value that exists but cannot be read (`CHECKSUM` from an encrypted store) is `null`; other storage errors stay errors. */
export function corrupt(e: unknown): null {
  if ((e as { code?: unknown })?.code === "CHECKSUM") return null;
  throw e;
}
