// Where the memory of one user with 10k memories goes (issue 17: isolate heap ≤ 40 MB of 128).
//
// Each configuration runs in its own Node process (wasm linear memory never shrinks, so one
// process per configuration is the only way to see each on its own):
//   a  no embedder, no token table           (records + BM25 + timeline + id/hash indexes)
//   b  + the default static embedder table   (+ 7.9 MB table, + int8 vectors)
//   c  + the o200k_base token table          (what the worker runs)
//   d  cl100k_base instead of o200k_base
// For each: wasm memory (`memory.buffer.byteLength`, the high-water mark) and the bytes in
// use inside it (high-water minus the free space an allocation probe finds: `live`), and
// process.memoryUsage() (heapUsed, external, arrayBuffers, rss), after loading the tables,
// at 1k / 2k / 5k / 10k memories, after exporting a snapshot (the copy it makes), then in a
// fresh process that reopens from that snapshot (tables first, and engine first as the
// worker's object does on a cold start), after 30 recalls + 30 writes there (as
// tests/worker/bench.mjs does) and after a compaction, with the peak of JS ArrayBuffers the
// storage calls saw (snapshot copies; storage shaped like the worker's, values outside JS).
// In Node, `external` includes the wasm memory. worker/bench/heap.mjs checks the same points
// in workerd.
//
// Usage: node pkg/bench/heap.mjs [--n 10000] [--configs a,b,c,d] [--texts mixed|worker] [--json]
// (pkg/dist and pkg/wasm built; ~1-3 min on 2 busy cores.)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const MB = (b) => +(b / 1048576).toFixed(2);

const CONFIGS = {
  a: { label: "a: no embedder, no tokenizer", embedder: false, tokenizer: false },
  b: { label: "b: + default table embedder", embedder: true, tokenizer: false },
  c: { label: "c: + o200k_base token table", embedder: true, tokenizer: "o200k_base" },
  d: { label: "d: cl100k_base instead", embedder: true, tokenizer: "cl100k_base" },
};

