/**
 * The only file that imports the generated wasm-bindgen glue. Entry points tell it how to
 * get the wasm module for their runtime (file in Node, URL in browsers, compiled module
 * in workerd); everything else imports from here.
 * @module
 */
import * as glue from "../wasm/engram_wasm.js";

export type CoreHandle = glue.EngramHandle;
export type CoreTokenizer = glue.Tokenizer;
export type CoreStaticEmbedder = glue.StaticEmbedder;
export type CoreBertEmbedder = glue.BertEmbedder;

/** How the current runtime obtains the wasm module. */
export type WasmSource = () => BufferSource | WebAssembly.Module | Promise<BufferSource | WebAssembly.Module | URL | Response>;

let source: WasmSource | undefined;
let ready: Promise<void> | undefined;
let loaded = false;

/** True once the wasm core is instantiated. */
export function coreLoaded(): boolean {
  return loaded;
}

/** Called once by an entry point. */
export function setWasmSource(s: WasmSource): void {
  source = s;
}

/** Initialize synchronously with a compiled module or bytes (workerd, Node). */
export function initCoreSync(module: BufferSource | WebAssembly.Module): void {
  glue.initSync({ module });
  loaded = true;
  ready = Promise.resolve();
}

/** Initialize the wasm core once; later calls return the same promise. */
export function loadCore(): Promise<void> {
  ready ??= (async () => {
    if (!source) throw new Error("engram: no wasm source configured; import engram through its package entry point");
    const s = await source();
    if (s instanceof WebAssembly.Module || ArrayBuffer.isView(s) || s instanceof ArrayBuffer) glue.initSync({ module: s });
    else await glue.default({ module_or_path: s });
    loaded = true;
  })();
  return ready;
}

export const EngramHandle = glue.EngramHandle;
export const Tokenizer = glue.Tokenizer;
export const StaticEmbedderCore = glue.StaticEmbedder;
export const BertEmbedderCore = glue.BertEmbedder;

/** Opaque texts in op batches, for encrypted sync (see `sync/opaque.ts`). */
export const opaqueParts = glue.opaqueParts;
export const opaqueJoin = glue.opaqueJoin;

/** The sync wire format (see `sync/frames.ts`). */
export const coreEncodeFrames = glue.encodeFrames;
export const coreDecodeFrames = glue.decodeFrames;
