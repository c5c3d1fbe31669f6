/**
 * Browser entry point: fetches the wasm and the token tables next to the package files
 * (bundlers such as Vite rewrite these `new URL(..., import.meta.url)` references).
 * @module
 */
import { setWasmSource } from "../core.js";
import { setTableLocator } from "../tokens.js";

setWasmSource(async () => new URL("../../wasm/engram_wasm_bg.wasm", import.meta.url));
setTableLocator(async (enc) => {
  const res = await fetch(new URL(`../../assets/${enc}.engtok`, import.meta.url));
  if (!res.ok) throw new Error(`engram: cannot fetch the ${enc} token table (${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
});

export * from "../index.js";
