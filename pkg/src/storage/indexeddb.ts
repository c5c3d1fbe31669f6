import { openDB, type IDBPDatabase } from "idb";
import type { StorageAdapter } from "./types.js";

/**
 * IndexedDB storage for browsers (through the `idb` package). One object store of
 * `Uint8Array` values; each call is its own transaction, complete when the promise resolves —
 * written with `durability: "strict"`, so resolved means flushed to disk (like the fsync of
 * `NodeFileStorage`), not merely handed to the OS.
 */
export class IndexedDbStorage implements StorageAdapter {
  private db: Promise<IDBPDatabase>;
  constructor(name = "engram", private readonly store = "kv", factory?: IDBFactory) {
    const storeName = store;
    const open = () =>
      openDB(name, 1, {
        upgrade(db) {
          if (!db.objectStoreNames.contains(storeName)) db.createObjectStore(storeName);
        },
      });
    if (factory) {
      const g = globalThis as { indexedDB?: IDBFactory };
      const saved = g.indexedDB;
      g.indexedDB = factory;
      try {
        this.db = open();
      } finally {
        g.indexedDB = saved;
      }
    } else {
      this.db = open();
    }
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    const v = await (await this.db).get(this.store, key);
    return v === undefined ? undefined : new Uint8Array(v as ArrayBuffer | Uint8Array);
  }
  async put(key: string, value: Uint8Array): Promise<void> {
    const db = await this.db;
    const tx = db.transaction(this.store, "readwrite", { durability: "strict" });
    await tx.store.put(value.slice(), key);
    await tx.done;
  }
  async delete(key: string): Promise<void> {
    const db = await this.db;
    const tx = db.transaction(this.store, "readwrite", { durability: "strict" });
    await tx.store.delete(key);
    await tx.done;
  }
  async list(prefix: string): Promise<string[]> {
    const range = IDBKeyRange.bound(prefix, prefix + "\uffff");
    const keys = await (await this.db).getAllKeys(this.store, range);
    return (keys as string[]).filter((k) => k.startsWith(prefix)).sort();
  }
  /** Close the database connection. */
  async close(): Promise<void> {
    (await this.db).close();
  }
}
