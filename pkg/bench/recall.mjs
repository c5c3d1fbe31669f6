// recall + buildContext through the SDK at 1k / 10k / 100k memories (384-d): median, p95,
// beside the peer a JS memory would be: an exact scan (cosine over every stored vector of
// Float32Arrays, then a sort) of the same vectors, measured in the same run up to 100k.
// Usage: node bench/recall.mjs [sizes=1000,10000,100000]   (1000000 for the 1M figure)
import { performance } from "node:perf_hooks";
import { Engram, MemoryStorage } from "../dist/entrypoints/node.js";

const sizes = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
const DIM = 384;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.round((xs.length - 1) * p)];

function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32 - 0.5);
}
const TOPICS = ["rust", "python", "hiking", "jazz", "chess", "tea", "kubernetes", "sailing", "poetry", "finance", "robotics", "cooking"];
const NAMES = ["Alice", "Bob", "Carol", "Dmitri", "Elena", "Farid", "Grace", "Hiro"];

for (const n of sizes) {
  const r = rng(n);
  const centres = Array.from({ length: 64 }, () => Float32Array.from({ length: DIM }, () => r() * 2));
  const vec = () => {
    const c = centres[Math.floor((r() + 0.5) * 64) % 64];
    return Float32Array.from(c, (x) => x + r() * 2);
  };
  const mem = await Engram.open({ user: "bench", storage: new MemoryStorage(), embedder: { id: "bench", dimension: DIM, embed: async (t) => t.map(vec) }, config: { dedupThreshold: 1.01 }, compactEvery: 1e9, embedTurns: false });
  await mem.tokenizerReady();
  const t0 = performance.now();
  const batch = [];
  const kept = n <= 100_000 ? [] : null; // the peer's copy of the vectors
  for (let i = 0; i < n; i++) {
    const a = NAMES[i % 8], b = NAMES[(i * 7) % 8], t1 = TOPICS[i % 12], t2 = TOPICS[(i * 5) % 12];
    const embedding = vec();
    kept?.push(embedding);
    batch.push({ text: `${a} met ${b} to discuss ${t1} and ${t2} (note ${i})`, embedding });
    if (batch.length === 1000) await mem.rememberMany(batch.splice(0));
  }
  if (batch.length) await mem.rememberMany(batch.splice(0));
  const s = mem.session("s");
  for (let i = 0; i < 12; i++) await s.append("user", `turn ${i} about ${TOPICS[i]}`);
  const load = performance.now() - t0;
  const rec = [], ctx = [];
  for (let i = 0; i < 200; i++) {
    const q = `what did ${NAMES[i % 8]} discuss about ${TOPICS[i % 12]}?`;
    let t = performance.now();
    await mem.recall(q);
    rec.push(performance.now() - t);
    t = performance.now();
    const c = await mem.buildContext(q, { session: "s", budget: 900 });
    ctx.push(performance.now() - t);
    if (c.tokens > 900) throw new Error("budget exceeded");
  }
  let peer = "";
  if (kept) {
    const norms = kept.map((v) => Math.hypot(...v));
    const scan = [];
    for (let i = 0; i < 20; i++) {
      const qv = vec();
      const t = performance.now();
      const qn = Math.hypot(...qv);
      const scores = new Float32Array(n);
      for (let j = 0; j < n; j++) {
        const v = kept[j];
        let dot = 0;
        for (let d = 0; d < DIM; d++) dot += v[d] * qv[d];
        scores[j] = dot / (norms[j] * qn);
      }
      Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]).slice(0, 8);
      scan.push(performance.now() - t);
    }
    peer = ` | JS exact scan p50 ${pct(scan, 0.5).toFixed(2)} ms (engram recall ${(pct(scan, 0.5) / pct(rec, 0.5)).toFixed(1)}× faster)`;
  }
  console.log(`${String(n).padStart(7)} memories: recall p50 ${pct(rec, 0.5).toFixed(2)} ms p95 ${pct(rec, 0.95).toFixed(2)} ms | buildContext p50 ${pct(ctx, 0.5).toFixed(2)} ms p95 ${pct(ctx, 0.95).toFixed(2)} ms${peer} | load ${(load / 1e3).toFixed(1)} s`);
  await mem.close();
}
