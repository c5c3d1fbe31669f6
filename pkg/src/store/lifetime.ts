/**
 * The lifetime of an `Engram`'s wasm handle: loading it from storage, reads (`call`), the
 * write queue (`mutate`: core call, then persist its ops, then emit), and recovery — a core
 * that traps is never touched again but rebuilt from storage, as if the failed call never
 * happened. Also the change events, the reload when another tab wrote, and `close`.
 * @module
 */
import { EngramHandle, type CoreHandle, type CoreTokenizer } from "../core.js";
import type { Embedder } from "../embed/types.js";
import { EngramError, EngramFatalError, EngramInputError, fromCore } from "../errors.js";
import type { ChangeEvent, ErrorEvent, OpenOptions } from "../options.js";
import { engineFromSnapshot, type OpenReport, type Persistence } from "./persist.js";
import type { SyncErrorEvent, SyncEvent, SyncQuarantineEvent } from "../sync/client.js";
import { loadTokenizer } from "../context/tokens.js";
import { webLocks, type WriterLock } from "./writer-lock.js";

export type AnyEvent = ChangeEvent | ErrorEvent | SyncEvent | SyncErrorEvent | SyncQuarantineEvent;
export type Listener = (e: AnyEvent) => void;
/**
 * The body of a write: its result, and the ids its change event names — or, for a write
 * that is several changes at once (`observe`: turns, then memories), the events to emit.
 */
export type WriteBody<T> = () => Promise<{ value: T; ids: string[]; events?: ChangeEvent[] }>;

/**
 * The part of a `BroadcastChannel` used here, declared so that these types check in a
 * Worker or Node app without the DOM lib.
 */
export interface TabChannel {
  onmessage: ((event: never) => void) | null;
  postMessage(message: string): void;
  close(): void;
}

export class Lifetime {
  /** The wasm handle; unset after a trap until it is rebuilt from storage. */
  handle!: CoreHandle;
  /** The exact token table once loaded (a rebuilt engine gets it too). */
  tokenizer: CoreTokenizer | undefined;
  closed = false;
  /** Whether the last write first reloaded what another writer logged (see `refresh`). */
  reloadedBeforeWrite = false;
  /** Called after each durable write (the sync client's poke). */
  onWritten: ((type: ChangeEvent["type"]) => unknown) | undefined;
  private tokenizerLoad: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<Listener>();
  private rebuilding: Promise<void> | undefined;
  /** The channel other tabs announce their writes on (browsers; see `listenToOtherTabs`). */
  channel: TabChannel | undefined;

  constructor(
    private readonly opts: OpenOptions,
    private readonly persistence: Persistence,
    private readonly replica: number,
    private readonly embedder: Embedder | undefined,
    readonly lock: WriterLock,
    /** Told what each load (the open, a reload, a rebuild) found in storage. */
    private readonly loaded: (report: OpenReport) => void,
  ) {}

  /** Load the engine from storage: the latest snapshot, then the op batches logged after it. */
  async load(): Promise<void> {
    // The store remembers which embedder made its vectors; another one is refused before
    // anything is replayed, with both names in the message.
    const emb = this.embedder;
    const stored = await this.persistence.getMeta<{ id: string; dim: number }>("embedder");
    if (emb && stored && (stored.id !== emb.id || stored.dim !== emb.dimension)) {
      throw new EngramInputError(
        "INVALID_INPUT",
        `this store holds ${stored.dim}-d vectors from embedder "${stored.id}"; open another namespace for "${emb.id}" (${emb.dimension}-d)`,
      );
    }
    if (emb && !stored) await this.persistence.putMeta("embedder", { id: emb.id, dim: emb.dimension });
    const declared = stored ?? (emb ? { id: emb.id, dim: emb.dimension } : undefined);
    const fresh = () => {
      const e = new EngramHandle(this.opts.config, this.replica);
      if (declared) e.setEmbedder(declared.id, declared.dim);
      return e;
    };
    try {
      const { handle, report } = await this.persistence.open(fresh);
      try {
        // A snapshot carries the settings it was saved with; this open's settings win.
        if (report.snapshot !== "none") handle.setConfig(this.opts.config);
        // Consolidation settings are in no snapshot: given on every load.
        if (this.opts.consolidation != null) handle.setConsolidation(this.opts.consolidation);
      } catch (e) {
        handle.free();
        throw e;
      }
      this.handle = handle;
      this.loaded(report);
    } catch (e) {
      throw fromCore(e);
    }
    if (this.tokenizer) this.handle.setTokenizer(this.tokenizer);
    if (this.opts.redactionKey) this.call(() => this.handle.setRedactionKey(this.opts.redactionKey));
  }

