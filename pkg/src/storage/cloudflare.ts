import type { StorageAdapter } from "./types.js";

/** The subset of a Cloudflare KV namespace binding this adapter uses. */
export interface KvNamespaceLike {
  get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
  put(key: string, value: ArrayBuffer | Uint8Array): Promise<void>;
  delete(key: string): Promise<void>;
  list(opts: { prefix: string; cursor?: string }): Promise<{ keys: { name: string }[]; list_complete: boolean; cursor?: string }>;
}

/** Cloudflare KV storage. KV is eventually consistent across locations; one worker location sees its own writes. */
export class KvStorage implements StorageAdapter {
  constructor(private readonly kv: KvNamespaceLike, private readonly prefix = "") {}
  async get(key: string): Promise<Uint8Array | undefined> {
    const v = await this.kv.get(this.prefix + key, "arrayBuffer");
    return v === null ? undefined : new Uint8Array(v);
  }
  async put(key: string, value: Uint8Array): Promise<void> {
    await this.kv.put(this.prefix + key, value.slice());
  }
  async delete(key: string): Promise<void> {
    await this.kv.delete(this.prefix + key);
  }
  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await this.kv.list({ prefix: this.prefix + prefix, cursor });
      out.push(...page.keys.map((k) => k.name.slice(this.prefix.length)));
      if (page.list_complete || !page.cursor) break;
      cursor = page.cursor;
    }
    return out.sort();
  }
}

/** The subset of a Cloudflare D1 database binding this adapter uses. */
export interface D1DatabaseLike {
  prepare(sql: string): {
    bind(...values: unknown[]): {
      first<T = unknown>(): Promise<T | null>;
      run(): Promise<unknown>;
      all<T = unknown>(): Promise<{ results: T[] }>;
    };
  };
  exec(sql: string): Promise<unknown>;
}

/**
 * Cloudflare D1 storage: one table `engram_kv(key TEXT PRIMARY KEY, value BLOB)`, created
 * on first use (or by the migration in `worker/migrations`).
 */
export class D1Storage implements StorageAdapter {
  private ready: Promise<unknown> | undefined;
  constructor(private readonly db: D1DatabaseLike, private readonly table = "engram_kv") {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`invalid D1 table name ${JSON.stringify(table)}`);
  }
  private init(): Promise<unknown> {
    this.ready ??= this.db.exec(`CREATE TABLE IF NOT EXISTS ${this.table} (key TEXT PRIMARY KEY, value BLOB NOT NULL)`);
    return this.ready;
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    await this.init();
    const row = await this.db.prepare(`SELECT value FROM ${this.table} WHERE key = ?1`).bind(key).first<{ value: ArrayBuffer | number[] }>();
    if (row === null) return undefined;
    return row.value instanceof ArrayBuffer ? new Uint8Array(row.value) : Uint8Array.from(row.value);
  }
  async put(key: string, value: Uint8Array): Promise<void> {
    await this.init();
    await this.db
      .prepare(`INSERT INTO ${this.table} (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value`)
      .bind(key, value.slice().buffer)
      .run();
  }
  async delete(key: string): Promise<void> {
    await this.init();
    await this.db.prepare(`DELETE FROM ${this.table} WHERE key = ?1`).bind(key).run();
  }
  async list(prefix: string): Promise<string[]> {
    await this.init();
    const { results } = await this.db
      .prepare(`SELECT key FROM ${this.table} WHERE substr(key, 1, length(?1)) = ?1 ORDER BY key`)
      .bind(prefix)
      .all<{ key: string }>();
    return results.map((r) => r.key);
  }
}
