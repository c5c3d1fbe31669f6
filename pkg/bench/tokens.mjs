// Token counting: engram (wasm) vs gpt-tokenizer and js-tiktoken, same text, same process.
// Prints cold initialization and throughput on long text, and the ratios.
import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { generated, corpus } from "../test/corpus.mjs";

const text = generated(2_000_000, 11);
const mb = Buffer.byteLength(text) / 1e6;
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timeIt(f, runs = 5) {
  const out = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    f();
    out.push(performance.now() - t);
  }
  return median(out);
}

const t0 = performance.now();
const engram = await import("../dist/entrypoints/node.js");
const bytes = new Uint8Array(await readFile(new URL("../assets/o200k_base.engtok", import.meta.url)));
const tInit = performance.now();
const { Engram } = engram;
await Engram.open({ user: "warm", tokenizer: false }); // loads the wasm module
const wasmReady = performance.now();
const ours = await engram.loadTokenizer("o200k_base", bytes);
const oursInit = performance.now() - wasmReady;
console.log(`engram: wasm module ready in ${(wasmReady - tInit).toFixed(1)} ms, o200k table ready in ${oursInit.toFixed(1)} ms`);

let t = performance.now();
const { Tiktoken } = await import("js-tiktoken/lite");
const o200k = (await import("js-tiktoken/ranks/o200k_base")).default;
const jt = new Tiktoken(o200k);
const jtInit = performance.now() - t;
t = performance.now();
const gpt = await import("gpt-tokenizer/encoding/o200k_base");
gpt.countTokens("warm up");
const gptInit = performance.now() - t;
console.log(`js-tiktoken o200k init ${jtInit.toFixed(1)} ms; gpt-tokenizer o200k init ${gptInit.toFixed(1)} ms`);

// Cold: the first pass of each tokenizer over real, less repetitive text (the Rust book
// HTML and the Chinese design seeds, when present), before any of them has cached a piece.
const real = corpus().slice(0, -1).join("");
if (real.length > 0) {
  const rmb = Buffer.byteLength(real) / 1e6;
  let t1 = performance.now(); const a = ours.count(real); const cOurs = performance.now() - t1;
  t1 = performance.now(); const b = gpt.countTokens(real); const cGpt = performance.now() - t1;
  t1 = performance.now(); const c = jt.encode(real).length; const cJt = performance.now() - t1;
  if (a !== b || a !== c) console.log(`WARNING: counts differ on real text: ${a} ${b} ${c}`);
  console.log(`cold first pass over ${rmb.toFixed(2)} MB of real text: engram ${(rmb / (cOurs / 1e3)).toFixed(1)} MB/s, gpt-tokenizer ${(rmb / (cGpt / 1e3)).toFixed(1)} MB/s, js-tiktoken ${(rmb / (cJt / 1e3)).toFixed(1)} MB/s → engram / gpt-tokenizer ${(cGpt / cOurs).toFixed(2)}×`);
}

const nOurs = ours.count(text);
const nJt = jt.encode(text).length;
const nGpt = gpt.countTokens(text);
if (nOurs !== nJt || nOurs !== nGpt) console.log(`WARNING: counts differ: engram ${nOurs}, js-tiktoken ${nJt}, gpt-tokenizer ${nGpt}`);
const msOurs = timeIt(() => ours.count(text));
const msJt = timeIt(() => jt.encode(text).length, 3);
const msGpt = timeIt(() => gpt.countTokens(text), 3);
console.log(`count ${mb.toFixed(1)} MB (${nOurs} tokens): engram ${(mb / (msOurs / 1e3)).toFixed(1)} MB/s, js-tiktoken ${(mb / (msJt / 1e3)).toFixed(1)} MB/s, gpt-tokenizer ${(mb / (msGpt / 1e3)).toFixed(1)} MB/s`);
console.log(`warm (median of repeated passes) ratio engram / gpt-tokenizer = ${(msGpt / msOurs).toFixed(2)}×, engram / js-tiktoken = ${(msJt / msOurs).toFixed(2)}×`);
void t0;
