/**
 * Durable state through a {@link StorageAdapter}: an op log (one key per batch of core
 * ops) plus two generations of snapshots. Opening loads the newest snapshot that passes
 * its checksum and replays the ops after it (replay is idempotent); a corrupt snapshot
 * falls back to the previous generation, so compaction never makes data unrecoverable.
 *
 * With sync, every local batch is also kept in `outbox/` until the origin accepts it, with
 * the frame id its writer gave it (`<replica>-<seq>`): the replica id is new on every open
 * and never stored, so two copies of a store never share ids, and a resend after a restart
 * is still recognised. `meta/sync-seeded` records that the store's whole state was queued
 * once (see `Engram`'s first sync of a store with history).
 * @module
 */
import { EngramHandle, type CoreHandle } from "../core.js";
import { fromCore } from "../errors.js";
import { corrupt, decodes, HEADER, outboxBatch, outboxEntry, readHeader, readOutboxEntry, withHeader } from "./stored.js";
import type { StorageAdapter } from "../storage/types.js";

const SEQ_DIGITS = 16;

/** What opening found in storage. */
export interface OpenReport {
  snapshot: "current" | "previous" | "none";
  replayedBatches: number;
  corrupt: string[];
  /**
   * The storage says its database was deleted behind engram's back since it was last
   * opened (see {@link StorageAdapter.discarded}): the store opened empty because what it
   * held is gone, not because it is new. With sync, the next pull brings back what the
   * origin had accepted.
   */
  storageLost: boolean;
  /**
   * With {@link storageLost}: how many stored values the storage put back from its second
   * copy (`IndexedDbStorage` keeps one in the origin private file system), so that what
   * the deleted database held is there again. 0 when nothing was put back.
   */
  storageRestored: number;
  /**
   * Opening finished a key rotation ({@link Engram.rekey}) that a stopped process began:
   * the store's key is now the new one, whichever of the two it was opened with.
   */
  rekeyFinished: boolean;
}

/** A local op batch not yet accepted by the origin. */
export interface OutboxBatch {
  seq: number;
  /**
   * The batch's frame id, `<replica>-<seq>` of the instance that wrote it — kept with the
   * batch, so a resend after a restart (a new instance, a new replica id) is still the same
   * batch to the origin.
   */
  id: string;
  bytes: Uint8Array;
}

/** The meta entry holding why each quarantined batch was set aside. */
const QUARANTINE = "quarantine";

/** Why the origin refused a batch that sync set aside ({@link Persistence.quarantine}). */
export interface QuarantineNote {
  seq: number;
  /** The SDK's code (`SYNC_REJECTED`, `SYNC_FORBIDDEN`) and the origin's answer. */
  code: string;
  message: string;
  /** When it was set aside (ms since the epoch). */
  at: number;
}

export class Persistence {
  private nextSeq = 1;
  private batchesSinceSnapshot = 0;
  /** Whether `snapshot/current` read whole at open or was written since (else compaction keeps the previous generation). */
  private currentValid = false;
  /** Keep every local batch in `outbox/` until the origin accepts it (sync enabled). */
  outbox = false;
  private readonly replicaId = freshReplica();
  private unseeded = false;
  /** Set once on open from the adapter's {@link StorageAdapter.discarded}; every report carries it. */
  storageLost = false;
  /** Set once on open from the adapter's {@link StorageAdapter.restored}. */
  storageRestored = 0;
  /** Set before `open` when the encrypted store finished a rotation (see {@link OpenReport.rekeyFinished}). */
  rekeyFinished = false;
  /** Damaged outbox entries found at open, with their op batch when the log still has it. */
  private outboxRepairs: { seq: number; logged: Uint8Array | undefined }[] = [];
  /** Meta documents found unreadable (see {@link Persistence.getMeta}). */
  private readonly damaged = new Set<string>();

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

  /**
   * A small JSON document stored beside the state (e.g. which embedder the store uses).
   * One that cannot be read (a flipped byte, a torn file, a failed tag) reads as absent and
   * is named in the next `open` report: every meta document is a hint the store can rebuild
   * (a sync cursor from 0, the embedder from the next write), never a reason to fail a write.
   */
  async getMeta<T>(name: string): Promise<T | undefined> {
    const b = await this.storage.get(this.key(`meta/${name}`)).catch(corrupt);
    if (b === undefined) return undefined;
    try {
      if (b === null) throw new Error("unreadable");
      return JSON.parse(new TextDecoder().decode(b)) as T;
    } catch {
      this.damaged.add(`meta/${name}`);
      return undefined;
    }
  }

