/**
 * Node entry point: reads the wasm and the token tables from the package's files.
 * @module
 */
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { setWasmSource } from "../core.js";
import { setTableLocator } from "../tokens.js";
import { DEFAULT_EMBED_TABLE, setEmbedTableLocator } from "../embed/static.js";

setWasmSource(() => readFileSync(new URL("../../wasm/engram_wasm_bg.wasm", import.meta.url)));
setTableLocator(async (enc) => new Uint8Array(await readFile(new URL(`../../assets/${enc}.engtok`, import.meta.url))));

setEmbedTableLocator(async () => new Uint8Array(await readFile(new URL(`../../assets/${DEFAULT_EMBED_TABLE}`, import.meta.url))));

export * from "../index.js";
export { NodeFileStorage } from "../storage/node-file.js";
