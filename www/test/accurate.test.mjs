// The accurate embedder (the full all-MiniLM-L6-v2) chosen in settings runs in a Web Worker:
// the model files are served by a local static server (CORS open), as a user would host them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { chat, freePort, installEngram, launch, openPage, serveBuild, settled, shot } from "./helpers.mjs";

const dir = process.env.ENGRAM_MINILM_DIR ?? join(homedir(), ".cache/engram-models/all-MiniLM-L6-v2");
const missing = existsSync(join(dir, "model.safetensors")) ? false : `no all-MiniLM-L6-v2 files in ${dir} (scripts/env.sh ensure_minilm fetches them)`;
let browser, site, files;

before(async () => {
  if (missing) return;
  installEngram();
  site = await serveBuild({ rebuild: !process.env.ENGRAM_WWW_BUILT });
  browser = await launch();
  const port = await freePort();
  const server = createServer((req, res) => {
    const name = { "/model.safetensors": "model.safetensors", "/vocab.txt": "vocab.txt" }[req.url];
    if (!name) return res.writeHead(404).end();
    res.writeHead(200, { "access-control-allow-origin": "*", "content-type": "application/octet-stream" }).end(readFileSync(join(dir, name)));
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  files = { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
});
after(async () => {
  await browser?.close();
  await site?.close();
  await files?.close();
});

test("with the accurate embedder chosen, texts are embedded in a Web Worker and recalled by meaning", { skip: missing }, async (t) => {
  const context = await browser.newContext();
  const page = await openPage(context, `${site.url}?user=accurate`);
  await page.click("#settings summary");
  await page.fill("#weights-url", `${files.url}/model.safetensors`);
  await page.fill("#vocab-url", `${files.url}/vocab.txt`);
  await page.click("#save-settings"); // reloads with the accurate embedder
  await page.waitForLoadState("load");
  await page.waitForFunction(() => window.__engram?.ready === true || window.__engram?.error, null, { timeout: 120_000 });
  assert.equal(await page.evaluate(() => window.__engram.error), undefined);
  assert.deepEqual(await page.evaluate(() => ({ ...window.__engram.embedder, calls: undefined })), {
    id: "engram-bert:all-minilm-l6-v2",
    dimension: 384,
    worker: true,
    calls: undefined,
  });
  assert.match(await page.textContent("#status"), /all-MiniLM-L6-v2 in a Web Worker/);
  const readyAt = await page.evaluate(() => performance.now());
  await chat(page, "I prefer Go for backend services.");
  await chat(page, "Which programming language should the new backend use?");
  await settled(page);
  assert.ok((await page.evaluate(() => window.__engram.embedder.calls())) >= 2, "the worker embedded the turns");
  const why = await page.$$eval("#why tr.hit", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.ok(why.some((row) => /Go/.test(row[0]) && row[1].startsWith("#")), `a Go memory was found by the vector channel: ${JSON.stringify(why)}`);
  const long = await page.evaluate((t0) => window.__engram.longTasks.filter((x) => x.start >= t0).map((x) => Math.round(x.duration)), readyAt);
  t.diagnostic(`main-thread tasks over 50 ms during the chat: ${long.length ? long.join(", ") + " ms" : "none"}`);
  await shot(page, "www-accurate-embedder");
  assert.deepEqual(page.errors, []);
  await context.close();
});
