// Worker benchmark in real workerd (wrangler dev --local, this machine): bundle size against
// the 3 MB free-plan limit; cold and warm request time for recall and remember with 1k and
// 10k memories; workerd CPU per request (from /proc, since workerd's clock moves only on
// IO), the workerd process's RSS, and the isolate's JS heap + wasm memory (DevTools protocol).
// Usage: node tests/worker/bench.mjs [sizes, default 1000,10000]   (worker/ set up first)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { OFFLINE_ENV, ROOT, WRANGLER, client, startWorker, token } from "./harness.mjs";
import { inspect } from "./heap.mjs";

const sizes = (process.argv[2] ?? "1000,10000").split(",").map(Number);
const work = mkdtempSync(join(tmpdir(), "engram-worker-bench-"));
const TICK = 100; // clock ticks per second for /proc/<pid>/stat

function bundleSize() {
  const out = join(work, "bundle");
  execFileSync(WRANGLER, ["deploy", "--dry-run", "--config", join(ROOT, "wrangler.toml"), "--outdir", out], { cwd: ROOT, env: { ...process.env, ...OFFLINE_ENV }, stdio: "ignore" });
  let raw = 0;
  let gzip = 0;
  for (const f of readdirSync(out).filter((f) => !f.endsWith(".map") && f !== "README.md")) {
    const b = readFileSync(join(out, f));
    raw += b.length;
    gzip += gzipSync(b, { level: 9 }).length;
  }
  return { raw, gzip };
}

