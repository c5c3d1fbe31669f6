/**
 * Cloudflare Workers entry point: the wasm is imported as a compiled module and
 * initialized synchronously at first use. Token tables have no default location in a
 * worker: pass `tokenizer: { table }` (bytes, a URL, or a loader) to `Engram.open`.
 * Nothing random or stateful runs at module scope.
 * @module
 */
// @ts-ignore -- resolved by wrangler/workerd as a CompiledWasm module
import wasmModule from "../../wasm/engram_wasm_bg.wasm";
import { setWasmSource } from "../core.js";
import { setTableLocator } from "../tokens.js";

setWasmSource(() => wasmModule as WebAssembly.Module);
setTableLocator(async (enc) => {
  throw new Error(`engram: in Workers pass tokenizer.table for ${enc} (bytes, URL or loader) to Engram.open`);
});

export * from "../index.js";