  /** Name a stored document found damaged (and rebuilt) before this persistence read it, for the open report. */
  noteDamaged(name: string): void {
    this.damaged.add(name);
  }

  /** Store a meta document. */
  async putMeta(name: string, value: unknown): Promise<void> {
    await this.storage.put(this.key(`meta/${name}`), new TextEncoder().encode(JSON.stringify(value)));
  }

  /**
   * The replica id of this open instance: random, new on every open and never stored, so
   * that two instances (two processes, a copied store directory, a restart) never share an
   * HLC stream or record ids. A snapshot's clock is restamped with it on load.
   */
  async replica(): Promise<number> {
    return this.replicaId;
  }

  /** The replica id older versions stored, which names their outbox entries' frames. */
  private async storedReplica(): Promise<number | undefined> {
    const stored = await this.storage.get(this.key("replica"));
    if (!stored || stored.length !== 8) return undefined;
    const v = new DataView(stored.buffer, stored.byteOffset, 8);
    return v.getUint32(0, true) + v.getUint32(4, true) * 2 ** 32;
  }

  /** Load the engine: newest valid snapshot + every op batch after it. */
  async open(fresh: () => CoreHandle): Promise<{ handle: CoreHandle; report: OpenReport }> {
    const report: OpenReport = { snapshot: "none", replayedBatches: 0, corrupt: [], storageLost: this.storageLost, storageRestored: this.storageRestored, rekeyFinished: this.rekeyFinished };
    let handle: CoreHandle | undefined;
    let base = 0;
    for (const gen of ["current", "previous"] as const) {
      // An encrypted value that fails its tag (storage/encrypted.ts) is corrupt like any other.
      const bytes = await this.storage.get(this.key(`snapshot/${gen}`)).catch(corrupt);
      if (!bytes) {
        if (bytes === null) report.corrupt.push(`snapshot/${gen}`);
        continue;
      }
      const seq = readHeader(bytes);
      try {
        if (seq === undefined) throw new Error("bad snapshot header");
        handle = engineFromSnapshot(bytes.subarray(HEADER), this.replicaId);
        base = seq;
        report.snapshot = gen;
        this.currentValid = gen === "current";
        if (gen === "current") await this.checkPrevious(report);
        break;
      } catch {
        report.corrupt.push(`snapshot/${gen}`);
      }
    }
    handle ??= fresh();
    const keys = await this.storage.list(this.key("ops/"));
    for (const k of keys) {
      const seq = Number(k.slice(-SEQ_DIGITS));
      if (!Number.isFinite(seq)) continue;
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
      const bytes = await this.storage.get(k).catch(corrupt);
      if (seq <= base) {
        // In the snapshot already, and kept only for a fall back to the previous one:
        // checked (decoded, not applied), so that its damage is reported now.
        if (bytes === null || (bytes !== undefined && !decodes(handle, bytes))) report.corrupt.push(k.slice(this.prefix.length));
        continue;
      }
      try {
        if (bytes === undefined) continue;
        if (bytes === null) throw new Error("unreadable");
        handle.applyOps(bytes);
        report.replayedBatches++;
      } catch {
        report.corrupt.push(k.slice(this.prefix.length));
      }
    }
    this.nextSeq = Math.max(this.nextSeq, base + 1);
    // A batch may be in the outbox only (stopped between the two writes): never reuse its number.
    for (const k of [...(await this.storage.list(this.key("outbox/"))), ...(await this.storage.list(this.key("quarantine/")))]) {
      const seq = Number(k.slice(-SEQ_DIGITS));
      if (Number.isFinite(seq)) this.nextSeq = Math.max(this.nextSeq, seq + 1);
    }
    await this.checkOutbox(handle, report);
    this.batchesSinceSnapshot = report.replayedBatches;
    // Every meta document read once, so that a damaged one is reported now, not met later
    // (the encryption mark is the encrypted store's own, checked before this).
    for (const k of await this.storage.list(this.key("meta/"))) {
      const name = k.slice(this.key("meta/").length);
      if (name !== "encryption") await this.getMeta(name);
    }
    report.corrupt.push(...this.damaged);
    return { handle, report };
  }

