/**
 * The default embedder: a static token-embedding table distilled from all-MiniLM-L6-v2,
 * run inside the wasm core — offline, no key, in every runtime. The table
 * (`assets/minilm-l6-v2-static-256.engemb`, ~7.9 MB) is a separate asset loaded lazily on
 * the first `embed` and shared by every instance in the process.
 * @module
 */
import { loadCore, StaticEmbedderCore, type CoreStaticEmbedder } from "../core.js";
import { EngramIoError, fromCore } from "../errors.js";
import { readSource, type TableSource } from "../context/tokens.js";
import type { Embedder } from "./types.js";
import { splitRows } from "./vectors.js";

/** The asset's file name; its id changes whenever the table does. */
export const DEFAULT_EMBED_TABLE = "minilm-l6-v2-static-256.engemb";
const DEFAULT_ID = "engram-static:minilm-l6-v2:256:v1";
const DEFAULT_DIM = 256;

// No URL here: entry points name the asset with a literal `new URL("…", import.meta.url)`,
// the only form bundlers copy and rewrite (see entrypoints/browser.ts).
let locator: () => Promise<Uint8Array> = async () => {
  throw new Error(`engram: no location for ${DEFAULT_EMBED_TABLE}; import engram through its package entry point, or pass defaultEmbedder({ table })`);
};

/** Entry points set how the packaged table is found (Node reads the file, browsers fetch). */
export function setEmbedTableLocator(f: () => Promise<Uint8Array>): void {
  locator = f;
}

let shared: Promise<CoreStaticEmbedder> | undefined;

async function load(source: TableSource | undefined): Promise<CoreStaticEmbedder> {
  const bytes = source === undefined ? await locator() : await readSource(source, "embedding table");
  await loadCore();
  try {
    return StaticEmbedderCore.fromTableBytes(bytes);
  } catch (e) {
    throw fromCore(e);
  }
}

/** An embedder backed by a static table in the wasm core. */
export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  private table: Promise<CoreStaticEmbedder> | undefined;

  /** With no `table`, the packaged default table (loaded once per process). */
  constructor(private readonly opts: { table?: TableSource; id?: string; dimension?: number } = {}) {
    this.id = opts.id ?? DEFAULT_ID;
    this.dimension = opts.dimension ?? DEFAULT_DIM;
  }

  /** Resolves once the table is loaded (the first `embed` does this anyway). */
  async ready(): Promise<void> {
    await this.core();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const core = await this.core();
    return splitRows(core.embedMany(texts), texts.length, this.dimension);
  }

  private core(): Promise<CoreStaticEmbedder> {
    if (!this.table) {
      const p = this.opts.table === undefined ? (shared ??= load(undefined)) : load(this.opts.table);
      this.table = p.then(
        (t) => {
          if (t.dim !== this.dimension) throw new EngramIoError("EMBED_TABLE", `the table has ${t.dim} dimensions, expected ${this.dimension}`);
          return t;
        },
        (e) => {
          if (this.opts.table === undefined) shared = undefined;
          this.table = undefined;
          throw e instanceof Error && "code" in e ? e : new EngramIoError("EMBED_TABLE", `cannot load the embedding table: ${String(e)}`, { cause: e });
        },
      );
    }
    return this.table;
  }
}

/** The default embedder (shared table). */
export function defaultEmbedder(opts: { table?: TableSource } = {}): StaticEmbedder {
  return new StaticEmbedder(opts);
}
