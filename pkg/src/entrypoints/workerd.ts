/**
 * Cloudflare Workers entry point: the wasm is imported as a compiled module and
 * initialized synchronously at first use. Token tables have no default location in a
 * worker: pass `tokenizer: { table }` (bytes, a URL, or a loader) to `Engram.open`, and
 * likewise `embedder: defaultEmbedder({ table })` (or `embedder: false`).
 * Nothing random or stateful runs at module scope.
 * @module
 */
// @ts-ignore -- resolved by wrangler/workerd as a CompiledWasm module
import wasmModule from "../../wasm/engram_wasm_bg.wasm";
import { setWasmSource } from "../core.js";
import { setTableLocator } from "../tokens.js";
import { setEmbedTableLocator } from "../embed/static.js";

setWasmSource(() => wasmModule as WebAssembly.Module);
setTableLocator(async (enc) => {
  throw new Error(`engram: in Workers pass tokenizer.table for ${enc} (bytes, URL or loader) to Engram.open`);
});

setEmbedTableLocator(async () => {
  throw new Error("engram: in Workers pass the embedding table (defaultEmbedder({ table })) or embedder: false to Engram.open");
});

export * from "../index.js";