  /**
   * Every outbox entry read and decoded (not applied), so that a damaged one neither blocks
   * sync later (an entry that does not open fails every push) nor is sent as garbage. It
   * is reported now and mended by {@link Persistence.repairOutbox}, which the sync runs
   * under the writer lock (an open may be a reader beside another process's writer).
   */
  private async checkOutbox(handle: CoreHandle, report: OpenReport): Promise<void> {
    this.outboxRepairs = [];
    for (const k of await this.storage.list(this.key("outbox/"))) {
      const seq = Number(k.slice(-SEQ_DIGITS));
      if (!Number.isFinite(seq)) continue;
      const entry = await this.storage.get(k).catch(corrupt);
      if (entry === undefined || (entry !== null && decodes(handle, outboxBatch(entry)))) continue;
      report.corrupt.push(k.slice(this.prefix.length));
      const logged = await this.storage.get(this.opKey(seq)).catch(corrupt);
      this.outboxRepairs.push({ seq, logged: logged && decodes(handle, logged) ? logged : undefined });
    }
  }

  /**
   * Mend the damaged outbox entries the open found: each is written again from its op
   * batch when the log still has it, else dropped, and the next open queues the store's
   * whole state again. Run by the sync before it reads the outbox, holding the writer lock.
   */
  async repairOutbox(): Promise<void> {
    for (const { seq, logged } of this.outboxRepairs.splice(0)) {
      if (logged) {
        await this.storage.put(this.opKey(seq, "outbox"), this.outboxEntry(seq, logged));
      } else {
        await this.storage.delete(this.opKey(seq, "outbox"));
        await this.storage.delete(this.key(`meta/${SEEDED}`));
      }
    }
  }

