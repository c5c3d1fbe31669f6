/**
 * Cloudflare Workers entry point: the wasm is imported as a compiled module and
 * initialized synchronously at first use. Token tables have no default location in a
 * worker: call {@link useWorkerdTables} once per isolate (e.g. reading them from
 * `env.ASSETS`), or pass `tokenizer: { table }` (bytes, a URL, or a loader) to `Engram.open`
 * and likewise `embedder: defaultEmbedder({ table })` (or `embedder: false`).
 * Nothing random or stateful runs at module scope.
 * @module
 */
// @ts-ignore -- resolved by wrangler/workerd as a CompiledWasm module
import wasmModule from "../../wasm/engram_wasm_bg.wasm";
import { setWasmSource } from "../core.js";
import { setTableLocator, type EncodingName } from "../context/tokens.js";
import { setEmbedTableLocator } from "../embed/static.js";

setWasmSource(() => wasmModule as WebAssembly.Module);
setTableLocator(async (enc) => {
  throw new Error(`engram: in Workers pass tokenizer.table for ${enc} (bytes, URL or loader) to Engram.open`);
});

setEmbedTableLocator(async () => {
  throw new Error("engram: in Workers pass the embedding table (defaultEmbedder({ table })) or embedder: false to Engram.open");
});

/** Where a worker's tables come from (e.g. `env.ASSETS`); see {@link useWorkerdTables}. */
export interface WorkerdTables {
  /** The bytes of a token table (`<encoding>.engtok`). */
  tokenTable?: (encoding: EncodingName) => Promise<Uint8Array>;
  /** The bytes of the default embedding table (`DEFAULT_EMBED_TABLE`). */
  embedTable?: () => Promise<Uint8Array>;
}

/**
 * Tell engram where this isolate's tables are, once, before `Engram.open`. `open` then
 * needs no `tokenizer.table`, `defaultEmbedder()` needs no `table`, and each table is read
 * and parsed once per isolate (a table passed as a loader to `open` is parsed on every
 * open). Also sets the wasm source, so a bundle that dropped this module's top-level
 * setup still works.
 */
export function useWorkerdTables(tables: WorkerdTables): void {
  setWasmSource(() => wasmModule as WebAssembly.Module);
  if (tables.tokenTable) setTableLocator(tables.tokenTable);
  if (tables.embedTable) setEmbedTableLocator(tables.embedTable);
}

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
