// Default embedder throughput in wasm (Node): cold table load, then short sentences per
// second (chatterbot questions and answers), batched as the SDK does.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { StaticEmbedder } from "../dist/entrypoints/node.js";

const lines = readFileSync(new URL("../../crates/engram-testkit/data/qa_chatterbot.tsv", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => /^[aq]\t/.test(l))
  .map((l) => l.split("\t")[2]);
const { readFile } = await import("node:fs/promises");
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
}
