/**
 * Node entry point: reads the wasm and the token tables from the package's files.
 * @module
 */
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { setWasmSource } from "../core.js";
import { setTableLocator } from "../context/tokens.js";
import { setEmbedTableLocator } from "../embed/static.js";

setWasmSource(() => readFileSync(new URL("../../wasm/engram_wasm_bg.wasm", import.meta.url)));
// Literal URLs, one per asset, so that a bundler targeting Node (Vite SSR, esbuild) copies them.
const TABLES = {
  o200k_base: () => new URL("../../assets/o200k_base.engtok", import.meta.url),
  cl100k_base: () => new URL("../../assets/cl100k_base.engtok", import.meta.url),
};
setTableLocator(async (enc) => new Uint8Array(await readFile(TABLES[enc]())));
setEmbedTableLocator(async () => new Uint8Array(await readFile(new URL("../../assets/minilm-l6-v2-static-256.engemb", import.meta.url))));

export * from "../index.js";
export { NodeFileStorage } from "../storage/node-file.js";