// ---------------------------------------------------------------------------------------
// Texts: ~10-30 words, varied enough that neither exact nor near-duplicate detection
// merges them (the count is checked and reported).
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
}
const L = (s) => s.split(" ");
const NAMES = L("Alice Bob Carol Dmitri Elena Farid Grace Hiro Ines Jamal Kenji Lena Marta Nadia Omar Priya Quentin Rosa Sven Tomas Uma Viktor Wen Yusuf Zoe");
const PLACES = L("Lisbon Osaka Denver Nairobi Hangzhou Bergen Austin Krakow Lima Hanoi Seville Porto Dublin Tallinn Quebec Malmo Perth Bologna Cusco Tbilisi");
const THINGS = L("bicycle laptop garden kitchen violin camera tent kayak piano telescope notebook backpack sofa espresso-machine printer drone aquarium bookshelf scooter guitar");
const TOPICS = L("rust python hiking jazz chess tea kubernetes sailing poetry finance robotics cooking pottery astronomy climbing gardening photography cycling baking birdwatching");
const ADJ = L("quiet noisy cheap expensive old new heavy light blue green red spicy bitter sweet remote local weekly monthly urgent careful");
const VERBS = L("booked cancelled repaired ordered planned reviewed shipped painted borrowed returned sold bought cleaned upgraded rented visited");
const FOODS = L("sushi ramen tacos paella pho curry falafel dumplings risotto pierogi ceviche goulash biryani gnocchi tagine");
const TEMPLATES = [
  (p, r) => `${p(NAMES)} prefers ${p(TOPICS)} over ${p(TOPICS)} and wants to spend more weekends on it, ideally near ${p(PLACES)} in ${1 + Math.floor(r() * 12)} months and ${1 + Math.floor(r() * 30)} days.`,
  (p, r) => `The user ${p(VERBS)} the ${p(ADJ)} ${p(THINGS)} on day ${Math.floor(r() * 365)} and paid ${10 + Math.floor(r() * 990)} euros for it.`,
  (p, r) => `Met ${p(NAMES)} and ${p(NAMES)} in ${p(PLACES)} on ${1 + Math.floor(r() * 28)}/${1 + Math.floor(r() * 12)} to talk about ${p(TOPICS)}; they recommended a ${p(ADJ)} book and a ${p(ADJ)} podcast.`,
  (p, r) => `Allergic to ${p(FOODS)}, so the restaurant in ${p(PLACES)} must not serve it; table for ${2 + Math.floor(r() * 6)} at ${17 + Math.floor(r() * 5)}:${String(Math.floor(r() * 60)).padStart(2, "0")} on day ${Math.floor(r() * 365)}.`,
  (p, r) => `Flight ${p(L("TP LH BA AF KL IB"))}${100 + Math.floor(r() * 900)} to ${p(PLACES)} leaves at ${Math.floor(r() * 24)}:${String(Math.floor(r() * 60)).padStart(2, "0")}, seat ${1 + Math.floor(r() * 40)}${p(L("A B C D E F"))}, bring the ${p(THINGS)}.`,
  (p, r) => `${p(NAMES)} said the ${p(THINGS)} in room ${100 + Math.floor(r() * 400)} is broken again and asked whether we could fix it before the ${p(ADJ)} ${p(TOPICS)} meetup.`,
  (p, r) => `Started learning ${p(TOPICS)} with ${p(NAMES)}: ${1 + Math.floor(r() * 99)} of ${100 + Math.floor(r() * 100)} lessons done, the ${p(ADJ)} part is hard, next session in ${p(PLACES)}.`,
  (p, r) => `Budget for the ${p(TOPICS)} project is ${1000 + Math.floor(r() * 90000)} dollars; ${p(NAMES)} approves spending, ${p(NAMES)} reviews invoices every ${p(L("Monday Tuesday Wednesday Thursday Friday"))}.`,
  (p, r) => `Favourite dish is ${p(FOODS)} with ${p(ADJ)} sauce, best eaten at the small place on ${p(NAMES)} street ${1 + Math.floor(r() * 2000)} in ${p(PLACES)}.`,
  (p, r) => `Reminder: renew the ${p(THINGS)} insurance before ${p(L("January February March April May June July August September October November December"))} ${1 + Math.floor(r() * 28)}, policy number ${100000 + Math.floor(r() * 899999)}.`,
  (p, r) => `${p(NAMES)} moved from ${p(PLACES)} to ${p(PLACES)} in ${2000 + Math.floor(r() * 26)} for a job in ${p(TOPICS)} and now lives with a ${p(ADJ)} cat called ${p(NAMES)}.`,
  (p, r) => `Decided to stop ${p(TOPICS)} for a while because the ${p(ADJ)} ${p(THINGS)} costs too much; maybe restart on ${1 + Math.floor(r() * 28)}/${1 + Math.floor(r() * 12)}/${2026 + Math.floor(r() * 10)}.`,
];
/** `n` varied memory texts (~10-30 words), the same for every run. */
function mixedTexts(n, seed = 17) {
  const r = rng(seed);
  const p = (xs) => xs[Math.floor(r() * xs.length)];
  return Array.from({ length: n }, () => TEMPLATES[Math.floor(r() * TEMPLATES.length)](p, r));
}
// The worker benchmark's texts (tests/worker/bench.mjs), for comparison with its figures.
function workerTexts(n) {
  const WORDS = L("amber basalt cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon meadow nickel orchard pepper quartz raven saffron timber umber violet willow xenon yarrow zephyr");
  const V = ["prefers", "booked", "visited", "repaired", "ordered", "planned", "reviewed", "shipped"];
  const w = (i, k) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return Array.from({ length: n }, (_, i) => `Note ${i}: the user ${V[i % V.length]} the ${w(i, 1)} ${w(i, 2)} project with the ${w(i, 3)} team on day ${i % 365}, budget ${1000 + i}`);
}

