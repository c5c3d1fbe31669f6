/**
 * One writer per store: Web Locks between the tabs of a browser, the storage adapter's own
 * lock between instances and processes elsewhere. Used by `Lifetime` (every write) and the
 * sync hooks (a sync writes what it pulls).
 * @module
 */
import { EngramError, EngramIoError } from "../errors.js";
import type { StorageAdapter, StorageLock } from "../storage/types.js";

/**
 * The part of the Web Locks API (DOM's `LockManager`) used here, declared so that these
 * types check in a Worker or Node app without the DOM lib.
 */
export interface WebLocks {
  request(name: string, options: { mode: "exclusive" }, callback: () => Promise<unknown>): Promise<unknown>;
}

/** The runtime's Web Locks, where there are any (browsers). */
export function webLocks(): WebLocks | undefined {
  return (globalThis as { navigator?: { locks?: WebLocks } }).navigator?.locks;
}

export class WriterLock {
  /** The store's lock (one writer per namespace): taken by the first write, released by `close()`. */
  private storeLock: StorageLock | undefined;
  private lockTarget: { storage: StorageAdapter; name: string } | undefined;
  private lockIsNew = false;
  private lockTaking: Promise<StorageLock> | undefined;

  /** `prefix` is the store's namespace: the name of both locks. */
  constructor(
    private readonly prefix: string,
    storage: StorageAdapter,
  ) {
    // One writer per store where there are no Web Locks (see `taken`), and wherever the
    // adapter's lock spans processes: Web Locks (browsers, Node ≥ 24.5) only span one.
    if (storage.lock && (!webLocks() || storage.lockSpansProcesses)) this.lockTarget = { storage, name: prefix };
  }

  /**
   * Two tabs of one user share one IndexedDB but each has its own engine: unguarded, both
   * would number their op batches from the same sequence (overwriting each other's) and a
   * compaction would snapshot one tab's state over the other's writes. So every write (and
   * the open) holds a Web Lock named after the store, and first reloads from storage if
   * another tab logged a batch since; after the write, a BroadcastChannel message tells the
   * other tabs to reload. Without Web Locks (Node, workerd) the store's own lock keeps
   * one writer per store instead (see `taken`).
   */
  exclusive<T>(f: () => Promise<T>): Promise<T> {
    const locks = webLocks();
    if (!locks) return f();
    return locks.request(`engram:${this.prefix}`, { mode: "exclusive" }, f) as Promise<T>;
  }

  /**
   * Without Web Locks (Node, workerd) one instance at a time may write a store: the first
   * write takes the adapter's lock ({@link StorageAdapter.lock}; `NodeFileStorage` and
   * `MemoryStorage` have one) and holds it until `close()`. Opening and reading never need
   * it, so a reader beside a writer (the CLI's `list` beside a running MCP server) works; a
   * write (or sync, which writes what it pulls) while another instance or process holds
   * the store rejects with `STORE_LOCKED` (an `EngramIoError` naming the holder) and is not
   * made. True once after the lock was taken: the write then reloads if another writer
   * logged batches since this instance loaded.
   */
  async taken(): Promise<boolean> {
    await this.ensure();
    const fresh = this.lockIsNew;
    this.lockIsNew = false;
    return fresh;
  }

  /** Take the store's lock if this instance does not hold it yet (concurrent callers share one attempt). */
  async ensure(): Promise<void> {
    if (this.storeLock || !this.lockTarget) return;
    const taking = (this.lockTaking ??= takeLock(this.lockTarget.storage, this.lockTarget.name));
    try {
      const lock = await taking;
      if (!this.storeLock) {
        this.storeLock = lock;
        this.lockIsNew = true;
      }
    } finally {
      this.lockTaking = undefined;
    }
  }

  /** Take the writer lock if it is free; false while another instance holds the store. */
  async mayWrite(): Promise<boolean> {
    try {
      await this.taken();
      return true;
    } catch (e) {
      if (e instanceof EngramError && e.code === "STORE_LOCKED") return false;
      throw e;
    }
  }

  /** Give the store's lock back (on `close()`, or when opening failed). */
  async release(): Promise<void> {
    await this.storeLock?.release();
    this.storeLock = undefined;
  }
}

/** Take the store's lock; an adapter's own failure becomes an `EngramIoError`. */
async function takeLock(storage: StorageAdapter, name: string): Promise<StorageLock> {
  try {
    return await storage.lock!(name);
  } catch (e) {
    if (e instanceof EngramError) throw e;
    throw new EngramIoError("STORAGE", `could not lock the store ${JSON.stringify(name)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}
