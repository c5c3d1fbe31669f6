import type { StorageAdapter } from "./types.js";

/** In-memory storage: for tests and ephemeral agents. Values are copied in and out. */
export class MemoryStorage implements StorageAdapter {
  private readonly map = new Map<string, Uint8Array>();
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
}