// ---------------------------------------------------------------------------------------
// Child: one configuration in this process.
async function child() {
  const cfg = CONFIGS[arg("config")];
  const n = Number(arg("n", "10000"));
  const snapFile = arg("snap");
  const reopen = process.argv.includes("--reopen");
  const sdk = await import("../dist/entrypoints/node.js");
  const glue = await import("../wasm/engram_wasm.js"); // the same module instance dist/core.js uses
  const { loadCore } = await import("../dist/core.js");
  await loadCore();
  const wasm = glue.initSync(); // already initialized: returns the instance's exports
  const mem = wasm.memory;
  const out = { config: arg("config"), n, reopen, points: [] };

  /** Free bytes inside the linear memory, found by allocating 256-byte blocks until the memory would grow (then all freed). */
  function freeInside() {
    const before = mem.buffer.byteLength;
    const ptrs = [];
    while (mem.buffer.byteLength === before && ptrs.length < 2_000_000) ptrs.push(wasm.__wbindgen_malloc(256, 8));
    for (const p of ptrs) wasm.__wbindgen_free(p, 256, 8);
    return (ptrs.length - 1) * 264; // 256 + dlmalloc's chunk header, rounded; the last one grew the memory
  }
  function point(label, extra = {}) {
    globalThis.gc?.();
    globalThis.gc?.();
    const m = process.memoryUsage();
    const wasmBytes = mem.buffer.byteLength;
    const free = freeInside();
    const p = { label, wasm: wasmBytes, live: wasmBytes - free, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss, ...extra };
    out.points.push(p);
    return p;
  }
  point("wasm instantiated");

  // Tables first, each on its own, so their cost is read apart from the engine's; with
  // `--order engine-first` (reopen only) after the engine, as the worker does (its object
  // loads the snapshot, then the token table in the background and the embedding table on
  // the first embed).
  const engineFirst = reopen && arg("order", "tables-first") === "engine-first";
  out.order = engineFirst ? "engine-first" : "tables-first";
  let embedder = false;
  if (cfg.embedder && engineFirst) embedder = sdk.defaultEmbedder();
  else if (cfg.embedder) {
    embedder = sdk.defaultEmbedder();
    await embedder.ready();
    point("embedding table parsed");
  }
  if (cfg.tokenizer && !engineFirst) {
    await sdk.loadTokenizer(cfg.tokenizer);
    point(`${cfg.tokenizer} table parsed`);
  }

  // Storage like the worker's (worker/src/storage.ts): values live outside the JS heap (files
  // here, SQLite there) in 1 MiB parts, reassembled into a new array on `get`. Op batches of
  // the write phase are only counted. At every call it notes (after a GC) the ArrayBuffer
  // bytes alive in JS: during a compaction that is the snapshot, its copies and the previous
  // generation, which DevTools' heap figure (tests/worker/heap.mjs) does not include.
  const dir = mkdtempSync(join(tmpdir(), "engram-heap-store-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const PART = 1 << 20;
  const storage = new (class {
    keys = new Map(); // key -> number of parts
    opBytes = 0;
    opBatches = 0;
    peakJsArrayBuffers = 0;
    file = (k, i) => join(dir, `${encodeURIComponent(k)}.${i}`);
    note() {
      globalThis.gc?.();
      this.peakJsArrayBuffers = Math.max(this.peakJsArrayBuffers, process.memoryUsage().arrayBuffers);
    }
    async get(k) {
      const n = this.keys.get(k);
      if (n === undefined) return undefined;
      const parts = Array.from({ length: n }, (_, i) => new Uint8Array(readFileSync(this.file(k, i))));
      const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      this.note();
      return out;
    }
    async put(k, v) {
      this.note();
      if (k.includes("/ops/")) {
        this.opBytes += v.length;
        this.opBatches++;
        if (!reopen) return;
      }
      await this.delete(k);
      const n = Math.max(1, Math.ceil(v.length / PART));
      for (let i = 0; i < n; i++) writeFileSync(this.file(k, i), v.slice(i * PART, (i + 1) * PART));
      this.keys.set(k, n);
    }
    async delete(k) {
      for (let i = 0; i < (this.keys.get(k) ?? 0); i++) rmSync(this.file(k, i), { force: true });
      this.keys.delete(k);
    }
    async list(p) {
      return [...this.keys.keys()].filter((k) => k.startsWith(p)).sort();
    }
  })();
  const prefix = "engram/default/bench/";
  const tokenizer = cfg.tokenizer ? { encoding: cfg.tokenizer } : false;
  const opts = { user: "bench", storage, embedder, tokenizer, compactEvery: 1e9 };
  const texts = arg("texts", "mixed") === "worker" ? workerTexts(n) : mixedTexts(n);

  if (!reopen) {
    const e = await sdk.Engram.open(opts);
    // Only with a tokenizer: with `tokenizer: false`, tokenizerReady() loads o200k anyway.
    if (cfg.tokenizer) await e.tokenizerReady();
    point("empty store open");
    const marks = new Set([1000, 2000, 5000, n]);
    const t0 = performance.now();
    for (let i = 0; i < n; i += 100) {
      await e.rememberMany(texts.slice(i, Math.min(n, i + 100)));
      const done = Math.min(n, i + 100);
      if (marks.has(done)) point(`${done} memories written`, { count: e.count(), opBytes: storage.opBytes });
    }
    out.writeS = +((performance.now() - t0) / 1000).toFixed(1);
    out.count = e.count();
    out.textBytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
    out.words = texts.reduce((s, t) => s + t.split(/\s+/).length, 0) / n;
    out.opBytes = storage.opBytes;
    let snap = e.exportSnapshot();
    out.snapshotBytes = snap.length;
    point("after exportSnapshot (snapshot held in JS)");
    let hdr = new Uint8Array(16 + snap.length);
    hdr.set(snap, 16);
    writeFileSync(snapFile, hdr);
    snap = hdr = undefined;
    e.exportSnapshot(); // a second export: the first one's transient space is reused
    point("after a second exportSnapshot");
    await e.close();
    point("after close");
  } else {
    // A fresh process opening the store from its snapshot (the worker's cold object).
    await storage.put(`${prefix}replica`, new Uint8Array([1, 2, 3, 4, 5, 0, 0, 0]));
    if (embedder) await storage.put(`${prefix}meta/embedder`, new TextEncoder().encode(JSON.stringify({ id: embedder.id, dim: embedder.dimension })));
    await storage.put(`${prefix}snapshot/current`, new Uint8Array(readFileSync(snapFile)));
    storage.peakJsArrayBuffers = 0;
    const e = await sdk.Engram.open({ ...opts, compactEvery: 100 });
    if (engineFirst) {
      point("reopened from snapshot, no table yet", { count: e.count(), peakJsArrayBuffers: storage.peakJsArrayBuffers });
      if (cfg.tokenizer) await e.tokenizerReady();
      if (embedder) await embedder.ready();
    } else if (cfg.tokenizer) await e.tokenizerReady();
    out.count = e.count();
    point(engineFirst ? "reopened from snapshot + tables" : "reopened from snapshot", { count: e.count(), peakJsArrayBuffers: storage.peakJsArrayBuffers });
    storage.peakJsArrayBuffers = 0;
    for (let i = 0; i < 30; i++) await e.recall(`what did ${NAMES[i % NAMES.length]} say about ${TOPICS[i % TOPICS.length]} in ${PLACES[i % PLACES.length]}?`, { force: true });
    point("after 30 recalls");
    for (let i = 0; i < 30; i++) await e.remember(`Memory probe ${i}: the ${ADJ[i % ADJ.length]} receipt ${80000 + i} for the ${THINGS[i % THINGS.length]} was filed`);
    point("after 30 writes", { peakJsArrayBuffers: storage.peakJsArrayBuffers });
    storage.peakJsArrayBuffers = 0;
    await e.compact();
    out.compactPeakJsArrayBuffers = storage.peakJsArrayBuffers;
    point("after compact (snapshot written to storage)", { peakJsArrayBuffers: storage.peakJsArrayBuffers });
    await e.close();
  }
  process.stdout.write(`@@RESULT ${JSON.stringify(out)}\n`);
}

// ---------------------------------------------------------------------------------------
// Parent: run every configuration, then print the table and the breakdown.
function runChild(args) {
  const r = spawnSync(process.execPath, ["--expose-gc", SELF, "--child", ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  const line = r.stdout.split("\n").find((l) => l.startsWith("@@RESULT "));
  if (r.status !== 0 || !line) throw new Error(`child ${args.join(" ")} failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  return JSON.parse(line.slice(9));
}

async function parent() {
  const n = Number(arg("n", "10000"));
  const configs = arg("configs", "a,b,c,d").split(",");
  const texts = arg("texts", "mixed");
  const work = mkdtempSync(join(tmpdir(), "engram-heap-"));
  const results = [];
  try {
    for (const c of configs) {
      const snap = join(work, `${c}.snap`);
      const common = ["--config", c, "--n", String(n), "--snap", snap, "--texts", texts];
      const w = runChild(common);
      const r = runChild([...common, "--reopen"]);
      const rw = CONFIGS[c].embedder || CONFIGS[c].tokenizer ? runChild([...common, "--reopen", "--order", "engine-first"]) : undefined;
      results.push({ write: w, reopen: r, reopenEngineFirst: rw });
      if (!process.argv.includes("--json")) report(c, w, r, rw);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const assets = new URL("../assets/", import.meta.url);
  const files = Object.fromEntries(["o200k_base.engtok", "cl100k_base.engtok", "minilm-l6-v2-static-256.engemb"].map((f) => [f, statSync(new URL(f, assets)).size]));
  if (process.argv.includes("--json")) console.log(JSON.stringify({ n, texts, files, results }));
  else {
    console.log("\ntable files:", Object.entries(files).map(([f, s]) => `${f} ${MB(s)} MB`).join(", "));
    summary(results);
  }
}

function report(c, w, r, rw) {
  console.log(`\n## ${CONFIGS[c].label} — ${w.count} of ${w.n} memories stored, ${w.words.toFixed(1)} words and ${(w.textBytes / w.n).toFixed(0)} text bytes each; written in ${w.writeS} s`);
  console.log(`   snapshot ${MB(w.snapshotBytes)} MB (${(w.snapshotBytes / w.count).toFixed(0)} B/memory); op log ${MB(w.opBytes)} MB (${(w.opBytes / w.count).toFixed(0)} B/memory)`);
  console.log(`   ${"point".padEnd(62)} wasm MB  live MB  heapUsed  external  arrayBuf    rss  (peak JS ArrayBuffers since the last point, from storage calls)`);
  const rows = [...w.points, ...r.points.map((p) => ({ ...p, label: `reopen: ${p.label}` }))];
  if (rw) rows.push(...rw.points.map((p) => ({ ...p, label: `reopen, engine first: ${p.label}` })));
  for (const p of rows) {
    console.log(
      `   ${p.label.padEnd(62)} ${String(MB(p.wasm)).padStart(7)} ${String(MB(p.live)).padStart(8)} ${String(MB(p.heapUsed)).padStart(9)} ${String(MB(p.external)).padStart(9)} ${String(MB(p.arrayBuffers)).padStart(9)} ${String(MB(p.rss)).padStart(6)}${p.peakJsArrayBuffers !== undefined ? `  (${MB(p.peakJsArrayBuffers)})` : ""}`,
    );
  }
}

function summary(results) {
  const at = (res, label) => res.points.find((p) => p.label.startsWith(label));
  console.log("\n## summary (MB; wasm = high-water linear memory, live = in use inside it)");
  for (const { write: w, reopen: r, reopenEngineFirst: rw } of results) {
    const base = w.points[0];
    const tables = w.points[w.points.findIndex((p) => p.label === "empty store open") - 1];
    const k1 = at(w, "1000 memories");
    const kn = at(w, `${w.n} memories`);
    const slope = k1 && kn && w.n > 1000 ? ((kn.live - k1.live) / (w.n - 1000)) : NaN;
    const ro = at(r, "reopened");
    const after = at(r, "after 30 writes");
    const comp = at(r, "after compact");
    console.log(
      `${CONFIGS[w.config].label.padEnd(32)} tables ${MB(tables.live - base.live)} | engine at ${w.n}: live ${MB(kn.live - tables.live)}, ${slope.toFixed(0)} B/memory (1k→${w.n}) | written: wasm ${MB(kn.wasm)}, after snapshot ${MB(at(w, "after exportSnapshot").wasm)} | reopened: wasm ${MB(ro.wasm)} live ${MB(ro.live)}, +60 ops ${MB(after.wasm)}, +compact ${MB(comp.wasm)} | JS heap ${MB(ro.heapUsed)}${rw ? ` | engine first: reopened ${MB(at(rw, "reopened from snapshot +").wasm)}, +60 ops ${MB(at(rw, "after 30 writes").wasm)}, +compact ${MB(at(rw, "after compact").wasm)}` : ""}`,
    );
  }
}

export { mixedTexts, workerTexts };
// Run only when executed (worker/bench/heap.mjs imports the texts).
if (process.argv[1] === SELF) {
  if (process.argv.includes("--child")) await child();
  else await parent();
}
