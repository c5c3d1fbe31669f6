/**
 * The storage contract: four methods on bytes. engram keeps a snapshot and an op log
 * through it; every adapter passes the same conformance suite (`test/storage.test.mjs`).
 * @module
 */

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
}
