// Figures for the browser (printed, not asserted): bundle sizes of the production build,
// navigation → first recall on a first visit and on a reload, IndexedDB open time at 1k and
// 10k memories, the longest main-thread task during a chat, and the JS heap after 10k memories.
// Run after `scripts/test-browser.sh` (or with ENGRAM_TARBALL set): node www/bench.mjs
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chat, installEngram, launch, openPage, serveBuild, waitReady, www } from "./test/helpers.mjs";

installEngram();
const site = await serveBuild();
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;

console.log("bundle (www/dist/assets, raw / gzip -9):");
for (const f of readdirSync(join(www, "dist/assets")).sort()) {
  const p = join(www, "dist/assets", f);
  const raw = statSync(p).size;
  console.log(`  ${f.padEnd(48)} ${kb(raw).padStart(12)} / ${kb(gzipSync(readFileSync(p), { level: 9 }).length).padStart(12)}`);
}

const browser = await launch();
const runs = Number(process.env.RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const first = [];
const reload = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();
  const page = await openPage(context, `${site.url}?user=bench-${i}`);
  first.push(await page.evaluate(() => window.__engram.timing.firstRecallMs));
  await page.reload();
  await waitReady(page);
  reload.push(await page.evaluate(() => window.__engram.timing.firstRecallMs));
  await context.close();
}
console.log(`navigation → first recall (median of ${runs}): first visit ${median(first).toFixed(0)} ms [${first.map((x) => x.toFixed(0)).join(", ")}], reload ${median(reload).toFixed(0)} ms [${reload.map((x) => x.toFixed(0)).join(", ")}]`);

// A chat of 8 turns: the longest main-thread task after the app is ready.
{
  const context = await browser.newContext();
  const page = await openPage(context, `${site.url}?user=bench-chat`);
  const readyAt = await page.evaluate(() => performance.now());
  const startup = await page.evaluate(() => Math.max(0, ...window.__engram.longTasks.map((t) => t.duration)));
  for (const m of ["My name is Wang Fang.", "I work at Baidu in Beijing.", "I prefer TypeScript.", "Actually I switched from TypeScript to Rust.",
    "I like hiking on weekends.", "I am building a search service.", "Which language should the search service use?", "What do I do on weekends?"]) {
    await chat(page, m);
  }
  const tasks = await page.evaluate((t0) => window.__engram.longTasks.filter((t) => t.start >= t0), readyAt);
  console.log(`long tasks (> 50 ms) during an 8-turn chat: ${tasks.length}${tasks.length ? `, longest ${Math.max(...tasks.map((t) => t.duration)).toFixed(0)} ms` : ""}; longest during startup ${startup.toFixed(0)} ms`);
  await context.close();
}

// IndexedDB open time and heap at 1k and 10k memories.
for (const n of [1000, 10000]) {
  const context = await browser.newContext();
  const page = await openPage(context, `${site.url}?user=bench-${n}`);
  const writeMs = await page.evaluate(async (count) => {
    const mem = window.__engram.mem;
    const t0 = performance.now();
    for (let i = 0; i < count; i += 500) {
      const batch = Array.from({ length: Math.min(500, count - i) }, (_, j) => `memory ${i + j}: the customer ${(i + j) * 7} ordered item ${(i + j) * 13} on day ${(i + j) % 365}`);
      await mem.rememberMany(batch);
    }
    await mem.compact();
    return performance.now() - t0;
  }, n);
  await page.reload();
  await waitReady(page);
  const r = await page.evaluate(() => ({ openMs: window.__engram.timing.openMs, count: window.__engram.mem.count(), heap: performance.memory?.usedJSHeapSize }));
  console.log(`${n} memories: written in ${(writeMs / 1000).toFixed(1)} s; reopen from IndexedDB ${r.openMs.toFixed(0)} ms (count ${r.count}); JS heap ${(r.heap / 1e6).toFixed(1)} MB (wasm memory not included)`);
  await context.close();
}

await browser.close();
await site.close();
