import { EngramIoError } from "../errors.js";
import type { StorageAdapter, StorageLock } from "./types.js";

/** In-memory storage: for tests and ephemeral agents. Values are copied in and out. */
export class MemoryStorage implements StorageAdapter {
  private readonly map = new Map<string, Uint8Array>();
  private readonly locks = new Set<string>();
  async get(key: string): Promise<Uint8Array | undefined> {
    const v = this.map.get(key);
    return v === undefined ? undefined : v.slice();
  }
  async put(key: string, value: Uint8Array): Promise<void> {
    this.map.set(key, value.slice());
  }
  async delete(key: string): Promise<void> {
    this.map.delete(key);
  }
  async list(prefix: string): Promise<string[]> {
    return [...this.map.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
  /** An in-process exclusive lock (this storage lives in one process): `STORE_LOCKED` while held. */
  async lock(name: string): Promise<StorageLock> {
    if (this.locks.has(name)) {
      throw new EngramIoError(
        "STORE_LOCKED",
        `the namespace "${name}" of this MemoryStorage is held by another Engram instance in this process; close that one first, or share it`,
      );
    }
    this.locks.add(name);
    let held = true;
    return {
      release: async () => {
        if (held) this.locks.delete(name);
        held = false;
      },
    };
  }
}
