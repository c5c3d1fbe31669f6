/**
 * Durable state through a {@link StorageAdapter}: an op log (one key per batch of core
 * ops) plus two generations of snapshots. Opening loads the newest snapshot that passes
 * its checksum and replays the ops after it (replay is idempotent); a corrupt snapshot
 * falls back to the previous generation, so compaction never makes data unrecoverable.
 * @module
 */
import { Engine, type CoreEngine } from "./core.js";
import { fromCore } from "./errors.js";
import type { StorageAdapter } from "./storage/types.js";

const SEQ_DIGITS = 16;
const HEADER = 16;

/** What opening found in storage. */
export interface OpenReport {
  snapshot: "current" | "previous" | "none";
  replayedBatches: number;
  corrupt: string[];
}

/** A local op batch not yet accepted by the origin. */
export interface OutboxBatch {
  seq: number;
  bytes: Uint8Array;
}

export class Persistence {
  private nextSeq = 1;
  private batchesSinceSnapshot = 0;
  /** Keep every local batch in `outbox/` until the origin accepts it (sync enabled). */
  outbox = false;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly prefix: string,
    private readonly compactEvery: number,
  ) {}

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }
  private opKey(seq: number, dir = "ops"): string {
    return this.key(`${dir}/${String(seq).padStart(SEQ_DIGITS, "0")}`);
  }

  /** A small JSON document stored beside the state (e.g. which embedder the store uses). */
  async getMeta<T>(name: string): Promise<T | undefined> {
    const b = await this.storage.get(this.key(`meta/${name}`));
    return b ? (JSON.parse(new TextDecoder().decode(b)) as T) : undefined;
  }

  /** Store a meta document. */
  async putMeta(name: string, value: unknown): Promise<void> {
    await this.storage.put(this.key(`meta/${name}`), new TextEncoder().encode(JSON.stringify(value)));
  }

  /** The replica id of this store, created on first use. */
  async replica(): Promise<number> {
    const stored = await this.storage.get(this.key("replica"));
    if (stored && stored.length === 8) {
      const v = new DataView(stored.buffer, stored.byteOffset, 8);
      return v.getUint32(0, true) + v.getUint32(4, true) * 2 ** 32;
    }
    const r = new Uint32Array(2);
    crypto.getRandomValues(r);
    const id = r[0] + (r[1] & 0xffff) * 2 ** 32;
    const bytes = new Uint8Array(8);
    const v = new DataView(bytes.buffer);
    v.setUint32(0, id % 2 ** 32, true);
    v.setUint32(4, Math.floor(id / 2 ** 32), true);
    await this.storage.put(this.key("replica"), bytes);
    return id;
  }

  /** Load the engine: newest valid snapshot + every op batch after it. */
  async open(fresh: () => CoreEngine): Promise<{ engine: CoreEngine; report: OpenReport }> {
    const report: OpenReport = { snapshot: "none", replayedBatches: 0, corrupt: [] };
    let engine: CoreEngine | undefined;
    let base = 0;
    for (const gen of ["current", "previous"] as const) {
      const bytes = await this.storage.get(this.key(`snapshot/${gen}`));
      if (!bytes) continue;
      const seq = readHeader(bytes);
      try {
        if (seq === undefined) throw new Error("bad snapshot header");
        engine = Engine.fromSnapshot(bytes.subarray(HEADER));
        base = seq;
        report.snapshot = gen;
        break;
      } catch {
        report.corrupt.push(`snapshot/${gen}`);
      }
    }
    engine ??= fresh();
    const keys = await this.storage.list(this.key("ops/"));
    for (const k of keys) {
      const seq = Number(k.slice(-SEQ_DIGITS));
      if (!Number.isFinite(seq)) continue;
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
      if (seq <= base) continue;
      const bytes = await this.storage.get(k);
      if (!bytes) continue;
      try {
        engine.applyOps(bytes);
        report.replayedBatches++;
      } catch {
        report.corrupt.push(k.slice(this.prefix.length));
      }
    }
    this.nextSeq = Math.max(this.nextSeq, base + 1);
    // A batch may be in the outbox only (stopped between the two writes): never reuse its number.
    for (const k of await this.storage.list(this.key("outbox/"))) {
      const seq = Number(k.slice(-SEQ_DIGITS));
      if (Number.isFinite(seq)) this.nextSeq = Math.max(this.nextSeq, seq + 1);
    }
    this.batchesSinceSnapshot = report.replayedBatches;
    return { engine, report };
  }

  /** Changes whenever this instance logs a batch (to tell other tabs). */
  get logged(): number {
    return this.nextSeq;
  }

  /**
   * True when another writer of the same storage (a second tab) logged a batch this
   * instance has not loaded: its op or outbox keys reach past our next sequence number.
   */
  async behind(): Promise<boolean> {
    // A compaction may have removed every op key; it records the sequence it covered.
    const compacted = await this.getMeta<{ seq: number }>("compacted");
    if (compacted && compacted.seq >= this.nextSeq) return true;
    for (const dir of ["ops/", "outbox/"]) {
      const keys = await this.storage.list(this.key(dir));
      const last = keys.length ? Number(keys[keys.length - 1].slice(-SEQ_DIGITS)) : 0;
      if (Number.isFinite(last) && last >= this.nextSeq) return true;
    }
    return false;
  }

  /** Persist the ops the engine made since the last call. Durable when it resolves. */
  async flush(engine: CoreEngine): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = engine.takePending();
    } catch (e) {
      throw fromCore(e);
    }
    if (bytes.length === 0) return;
    const seq = this.nextSeq++;
    // Outbox first: a batch in the log but not in the outbox would never reach the origin.
    if (this.outbox) await this.storage.put(this.opKey(seq, "outbox"), bytes);
    await this.storage.put(this.opKey(seq), bytes);
    if (++this.batchesSinceSnapshot >= this.compactEvery) await this.compact(engine);
  }

  /** Log a batch received from the origin (already applied to `engine`; not pushed back). */
  async append(engine: CoreEngine, bytes: Uint8Array): Promise<void> {
    const seq = this.nextSeq++;
    await this.storage.put(this.opKey(seq), bytes);
    if (++this.batchesSinceSnapshot >= this.compactEvery) await this.compact(engine);
  }

  /** Local batches the origin has not accepted yet, oldest first. */
  async pendingOutbox(max: number): Promise<OutboxBatch[]> {
    const out: OutboxBatch[] = [];
    for (const k of (await this.storage.list(this.key("outbox/"))).slice(0, max)) {
      const bytes = await this.storage.get(k);
      if (bytes) out.push({ seq: Number(k.slice(-SEQ_DIGITS)), bytes });
    }
    return out;
  }

  /** Drop batches the origin accepted. */
  async dropOutbox(seqs: number[]): Promise<void> {
    for (const seq of seqs) await this.storage.delete(this.opKey(seq, "outbox"));
  }

  /** Write a new snapshot generation and drop ops the previous generation covers. */
  async compact(engine: CoreEngine): Promise<void> {
    const covered = this.nextSeq - 1;
    const snap = engine.snapshot();
    const current = await this.storage.get(this.key("snapshot/current"));
    const prevSeq = current ? readHeader(current) : undefined;
    if (current && prevSeq !== undefined) await this.storage.put(this.key("snapshot/previous"), current);
    await this.storage.put(this.key("snapshot/current"), withHeader(covered, snap));
    await this.putMeta("compacted", { seq: covered });
    this.batchesSinceSnapshot = 0;
    if (prevSeq !== undefined) {
      for (const k of await this.storage.list(this.key("ops/"))) {
        if (Number(k.slice(-SEQ_DIGITS)) <= prevSeq) await this.storage.delete(k);
      }
    }
  }

  /** Remove every key of this store. */
  async wipe(): Promise<void> {
    for (const k of await this.storage.list(this.prefix)) await this.storage.delete(k);
  }
}

function withHeader(seq: number, body: Uint8Array): Uint8Array {
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
function readHeader(bytes: Uint8Array): number | undefined {
  if (bytes.length < HEADER) return undefined;
  const v = new DataView(bytes.buffer, bytes.byteOffset, HEADER);
  const a = v.getUint32(0, true) + v.getUint32(4, true) * 2 ** 32;
  const b = v.getUint32(8, true) + v.getUint32(12, true) * 2 ** 32;
  return a === b ? a : undefined;
}
