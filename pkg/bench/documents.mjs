// Archival documents through the SDK, wasm in Node (issue 19): N documents × ~50 chunks
// (128-token budget) for one user with the default embedder — time to add them, document
// search and buildContext p50/p95, what the store holds and the time to reopen it.
// Not a test: figures depend on the machine.
// Usage: node bench/documents.mjs [documents=1000] [queries=200]
import { performance } from "node:perf_hooks";
import { Engram, MemoryStorage } from "../dist/entrypoints/node.js";

const docs = Number(process.argv[2] ?? 1000);
const queries = Number(process.argv[3] ?? 200);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.round((xs.length - 1) * p)];

function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
}
const pick = (r, xs) => xs[Math.floor(r() * xs.length)];
const WHO = ["Alice", "Bob", "the platform team", "our vendor", "the auditor", "Dmitri", "the on-call engineer", "Grace"];
const DID = ["reviewed", "migrated", "rolled back", "documented", "benchmarked", "approved", "deprecated", "rewrote"];
const WHAT = ["the billing service", "the Kubernetes cluster", "the search index", "the payment gateway", "the mobile release", "the data warehouse", "the onboarding flow", "the cache layer", "the audit log", "the tea supplier contract"];
const WHY = ["after the outage in March", "to cut latency by half", "because the licence expires", "for the security review", "ahead of the holiday traffic", "as the customer asked", "to meet the new regulation", "since the old one leaked memory"];

/** Document `d`: 80 paragraphs of three sentences under headings (~50 chunks of 128 tokens). */
function documentText(d) {
  const r = rng(d + 1);
  let s = `# Runbook ${d}\n\n`;
  for (let p = 0; p < 80; p++) {
    if (p % 10 === 0) s += `## Section ${p / 10 + 1} of runbook ${d}\n\n`;
    const line = () => `${pick(r, WHO)} ${pick(r, DID)} ${pick(r, WHAT)} ${pick(r, WHY)} (step ${d}.${p}).`;
    s += `${line()} ${line()} ${line()}\n\n`;
  }
  return s;
}

const storage = new MemoryStorage();
let mem = await Engram.open({ user: "bench", storage, compactEvery: 1e9 });
await mem.tokenizerReady();
let chunks = 0;
let t0 = performance.now();
for (let d = 0; d < docs; d++) {
  chunks += (await mem.documents.put({ id: `runbook-${d}`, title: `Runbook ${d}`, text: documentText(d) })).length;
}
const add = performance.now() - t0;
console.log(`added ${docs} documents, ${chunks} chunks (${(chunks / docs).toFixed(1)} per document): ${(add / 1e3).toFixed(1)} s (${(add / docs).toFixed(1)} ms per document)`);

const r = rng(7);
const search = [], ctx = [];
let found = 0;
for (let i = 0; i < queries; i++) {
  const q = `why did ${pick(r, WHO)} ${pick(r, DID).replace(/ed$/, "")} ${pick(r, WHAT)}?`;
  let t = performance.now();
  const hits = await mem.documents.search(q, { k: 8 });
  search.push(performance.now() - t);
  found += hits.length > 0 ? 1 : 0;
  t = performance.now();
  const c = await mem.buildContext(q, { budget: 900 });
  ctx.push(performance.now() - t);
  if (c.tokens > 900) throw new Error("budget exceeded");
}
console.log(`documents.search (k 8, ${queries} queries, ${found} with hits): p50 ${pct(search, 0.5).toFixed(2)} ms, p95 ${pct(search, 0.95).toFixed(2)} ms`);
console.log(`buildContext (900 tokens, with documents): p50 ${pct(ctx, 0.5).toFixed(2)} ms, p95 ${pct(ctx, 0.95).toFixed(2)} ms`);

await mem.compact();
await mem.close();
let bytes = 0;
for (const key of await storage.list("")) bytes += (await storage.get(key)).length;
t0 = performance.now();
mem = await Engram.open({ user: "bench", storage, compactEvery: 1e9 });
const open = performance.now() - t0;
const again = await mem.documents.search("why did Alice migrate the billing service?", { k: 8 });
if (again.length === 0) throw new Error("the reopened store lost its documents");
console.log(`store: ${(bytes / 1e6).toFixed(1)} MB; reopened in ${(open / 1e3).toFixed(2)} s`);
await mem.close();
