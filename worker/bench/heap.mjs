// The isolate's memory in real workerd for one user with N memories (issue 17), to confirm
// pkg/bench/heap.mjs's Node breakdown where it counts: V8's JS heap and every
// WebAssembly.Memory of the isolate, over the DevTools protocol (tests/worker/heap.mjs).
//
// 1. seed N memories over HTTP (batches of 100, the texts of pkg/bench/heap.mjs), stop;
// 2. a fresh workerd: /v1/status (the object opens its engine from the snapshot, no table
//    parsed yet), one recall (tables fetched and parsed), 30 recalls + 30 writes;
// 3. a fresh workerd with ENGRAM_COMPACT_EVERY=1: one recall, then one write, which
//    compacts (the engine's snapshot is built in wasm memory and stored).
// Usage: node worker/bench/heap.mjs [N=10000] [--texts mixed|worker]   (worker/ set up first,
// as scripts/test-worker.sh does; ~2-4 min here). Stops every wrangler it starts by group.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, startWorker, token } from "../../tests/worker/harness.mjs";
import { inspect } from "../../tests/worker/heap.mjs";
import { mixedTexts, workerTexts } from "../../pkg/bench/heap.mjs";

const n = Number(process.argv[2] && !process.argv[2].startsWith("--") ? process.argv[2] : 10000);
const ti = process.argv.indexOf("--texts");
const kind = ti > 0 ? process.argv[ti + 1] : "mixed";
const texts = kind === "worker" ? workerTexts(n) : mixedTexts(n);
const work = mkdtempSync(join(tmpdir(), "engram-worker-heap-"));
const persistTo = join(work, "state");
const tok = token("bench", "heap-user");
let current;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    await current?.stop();
    process.exit(130);
  });
}
const ok = (r, what) => {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
};
const row = (label, m) => {
  const wasm = m.wasmMb.reduce((a, b) => a + b, 0);
  console.log(`${label.padEnd(52)} JS heap ${String(m.jsUsedMb).padStart(5)} MB + wasm ${wasm.toFixed(1).padStart(5)} MB [${m.wasmMb.join(", ")}] = ${(m.jsUsedMb + wasm).toFixed(1)} MB`);
  return { label, jsMb: m.jsUsedMb, wasmMb: +wasm.toFixed(1) };
};

try {
  const t0 = performance.now();
  current = await startWorker({ persistTo });
  let c = client(current.url, tok);
  for (let i = 0; i < n; i += 100) ok(await c.remember({ memories: texts.slice(i, i + 100).map((text) => ({ text })) }), "seed");
  const count = ok(await c.status(), "status").body.count;
  await current.stop();
  console.log(`seeded ${count} of ${n} memories (${kind} texts) in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  const out = [];
  current = await startWorker({ persistTo, vars: { ENGRAM_COMPACT_EVERY: "100000" } });
  let ins = await inspect(current.inspectorPort);
  c = client(current.url, tok);
  out.push(row("fresh isolate (after /healthz)", await ins.measure()));
  ok(await c.status(), "status");
  out.push(row("user's engine opened from its snapshot", await ins.measure()));
  ok(await c.recall("what did Alice say about jazz?", { force: true }), "recall");
  out.push(row("+ one recall (tables parsed)", await ins.measure()));
  for (let i = 0; i < 30; i++) ok(await c.recall(`which ${["quiet", "blue", "old"][i % 3]} thing was booked on day ${i}`, { force: true }), "recall");
  for (let i = 0; i < 30; i++) ok(await c.remember(`Memory probe ${i}: the receipt ${80000 + i} was filed`), "remember");
  out.push(row("+ 30 recalls + 30 writes (no compaction)", await ins.measure()));
  ins.close();
  await current.stop();

  current = await startWorker({ persistTo, vars: { ENGRAM_COMPACT_EVERY: "1" } });
  ins = await inspect(current.inspectorPort);
  c = client(current.url, tok);
  ok(await c.recall("what did Alice say about jazz?", { force: true }), "recall");
  out.push(row("fresh isolate: opened + one recall", await ins.measure()));
  ok(await c.remember("Compaction probe: the parcel 424242 arrived"), "remember");
  out.push(row("+ one write that compacts (snapshot built)", await ins.measure()));
  ins.close();
  await current.stop();
  console.log(JSON.stringify({ n, count, texts: kind, rows: out }));
} finally {
  await current?.stop();
  rmSync(work, { recursive: true, force: true });
}
