/**
 * Token tables are separate assets (`assets/o200k_base.engtok`, `assets/cl100k_base.engtok`),
 * loaded lazily and cached per process. Until one is loaded, counts are estimates and say so.
 * @module
 */
import { loadCore, Tokenizer, type CoreTokenizer } from "../core.js";
import { fromCore } from "../errors.js";

/** An encoding engram can count exactly. */
export type EncodingName = "o200k_base" | "cl100k_base";

/** Where a token table comes from: its bytes, a URL to fetch, or a loader. */
export type TableSource = Uint8Array | URL | string | (() => Promise<Uint8Array>);

const cache = new Map<string, Promise<CoreTokenizer>>();
// No URL here: a `new URL(`…${enc}…`)` would make bundlers copy every table into every app.
// Each entry point names its assets with literal URLs (see entrypoints/browser.ts).
let defaultLocator: (enc: EncodingName) => Promise<Uint8Array> = async (enc) => {
  throw new Error(`engram: no location for the ${enc} token table; import engram through its package entry point, or pass tokenizer.table`);
};

/** Entry points set how the packaged tables are found (Node reads files, browsers fetch). */
export function setTableLocator(f: (enc: EncodingName) => Promise<Uint8Array>): void {
  defaultLocator = f;
}

/** The bytes of a source: as given, from its loader, or fetched (`what` names it in errors). */
export async function readSource(source: TableSource, what: string): Promise<Uint8Array> {
  if (source instanceof Uint8Array) return source;
  if (typeof source === "function") return source();
  const res = await fetch(source);
  if (!res.ok) throw new Error(`cannot fetch ${what} ${String(source)}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function bytesOf(source: TableSource | undefined, enc: EncodingName): Promise<Uint8Array> {
  return source === undefined ? defaultLocator(enc) : readSource(source, "token table");
}

/** Load (once) the tokenizer for `encoding`. */
export function loadTokenizer(encoding: EncodingName = "o200k_base", source?: TableSource): Promise<CoreTokenizer> {
  const key = source === undefined ? encoding : `${encoding}:${typeof source === "string" || source instanceof URL ? String(source) : Math.random()}`;
  let p = cache.get(key);
  if (!p) {
    p = Promise.all([bytesOf(source, encoding), loadCore()]).then(([b]) => {
      try {
        return Tokenizer.fromTableBytes(b);
      } catch (e) {
        throw fromCore(e);
      }
    });
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}
