/**
 * Browser entry point. Each packaged asset is named by one literal
 * `new URL("…", import.meta.url)`, the form bundlers (Vite build and dev server, Rollup,
 * Rolldown, esbuild, webpack) recognise and copy; a URL built from a variable would be
 * neither copied nor rewritten. Only the wasm core, the `o200k_base` token table and the
 * default embedding table are named, so an app's build carries only those three;
 * `cl100k_base` is passed by the app (`tokenizer: { encoding: "cl100k_base", table }`, e.g.
 * from Vite's `import url from "engram/assets/cl100k_base.engtok?url"`).
 *
 * The two tables (1.6 MB and 7.9 MB) are kept in the Cache API after the first fetch
 * (cache `engram-assets-v1`, keyed by URL, which bundlers content-hash), so a reload or an
 * offline visit reads them locally; {@link onAssetProgress} reports their download.
 * @module
 */
import { setWasmSource } from "../core.js";
import { EngramInputError, EngramIoError } from "../errors.js";
import { setTableLocator, type EncodingName } from "../context/tokens.js";
import { setEmbedTableLocator } from "../embed/static.js";

/** Progress of one asset's download: `total` is 0 when the server sent no length; `cached` when read from the Cache API. */
export interface AssetProgress {
  asset: "o200k_base" | "embedding";
  loaded: number;
  total: number;
  cached: boolean;
  done: boolean;
}

/** The Cache API cache that holds the tables. Delete it to make the next load refetch them. */
export const ASSET_CACHE = "engram-assets-v1";

const progressListeners = new Set<(p: AssetProgress) => void>();

/** Subscribe to download progress of the lazily loaded tables; returns the unsubscribe function. */
export function onAssetProgress(listener: (p: AssetProgress) => void): () => void {
  progressListeners.add(listener);
  return () => progressListeners.delete(listener);
}

function report(p: AssetProgress): void {
  for (const l of progressListeners) {
    try {
      l(p);
    } catch {
      // a listener's error is its own
    }
  }
}

async function openCache(): Promise<Cache | undefined> {
  try {
    return typeof caches === "undefined" ? undefined : await caches.open(ASSET_CACHE);
  } catch {
    return undefined; // e.g. an opaque origin or storage disabled: fetch every time
  }
}

/** Read `url` from the cache, else fetch it (streaming progress) and keep it. */
async function cachedBytes(url: URL, asset: AssetProgress["asset"]): Promise<Uint8Array> {
  const cache = await openCache();
  const hit = await cache?.match(url.href).catch(() => undefined);
  if (hit) {
    const bytes = new Uint8Array(await hit.arrayBuffer());
    report({ asset, loaded: bytes.length, total: bytes.length, cached: true, done: true });
    return bytes;
  }
  const res = await fetch(url);
  if (!res.ok) throw new EngramIoError("ASSET_FETCH", `engram: cannot fetch ${url.href}: ${res.status}`);
  const total = Number(res.headers.get("content-length") ?? 0) || 0;
  const bytes = await readWithProgress(res, asset, total);
  if (cache) {
    const headers = { "content-type": "application/octet-stream", "content-length": String(bytes.length) };
    await cache.put(url.href, new Response(bytes.slice(), { headers })).catch(() => undefined); // quota: next load fetches again
    await dropOlderCopies(cache, url, asset);
  }
  report({ asset, loaded: bytes.length, total: total || bytes.length, cached: false, done: true });
  return bytes;
}

/** A new build names a table by another (content-hashed) URL: forget the copies it replaced. */
async function dropOlderCopies(cache: Cache, url: URL, asset: AssetProgress["asset"]): Promise<void> {
  const same = asset === "embedding" ? /\.engemb$/ : /o200k_base[^/]*\.engtok$/;
  try {
    for (const req of await cache.keys()) {
      if (req.url !== url.href && same.test(new URL(req.url).pathname)) await cache.delete(req);
    }
  } catch {
    // best effort: a leftover copy only costs space
  }
}

async function readWithProgress(res: Response, asset: AssetProgress["asset"], total: number): Promise<Uint8Array> {
  if (!res.body || progressListeners.size === 0) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    report({ asset, loaded, total, cached: false, done: false });
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

setWasmSource(async () => new URL("../../wasm/engram_wasm_bg.wasm", import.meta.url));
setTableLocator(async (enc: EncodingName) => {
  if (enc === "o200k_base") return cachedBytes(new URL("../../assets/o200k_base.engtok", import.meta.url), "o200k_base");
  throw new EngramInputError(
    "INVALID_INPUT",
    `engram: the browser build ships only the o200k_base table; pass tokenizer: { encoding: "${enc}", table } with the URL of assets/${enc}.engtok (Vite: import table from "engram/assets/${enc}.engtok?url")`,
  );
});
setEmbedTableLocator(async () => cachedBytes(new URL("../../assets/minilm-l6-v2-static-256.engemb", import.meta.url), "embedding"));

export * from "../index.js";

declare global {
  // The wasm glue's classes declare `[Symbol.dispose]` (explicit resource management). With
  // `lib: ["DOM", "ES2022"]` and no @types/node that symbol is unknown and the glue's .d.ts
  // fails to check; this is the declaration @types/node and lib.esnext.disposable make too
  // (identical declarations merge).
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}
