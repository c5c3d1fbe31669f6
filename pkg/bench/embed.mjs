// Default embedder throughput in wasm (Node): cold table load, then short sentences per
// second (chatterbot questions and answers), batched as the SDK does.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { performance } from "node:perf_hooks";
import { AccurateEmbedder, StaticEmbedder } from "../dist/entrypoints/node.js";

const lines = readFileSync(new URL("../../crates/engram-testkit/data/qa_chatterbot.tsv", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => /^[aq]\t/.test(l))
  .map((l) => l.split("\t")[2]);
await new StaticEmbedder({ table: new Uint8Array(8) }).ready().catch(() => undefined); // instantiate the wasm core first
let t = performance.now();
const bytes = new Uint8Array(await readFile(new URL("../assets/minilm-l6-v2-static-256.engemb", import.meta.url)));
const read = performance.now() - t;
t = performance.now();
const e = new StaticEmbedder({ table: bytes });
await e.ready();
console.log(`cold load of the table: read ${read.toFixed(1)} ms, then parse + check + index in wasm ${(performance.now() - t).toFixed(1)} ms`);
const words = lines.reduce((n, s) => n + s.split(/\s+/).length, 0);
console.log(`${lines.length} sentences, ${(words / lines.length).toFixed(1)} words on average`);
let tableRate = 0;
for (const batch of [1, 64]) {
  let n = 0;
  t = performance.now();
  while (performance.now() - t < 2000) {
    for (let i = 0; i < lines.length; i += batch) {
      await e.embed(lines.slice(i, i + batch));
      n += Math.min(batch, lines.length - i);
    }
  }
  const secs = (performance.now() - t) / 1000;
  console.log(`batch ${batch}: ${Math.round(n / secs)} sentences/s`);
  tableRate = n / secs;
}

// The accurate embedder (the full all-MiniLM-L6-v2 in wasm), when its files are on this
// machine (scripts/env.sh's ensure_minilm): cold load, then sentences per second.
const dir = process.env.ENGRAM_MINILM_DIR ?? `${homedir()}/.cache/engram-models/all-MiniLM-L6-v2`;
const weights = await readFile(`${dir}/model.safetensors`).catch(() => undefined);
if (!weights) {
  console.log(`accurate embedder: no model in ${dir} (source scripts/env.sh && ensure_minilm)`);
} else {
  const vocab = await readFile(`${dir}/vocab.txt`);
  t = performance.now();
  const acc = new AccurateEmbedder({ weights, vocab });
  await acc.ready();
  console.log(`accurate embedder: cold load of ${(weights.length / 1e6).toFixed(1)} MB of weights in wasm ${(performance.now() - t).toFixed(0)} ms`);
  const sample = lines.filter((_, i) => i % 5 === 0);
  t = performance.now();
  for (let i = 0; i < sample.length; i += 16) await acc.embed(sample.slice(i, i + 16));
  const secs = (performance.now() - t) / 1000;
  console.log(`accurate embedder: ${sample.length} sentences in ${secs.toFixed(1)} s: ${Math.round(sample.length / secs)} sentences/s (${(1000 * secs / sample.length).toFixed(1)} ms each); the table is ${Math.round(tableRate / (sample.length / secs))}× faster`);
}