  /**
   * The previous generation, kept only to fall back on, is checked (read, its checksum and
   * seal tested, not decoded) so that its damage is reported at open, not when needed.
   */
  private async checkPrevious(report: OpenReport): Promise<void> {
    const bytes = await this.storage.get(this.key("snapshot/previous")).catch(corrupt);
    if (bytes === undefined) return;
    try {
      if (bytes === null || readHeader(bytes) === undefined) throw new Error("unreadable");
      EngramHandle.checkSnapshot(bytes.subarray(HEADER));
    } catch {
      report.corrupt.push("snapshot/previous");
    }
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
  async flush(handle: CoreHandle): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = handle.takePending();
    } catch (e) {
      throw fromCore(e);
    }
    if (bytes.length === 0) return;
    const seq = this.nextSeq++;
    // Outbox first: a batch in the log but not in the outbox would never reach the origin.
    if (this.outbox) await this.storage.put(this.opKey(seq, "outbox"), this.outboxEntry(seq, bytes));
    else if (!this.unseeded) {
      // A change the origin will not get from the outbox: the next sync must seed the whole state.
      await this.storage.delete(this.key(`meta/${SEEDED}`));
      this.unseeded = true;
    }
    await this.storage.put(this.opKey(seq), bytes);
    if (++this.batchesSinceSnapshot >= this.compactEvery) await this.compact(handle);
  }

  /** Log a batch received from the origin (already applied to `engine`; not pushed back). */
  async append(handle: CoreHandle, bytes: Uint8Array): Promise<void> {
    const seq = this.nextSeq++;
    await this.storage.put(this.opKey(seq), bytes);
    if (++this.batchesSinceSnapshot >= this.compactEvery) await this.compact(handle);
  }

  /**
   * True until this store's whole state has been queued for the origin once: a store that
   * had history before sync was configured (or was written without sync since) must push
   * all of it, not only later changes.
   */
  async needsSeed(): Promise<boolean> {
    // A damaged note (reported at open) is no note: seeding again is idempotent.
    return !(await this.storage.get(this.key(`meta/${SEEDED}`)).catch(corrupt));
  }

  /** Queue `stateOps` (the engine's whole state as op batches) for the origin, once. */
  async seed(stateOps: Uint8Array | Uint8Array[] | undefined): Promise<void> {
    for (const batch of stateOps === undefined ? [] : Array.isArray(stateOps) ? stateOps : [stateOps]) {
      if (batch.length === 0) continue;
      const seq = this.nextSeq++;
      await this.storage.put(this.opKey(seq, "outbox"), this.outboxEntry(seq, batch));
    }
    await this.putMeta(SEEDED, { replica: this.replicaId });
    this.unseeded = false;
  }

  private outboxEntry(seq: number, ops: Uint8Array): Uint8Array {
    return outboxEntry(`${this.replicaId}-${seq}`, ops);
  }

  /** Local batches the origin has not accepted yet, oldest first. */
  async pendingOutbox(max: number): Promise<OutboxBatch[]> {
    return this.entries("outbox/", max);
  }

  private async entries(dir: "outbox/" | "quarantine/", max: number): Promise<OutboxBatch[]> {
    const out: OutboxBatch[] = [];
    let legacy: number | undefined;
    for (const k of (await this.storage.list(this.key(dir))).slice(0, max)) {
      const entry = await this.storage.get(k);
      if (!entry) continue;
      const seq = Number(k.slice(-SEQ_DIGITS));
      const read = readOutboxEntry(entry);
      if (read.id !== undefined) {
        out.push({ seq, id: read.id, bytes: read.bytes });
      } else {
        // Written by an older version: the bare batch, named by the replica id it stored.
        legacy ??= (await this.storedReplica()) ?? this.replicaId;
        out.push({ seq, id: `${legacy}-${seq}`, bytes: entry });
      }
    }
    return out;
  }

  /** Drop batches the origin accepted. */
  async dropOutbox(seqs: number[]): Promise<void> {
    for (const seq of seqs) await this.storage.delete(this.opKey(seq, "outbox"));
  }

  /**
   * Set aside a batch the origin refused for what it holds: out of the outbox (so later
   * batches sync), kept whole under `quarantine/` with the origin's answer until it is
   * retried or discarded. Stopped between the two writes, the batch is in both places:
   * the next sync is refused it again and sets it aside again.
   */
  async quarantine(seq: number, why: Omit<QuarantineNote, "seq">): Promise<void> {
    const entry = await this.storage.get(this.opKey(seq, "outbox"));
    if (!entry) return;
    await this.storage.put(this.opKey(seq, "quarantine"), entry);
    const notes = (await this.getMeta<Record<string, QuarantineNote>>(QUARANTINE)) ?? {};
    notes[seq] = { seq, ...why };
    await this.putMeta(QUARANTINE, notes);
    await this.storage.delete(this.opKey(seq, "outbox"));
  }

  /** The batches set aside, oldest first, each with the origin's answer. */
  async quarantined(): Promise<(OutboxBatch & QuarantineNote)[]> {
    const notes = (await this.getMeta<Record<string, QuarantineNote>>(QUARANTINE)) ?? {};
    const unknown = { code: "SYNC_REJECTED", message: "refused by the origin", at: 0 };
    return (await this.entries("quarantine/", Number.MAX_SAFE_INTEGER)).map((b) => ({ ...(notes[b.seq] ?? unknown), ...b }));
  }

  /** Take batches out of quarantine: back into the outbox (`retry`) or gone for good. */
  async release(seqs: number[], retry: boolean): Promise<void> {
    const notes = (await this.getMeta<Record<string, QuarantineNote>>(QUARANTINE)) ?? {};
    for (const seq of seqs) {
      const entry = await this.storage.get(this.opKey(seq, "quarantine"));
      if (entry && retry) await this.storage.put(this.opKey(seq, "outbox"), entry);
      await this.storage.delete(this.opKey(seq, "quarantine"));
      delete notes[seq];
    }
    await this.putMeta(QUARANTINE, notes);
  }

  /** Write a new snapshot generation and drop ops the previous generation covers. */
  async compact(handle: CoreHandle): Promise<void> {
    const covered = this.nextSeq - 1;
    const snap = handle.snapshot();
    // A current generation found damaged at open is not made the previous one: the
    // previous stays, with the ops after it, as the fall back.
    const current = this.currentValid ? await this.storage.get(this.key("snapshot/current")).catch(corrupt) : undefined;
    const prevSeq = current ? readHeader(current) : undefined;
    if (current && prevSeq !== undefined) await this.storage.put(this.key("snapshot/previous"), current);
    await this.storage.put(this.key("snapshot/current"), withHeader(covered, snap));
    await this.putMeta("compacted", { seq: covered });
    this.currentValid = true;
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

/** The meta document that says the store's whole state was queued for the origin. */
const SEEDED = "sync-seeded";

/** A random replica id below 2^48 (exact in a JS number), never 0. */
function freshReplica(): number {
  const r = new Uint32Array(2);
  crypto.getRandomValues(r);
  return r[0] + (r[1] & 0xffff) * 2 ** 32 || 1;
}

/** Load a snapshot as the engine of replica `replica` (its clock kept, restamped with the id). */
export function engineFromSnapshot(bytes: Uint8Array, replica: number): CoreHandle {
  return EngramHandle.fromSnapshot(bytes, replica);
}
