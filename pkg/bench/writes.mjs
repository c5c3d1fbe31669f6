// Writes at scale through the SDK (wasm, Node): the cost of one `remember` (near-duplicate
// check included, the default threshold) and `rememberMany` throughput, in stores of 1k,
// 10k and 100k memories of 384 dimensions. Usage: node bench/writes.mjs [sizes=1000,10000,100000]
import { performance } from "node:perf_hooks";
import { Engram, MemoryStorage } from "../dist/entrypoints/node.js";

const sizes = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
const DIM = 384;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.round((xs.length - 1) * p)];
let x = 99;
const r = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32 - 0.5);
const centres = Array.from({ length: 64 }, () => Float32Array.from({ length: DIM }, () => r() * 2));
const vec = () => Float32Array.from(centres[Math.floor((r() + 0.5) * 64) % 64], (v) => v + r() * 2);
const NAMES = ["Alice", "Bob", "Carol", "Dmitri", "Elena", "Farid", "Grace", "Hiro"];
const TOPICS = ["rust", "python", "hiking", "jazz", "chess", "tea", "kubernetes", "sailing", "poetry", "finance", "robotics", "cooking"];
const text = (i) => `${NAMES[i % 8]} met ${NAMES[(i * 7) % 8]} to discuss ${TOPICS[i % 12]} and ${TOPICS[(i * 5) % 12]} (note ${i})`;

for (const n of sizes) {
  const mem = await Engram.open({ user: "writes", storage: new MemoryStorage(), embedder: { id: "bench", dimension: DIM, embed: async (t) => t.map(vec) }, compactEvery: 1e9, embedTurns: false });
  const batches = [];
  for (let i = 0; i < n; i += 1000) {
    const t = performance.now();
    await mem.rememberMany(Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({ text: text(i + j), embedding: vec() })));
    batches.push((performance.now() - t) / Math.min(1000, n - i));
  }
  const one = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await mem.remember({ text: text(n + i), embedding: vec() });
    one.push(performance.now() - t);
  }
  console.log(`${String(n).padStart(6)} memories: remember p50 ${pct(one, 0.5).toFixed(3)} ms p95 ${pct(one, 0.95).toFixed(3)} ms | rememberMany, last 1,000: ${(batches.at(-1) * 1e3).toFixed(0)} µs a memory (first 1,000: ${(batches[0] * 1e3).toFixed(0)} µs) | count ${await mem.count()}`);
  await mem.close();
}