/** The workerd processes of a wrangler dev (same process group). */
function workerdPids(w) {
  const pids = [];
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (stat.includes("(workerd)") && Number(f[2]) === w.pgid) pids.push(Number(p));
    } catch {
      // exited
    }
  }
  return pids;
}
function cpuMs(pids) {
  let t = 0;
  for (const p of pids) {
    const stat = readFileSync(`/proc/${p}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    t += Number(f[11]) + Number(f[12]);
  }
  return (t * 1000) / TICK;
}
function rssMb(pids) {
  let kb = 0;
  for (const p of pids) kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
  return kb / 1024;
}

const WORDS = "amber basalt cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon meadow nickel orchard pepper quartz raven saffron timber umber violet willow xenon yarrow zephyr".split(" ");
const VERBS = ["prefers", "booked", "visited", "repaired", "ordered", "planned", "reviewed", "shipped"];
function text(i) {
  const w = (k) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return `Note ${i}: the user ${VERBS[i % VERBS.length]} the ${w(1)} ${w(2)} project with the ${w(3)} team on day ${i % 365}, budget ${1000 + i}`;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
async function timed(f) {
  const t = performance.now();
  const r = await f();
  if (r.status >= 300) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
  return performance.now() - t;
}

async function start(persistTo) {
  const w = await startWorker({ persistTo });
  current = w;
  w.pgid = w.pid; // started detached: wrangler leads its process group, workerd included
  return w;
}

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    await current?.stop();
    process.exit(130);
  });
}
let current;

const results = { bundle: bundleSize(), sizes: [] };
console.log(`bundle: ${(results.bundle.raw / 1024).toFixed(0)} KiB raw, ${(results.bundle.gzip / 1024).toFixed(0)} KiB gzip (free-plan limit 3072 KiB)`);

for (const n of sizes) {
  const persistTo = join(work, `state-${n}`);
  let w = await start(persistTo);
  const tok = token("bench", `user-${n}`);
  let c = client(w.url, tok);
  const seedStart = performance.now();
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ text: text(i + j) }));
    const r = await c.remember({ memories: batch });
    if (r.status !== 200) throw new Error(`seed: ${r.status} ${JSON.stringify(r.body)}`);
    if (performance.now() - seedStart > 600_000) throw new Error(`seeding ${n} took over 10 min`);
  }
  const seedMs = performance.now() - seedStart;
  const count = (await c.status()).body.count;
  await w.stop();

  const row = { n, count, seedS: +(seedMs / 1000).toFixed(1) };
  // Cold: a fresh workerd (new isolate, the object reloads its snapshot + log, tables fetched and parsed).
  for (const op of ["object", "recall", "remember", "memory"]) {
    w = await start(persistTo);
    c = client(w.url, tok);
    const pids = workerdPids(w);
    if (op === "object") {
      // A warm isolate (tables parsed by another user's request), the user's object cold:
      // the common case of a user's first request in a running isolate.
      const other = client(w.url, token("bench", "warmup"));
      await other.remember("warm the isolate up");
      await other.recall("warm", { force: true });
      const cpu = cpuMs(pids);
      row.cold_object_recall_ms = +(await timed(() => c.recall("which project did the kestrel team review", { force: true }))).toFixed(0);
      row.cold_object_recall_cpu_ms = +(cpuMs(pids) - cpu).toFixed(0);
      await w.stop();
      continue;
    }
    const rss0 = rssMb(pids);
    const cpu0 = cpuMs(pids);
    if (op === "memory") {
      // Apart from the timings: an attached debugger slows workerd (wasm runs unoptimized).
      const ins = await inspect(w.inspectorPort);
      await c.recall("which project did the kestrel team review", { force: true });
      let m = await ins.measure();
      row.isolate_js_heap_mb = m.jsUsedMb;
      row.isolate_wasm_mb = +m.wasmMb.reduce((a, b) => a + b, 0).toFixed(1);
      for (let i = 0; i < 30; i++) await c.recall(`which ${WORDS[i % WORDS.length]} project was reviewed on day ${i}`, { force: true });
      for (let i = 0; i < 30; i++) await c.remember(`Memory probe ${i}: the ${WORDS[i % WORDS.length]} receipt ${80000 + i} was filed`);
      m = await ins.measure();
      row.isolate_after_60_ops_mb = +(m.jsUsedMb + m.wasmMb.reduce((a, b) => a + b, 0)).toFixed(1);
      ins.close();
      await w.stop();
      continue;
    }
    const ms = await timed(() => (op === "recall" ? c.recall("which project did the kestrel team review", { force: true }) : c.remember(`Cold write ${Date.now()}`)));
    row[`cold_${op}_ms`] = +ms.toFixed(0);
    row[`cold_${op}_cpu_ms`] = +(cpuMs(pids) - cpu0).toFixed(0);
    if (op === "recall") {
      row.rss_before_mb = +rss0.toFixed(0);
      row.rss_loaded_mb = +rssMb(pids).toFixed(0);
    }
    if (op === "remember") {
      // Warm: the same isolate and object, 30 of each.
      const rec = [];
      const rem = [];
      let cpu = cpuMs(pids);
      for (let i = 0; i < 30; i++) rec.push(await timed(() => c.recall(`which ${WORDS[i % WORDS.length]} project was reviewed on day ${i}`, { force: true })));
      row.warm_recall_cpu_ms = +((cpuMs(pids) - cpu) / 30).toFixed(1);
      cpu = cpuMs(pids);
      for (let i = 0; i < 30; i++) rem.push(await timed(() => c.remember(`Warm write ${i}: the ${WORDS[i % WORDS.length]} invoice ${90000 + i} was paid`)));
      row.warm_remember_cpu_ms = +((cpuMs(pids) - cpu) / 30).toFixed(1);
      row.warm_recall_ms = { median: +median(rec).toFixed(1), p95: +p95(rec).toFixed(1) };
      row.warm_remember_ms = { median: +median(rem).toFixed(1), p95: +p95(rem).toFixed(1) };
      row.rss_after_mb = +rssMb(pids).toFixed(0);

      row.stored_mb = +(((await c.status()).body.storedBytes ?? 0) / 1048576).toFixed(1);
    }
    await w.stop();
  }
  results.sizes.push(row);
  console.log(JSON.stringify(row));
}
rmSync(work, { recursive: true, force: true });
console.log(JSON.stringify(results));
