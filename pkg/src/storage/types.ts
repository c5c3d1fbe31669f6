/**
 * The storage contract: four methods on bytes. engram keeps a snapshot and an op log
 * through it; every adapter passes the same conformance suite (`test/storage.test.mjs`).
 * @module
 */

/** A lock taken with {@link StorageAdapter.lock}. */
export interface StorageLock {
  /** Give the lock back; releasing twice is not an error. */
  release(): Promise<void>;
}

/** A key/value store of bytes. A `put` is durable when its promise resolves. */
export interface StorageAdapter {
  /** The bytes under `key`, or `undefined`. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Store `value` under `key`, replacing what was there. */
  put(key: string, value: Uint8Array): Promise<void>;
  /** Remove `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix`, sorted ascending. */
  list(prefix: string): Promise<string[]>;
  /**
   * Optional: take the exclusive lock `name` (engram passes its namespace), so that one
   * writer at a time holds a store. Rejects with an `EngramIoError` of code `STORE_LOCKED`,
   * whose message names the holder, while another holder has it; never waits.
   * On platforms without Web Locks (Node, workerd) an `Engram`'s first write or sync takes
   * it (reloading first if another writer logged since it opened) and `close()` releases
   * it; opening and reading never need it. Where Web Locks exist (browsers) engram keeps its
   * many-writer design instead: every write holds a Web Lock and first loads what other tabs
   * logged. Adapters without `lock` (IndexedDB, KV, D1, a Durable Object's storage) are not
   * locked: give each store one writer yourself (the worker's Durable Object is one).
   */
  lock?(name: string): Promise<StorageLock>;
  /**
   * Optional: true when {@link StorageAdapter.lock} excludes other processes too (a lock
   * file), not only other instances of this process. Such a lock is taken even where the
   * runtime has Web Locks (Node ≥ 24.5 has them, and they only span one process).
   */
  readonly lockSpansProcesses?: boolean;
  /**
   * Optional: true when the store's backing database was deleted behind engram's back
   * since this origin last opened it (a browser discarding a database it found corrupt),
   * so what it held is gone. `Engram.open` reports it as `openReport.storageLost`.
   */
  discarded?(): Promise<boolean>;
  /**
   * How many values the adapter put back from a copy of its own after it found its
   * database deleted (`IndexedDbStorage`'s second copy); reported as `openReport.storageRestored`.
   */
  restored?(): Promise<number>;
}
