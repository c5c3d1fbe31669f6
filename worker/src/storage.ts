/**
 * engram's storage contract over a Durable Object's own SQLite database. Only the object
 * writes it, so a user's op log and snapshots have exactly one writer. A value is split
 * into 1 MiB parts (SQLite-backed objects cap a row at 2 MB; a snapshot of 10k memories is
 * several MB) written in one transaction, so a reader never sees half a value.
 * @module
 */
import type { StorageAdapter } from "engram";

const PART = 1 << 20;
const MAX_CHAR = String.fromCodePoint(0x10ffff);

export class DurableObjectSqlStorage implements StorageAdapter {
  private readonly sql: SqlStorage;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS engram_kv (key TEXT NOT NULL, part INTEGER NOT NULL, value BLOB NOT NULL, PRIMARY KEY (key, part))",
    );
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const rows = this.sql.exec<{ value: ArrayBuffer }>("SELECT value FROM engram_kv WHERE key = ? ORDER BY part", key).toArray();
    if (rows.length === 0) return undefined;
    if (rows.length === 1) return new Uint8Array(rows[0].value);
    const out = new Uint8Array(rows.reduce((n, r) => n + r.value.byteLength, 0));
    let at = 0;
    for (const r of rows) {
      out.set(new Uint8Array(r.value), at);
      at += r.value.byteLength;
    }
    return out;
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    this.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM engram_kv WHERE key = ?", key);
      const n = Math.max(1, Math.ceil(value.length / PART));
      for (let i = 0; i < n; i++) {
        const part = value.slice(i * PART, Math.min(value.length, (i + 1) * PART));
        this.sql.exec("INSERT INTO engram_kv (key, part, value) VALUES (?, ?, ?)", key, i, part.buffer);
      }
    });
  }

  async delete(key: string): Promise<void> {
    this.sql.exec("DELETE FROM engram_kv WHERE key = ?", key);
  }

  async list(prefix: string): Promise<string[]> {
    return this.sql
      .exec<{ key: string }>("SELECT DISTINCT key FROM engram_kv WHERE key >= ? AND key < ? ORDER BY key", prefix, prefix + MAX_CHAR)
      .toArray()
      .map((r) => r.key);
  }

  /** Bytes stored (for the status endpoint). */
  bytes(): number {
    return this.sql.exec<{ n: number }>("SELECT COALESCE(SUM(length(value)), 0) AS n FROM engram_kv").one().n;
  }
}