  now(): number {
    return Math.floor((this.opts.now ?? Date.now)());
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: AnyEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // a listener's error is its own
      }
    }
  }

  /**
   * Run a read against the core, mapping errors. After a trap the handle is gone: the
   * rebuild from storage is queued behind the writes in flight, and a read before it
   * finishes is refused (async reads await it first).
   */
  call<T>(f: () => T): T {
    this.assertOpen();
    if (!this.handle) {
      void this.rebuild().catch(() => undefined);
      throw new EngramFatalError("WASM_TRAP", "the wasm core trapped and is being rebuilt from storage; await mem.idle() and retry");
    }
    try {
      return f();
    } catch (e) {
      const err = this.failure(e);
      if (err instanceof EngramFatalError) void this.rebuild().catch(() => undefined);
      throw err;
    }
  }

  /** Before an async read: wait for a rebuild after a trap, starting one if none is running. */
  async ready(): Promise<void> {
    this.assertOpen();
    if (!this.handle) await this.rebuild();
  }

  /** Resolves when a rebuild after a trap (if one is running) has finished. */
  async idle(): Promise<void> {
    await this.rebuilding?.catch(() => undefined);
  }

  /** Serialize a write: core call, then persist its ops, then emit. */
  mutate<T>(type: ChangeEvent["type"], f: WriteBody<T>): Promise<T> {
    this.assertOpen();
    const run = () => this.lock.exclusive(() => this.runWrite(type, f));
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  /** Write a snapshot now (otherwise one is written every `compactEvery` op batches). */
  async compact(): Promise<void> {
    await this.mutate("session", async () => {
      await this.persistence.compact(this.handle);
      return { value: undefined, ids: [] };
    });
  }

  /** Replace the engine with one made from a snapshot, persisted as a new snapshot generation. */
  async importSnapshot(bytes: Uint8Array): Promise<void> {
    if (!(bytes instanceof Uint8Array)) throw new EngramInputError("INVALID_INPUT", "importSnapshot needs a Uint8Array");
    await this.mutate("import", async () => {
      const next = this.call(() => engineFromSnapshot(bytes, this.replica));
      try {
        this.call(() => next.setConfig(this.opts.config));
        if (this.opts.consolidation != null) this.call(() => next.setConsolidation(this.opts.consolidation));
      } catch (e) {
        next.free();
        throw e;
      }
      this.handle.free();
      this.handle = next;
      if (this.tokenizer) this.handle.setTokenizer(this.tokenizer);
      if (this.opts.redactionKey) this.handle.setRedactionKey(this.opts.redactionKey);
      await this.persistence.compact(this.handle);
      return { value: undefined, ids: [] };
    });
  }

  /** Load what other writers logged since this instance last looked; true when there was something. */
  async refresh(): Promise<boolean> {
    let reloaded = false;
    await this.mutate("pull", async () => {
      reloaded = this.reloadedBeforeWrite;
      return { value: undefined, ids: [] };
    });
    return reloaded;
  }

  /** Reload when another tab announces a write (browsers: Web Locks and a BroadcastChannel). */
  listenToOtherTabs(prefix: string): void {
    if (typeof BroadcastChannel === "undefined" || !webLocks()) return;
    const channel = new BroadcastChannel(`engram:${prefix}`);
    channel.onmessage = () => {
      if (!this.closed) this.refresh().catch(() => undefined);
    };
    this.channel = channel;
  }

  /** The first step of closing: no more reloads for other tabs' writes. */
  stopListening(): void {
    this.channel?.close();
    this.channel = undefined;
  }

  /** The last step of closing: after the writes in flight, free the handle and give the lock back. */
  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    if (!this.closed) this.freeHandle();
    this.closed = true;
    await this.lock.release();
  }

  /** Start loading the exact token table in the background (unless `open({ tokenizer: false })`). */
  startTokenizer(): void {
    if (this.opts.tokenizer === false) return;
    const t = this.opts.tokenizer ?? {};
    this.tokenizerLoad = loadTokenizer(t.encoding ?? "o200k_base", t.table).then(
      (tok) => this.useTokenizer(tok),
      () => undefined, // stays on estimates; `tokenizerReady()` reports the failure
    );
  }

  /** Resolves when the exact token table is loaded; rejects if it cannot be. */
  async tokenizerReady(): Promise<void> {
    await this.tokenizerLoad;
    if (!this.tokenizer) {
      const t = this.opts.tokenizer === false ? undefined : this.opts.tokenizer;
      await loadTokenizer(t?.encoding ?? "o200k_base", t?.table); // rethrows the load error
    }
  }

  /** Give a loaded token table to the engine (a rebuilt one takes it from `this.tokenizer`). */
  useTokenizer(tok: CoreTokenizer): void {
    this.tokenizer = tok;
    // The instance may have been closed (its handle freed), or be rebuilding after a trap.
    if (this.closed || !this.handle) return;
    try {
      this.handle.setTokenizer(tok);
    } catch (e) {
      // Never thrown into the loader's promise (nobody awaits it): a broken handle is
      // dropped and rebuilt with the table; anything else leaves counts as estimates.
      if (this.failure(e) instanceof EngramFatalError) this.rebuild().catch(() => undefined);
    }
  }

  /** Free the handle; one a failed call left borrowed cannot be freed, and is dropped instead. */
  freeHandle(): void {
    const handle = this.handle;
    this.handle = undefined as unknown as CoreHandle;
    try {
      handle?.free();
    } catch {
      // wasm-bindgen refuses to free a borrowed handle; its memory stays with the module
    }
  }

  /** For the SDK's own tests: make the wasm core trap inside a read (`call`) or a write (`mutate`). */
  trapForTests(where: "read" | "write"): void | Promise<void> {
    const trap = () => (this.handle as unknown as { trapForTests(): void }).trapForTests();
    if (where === "read") return this.call(trap);
    return this.mutate("session", async () => {
      trap();
      return { value: undefined, ids: [] };
    });
  }

  assertOpen(): void {
    if (this.closed) throw new EngramInputError("CLOSED", "this Engram instance is closed");
  }

  /** Rebuild the engine from storage through the write queue; one rebuild at a time. */
  private rebuild(): Promise<void> {
    if (!this.rebuilding) {
      const run = () => this.lock.exclusive(() => this.recover());
      const p = this.queue.then(run, run).finally(() => (this.rebuilding = undefined));
      this.queue = p.catch(() => undefined);
      this.rebuilding = p;
    }
    return this.rebuilding;
  }

  private async runWrite<T>(type: ChangeEvent["type"], f: WriteBody<T>): Promise<T> {
    this.assertOpen();
    await this.recover(); // a rebuild after a trap that failed (storage down) is retried here
    this.reloadedBeforeWrite = false;
    const tookLock = await this.lock.taken();
    if ((this.channel || tookLock) && this.handle && (await this.persistence.behind())) {
      // Reads keep using the old engine until the reloaded one replaces it.
      const old = this.handle;
      await this.load();
      if (old !== this.handle) old.free();
      this.reloadedBeforeWrite = true;
    }
    const logged = this.persistence.logged;
    let result: Awaited<ReturnType<WriteBody<T>>>;
    try {
      result = await f();
    } catch (e) {
      const err = this.failure(e);
      // If the rebuild fails too, the next call retries it; this one reports the trap.
      if (err instanceof EngramFatalError) await this.recover().catch(() => undefined);
      else await this.undo();
      throw err;
    }
    await this.persistence.flush(this.handle);
    for (const e of result.events ?? [{ type, ids: result.ids }]) this.emit(e);
    this.onWritten?.(type);
    if (this.persistence.logged !== logged) this.channel?.postMessage("write");
    return result.value;
  }

  private failure(e: unknown): EngramError {
    let err = fromCore(e);
    if (!(err instanceof EngramFatalError) && !(e instanceof EngramError) && !hasCode(e) && this.handle && this.poisoned()) {
      // A JS exception the binding did not make (a throwing getter on an input) unwound
      // through Rust and left the handle borrowed: as fatal as a trap.
      err = new EngramFatalError("WASM_TRAP", `a call into the wasm core failed and left it unusable (${err.message}); rebuilt from storage`, { cause: e });
    }
    if (err instanceof EngramFatalError) {
      // The trapped handle may hold a stuck borrow: never touch it again (not even to free it).
      this.handle = undefined as unknown as CoreHandle;
    }
    return err;
  }

  /**
   * Whether the handle can no longer be borrowed mutably (a failed call left it borrowed):
   * applying an empty batch borrows it and is refused by the decoder with a code, or by
   * wasm-bindgen's borrow check without one.
   */
  private poisoned(): boolean {
    try {
      this.handle.applyOps(new Uint8Array(0));
      return false;
    } catch (e) {
      return e instanceof Error && !hasCode(e);
    }
  }

  /**
   * After a write that failed partway (the core refused a batch's third memory after taking
   * two): what it changed is in memory and in the engine's pending ops, which the next write
   * would persist. Storage has none of it yet, so the engine is rebuilt from there.
   */
  private async undo(): Promise<void> {
    if (!this.handle) return this.recover().catch(() => undefined);
    let changed: boolean;
    try {
      changed = this.handle.takePending().length > 0;
    } catch {
      changed = true;
    }
    if (!changed) return;
    this.freeHandle();
    await this.recover().catch(() => undefined); // if storage fails too, the next call rebuilds
  }

  /** After a trap: rebuild the engine from storage (the failed call never happened). */
  private async recover(): Promise<void> {
    if (this.handle || this.closed) return;
    await this.load();
  }
}

function hasCode(e: unknown): boolean {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string";
}
