// The CI bench gate: a short run of the ratios the benchmarks print, each against its peer
// measured in this same run (so a slow, shared machine slows both sides), compared with
// bench/baseline.json. Fails when a ratio is more than 2× worse than its baseline.
// Usage: node bench/gate.mjs [--write-baseline]
import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { generated } from "../test/corpus.mjs";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (f, runs) => median(Array.from({ length: runs }, () => { const t = performance.now(); f(); return performance.now() - t; }));

const engram = await import("../dist/entrypoints/node.js");
const { Engram, MemoryStorage, loadTokenizer } = engram;
const table = new Uint8Array(readFileSync(new URL("../assets/o200k_base.engtok", import.meta.url)));
await Engram.open({ user: "gate", tokenizer: false });
const ours = await loadTokenizer("o200k_base", table);
const gpt = await import("gpt-tokenizer/encoding/o200k_base");
const { Tiktoken } = await import("js-tiktoken/lite");
const jt = new Tiktoken((await import("js-tiktoken/ranks/o200k_base")).default);

/** Each ratio: what it measures, its value, and whether higher is better. */
const ratios = {};

// Tokens. Cold: the first pass of each over text none has seen (a fresh seed); count-only
// and warm: the median of repeated passes.
{
  const cold = [generated(300_000, 101), generated(300_000, 102)];
  const tOurs = time(() => ours.count(cold[0]), 1);
  const tGpt = time(() => gpt.countTokens(cold[1]), 1);
  ratios.tokensColdVsGptTokenizer = { value: tGpt / tOurs, higherIsBetter: true };
  const text = generated(1_000_000, 11);
  if (ours.count(text) !== gpt.countTokens(text)) throw new Error("token counts differ from gpt-tokenizer");
  ratios.tokensWarmVsGptTokenizer = { value: time(() => gpt.countTokens(text), 3) / time(() => ours.count(text), 5), higherIsBetter: true };
  ratios.tokensWarmVsJsTiktoken = { value: time(() => jt.encode(text).length, 3) / time(() => ours.count(text), 5), higherIsBetter: true };
  // BPE stays linear: time per byte of 32 KiB with no break (one letter repeated) over
  // that of ordinary text (lower is better). Nine passes each: a pass of either is a
  // millisecond or two, and three let one slow pass on a shared machine set the median.
  const perByte = (s) => time(() => ours.count(s), 9) / s.length;
  ratios.bpeNoBreakPerByteVsOrdinary = { value: perByte("a".repeat(32 * 1024)) / perByte(generated(64 * 1024, 7)), higherIsBetter: false };
}

// Recall at 10k memories: engram's recall against the exact scan a JS memory would do
// (cosine over every stored vector, the same vectors), both p50.
{
  const n = 10_000, DIM = 384;
  let x = 12345;
  const r = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32 - 0.5);
  const centres = Array.from({ length: 64 }, () => Float32Array.from({ length: DIM }, () => r() * 2));
  const vec = () => Float32Array.from(centres[Math.floor((r() + 0.5) * 64) % 64], (v) => v + r() * 2);
  const vectors = Array.from({ length: n }, vec);
  const queries = Array.from({ length: 100 }, vec);
  let q = 0;
  const mem = await Engram.open({ user: "gate", storage: new MemoryStorage(), embedder: { id: "gate", dimension: DIM, embed: async (t) => t.map(() => queries[q++ % queries.length]) }, config: { dedupThreshold: 1.01 }, compactEvery: 1e9, embedTurns: false });
  const tWrite = performance.now();
  for (let i = 0; i < n; i += 1000) await mem.rememberMany(vectors.slice(i, i + 1000).map((embedding, j) => ({ text: `note ${i + j} about topic ${(i + j) % 12}`, embedding })));
  const writeMs = performance.now() - tWrite;
  const ours = [];
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    await mem.recall(`what about topic ${i % 12}?`);
    ours.push(performance.now() - t);
  }
  const norms = vectors.map((v) => Math.hypot(...v));
  const scan = [];
  for (const qv of queries) {
    const t = performance.now();
    const qn = Math.hypot(...qv);
    const scores = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const v = vectors[i];
      let dot = 0;
      for (let d = 0; d < DIM; d++) dot += v[d] * qv[d];
      scores[i] = dot / (norms[i] * qn);
    }
    Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]).slice(0, 8);
    scan.push(performance.now() - t);
  }
  ratios.recall10kVsJsExactScan = { value: median(scan) / median(ours), higherIsBetter: true };
  // Writes at scale: 1,000 more memories into the 10k store against 1,000 into an empty one.
  const small = await Engram.open({ user: "gate-small", storage: new MemoryStorage(), embedder: { id: "gate", dimension: DIM, embed: async (t) => t.map(vec) }, config: { dedupThreshold: 1.01 }, compactEvery: 1e9, embedTurns: false });
  const more = (m) => m.rememberMany(Array.from({ length: 1000 }, (_, j) => ({ text: `extra ${j} on shelf ${j % 9}`, embedding: vec() })));
  let t = performance.now();
  await more(small);
  const emptyMs = performance.now() - t;
  t = performance.now();
  await more(mem);
  const fullMs = performance.now() - t;
  ratios.write1kInto10kVsIntoEmpty = { value: fullMs / emptyMs, higherIsBetter: false };
  console.log(`(10k memories written in ${(writeMs / 1e3).toFixed(1)} s; recall p50 ${median(ours).toFixed(2)} ms, JS exact scan p50 ${median(scan).toFixed(2)} ms)`);
  await small.close();
  await mem.close();
}

const file = new URL("./baseline.json", import.meta.url);
if (process.argv.includes("--write-baseline")) {
  writeFileSync(file, JSON.stringify(Object.fromEntries(Object.entries(ratios).map(([k, r]) => [k, Number(r.value.toFixed(3))])), null, 2) + "\n");
  console.log("baseline written");
}
const baseline = JSON.parse(readFileSync(file, "utf8"));
let failed = 0;
for (const [name, { value, higherIsBetter }] of Object.entries(ratios)) {
  const base = baseline[name];
  if (base === undefined) throw new Error(`bench/baseline.json has no ${name}`);
  const worse = higherIsBetter ? base / value : value / base;
  const ok = worse <= 2;
  failed += ok ? 0 : 1;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${value.toFixed(2)}× (baseline ${base}×${higherIsBetter ? ", higher is better" : ", lower is better"}; ${worse > 1 ? `${worse.toFixed(2)}× worse` : "not worse"})`);
}
if (failed) {
  console.error(`${failed} ratio(s) more than 2× worse than bench/baseline.json`);
  process.exit(1);
}
