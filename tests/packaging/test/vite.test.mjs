// The packed tarball under Vite: a production build and the dev server, each run in Chromium.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build, createServer, preview } from "vite";
import * as vite6 from "vite6";
import { checkSmoke, fixtures, freePort, installEngram, launch, runSmokePage } from "./helpers.mjs";

const app = join(fixtures, "browser");
let browser;
before(async () => {
  installEngram();
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const quiet = { logLevel: "warn", configFile: false, server: { fs: { allow: [fixtures] } } };

test("Vite production build: emits the wasm, o200k and the embedding table once each (not cl100k); runs in Chromium", async () => {
  const outDir = join(app, "dist");
  await build({ ...quiet, root: app, build: { outDir, emptyOutDir: true } });
  const assets = readdirSync(join(outDir, "assets"));
  const count = (re) => assets.filter((f) => re.test(f)).length;
  assert.equal(count(/\.wasm$/), 1, assets.join(" "));
  assert.equal(count(/^o200k_base.*\.engtok$/), 1, assets.join(" "));
  assert.equal(count(/^cl100k_base/), 0, "cl100k is not emitted into the app");
  assert.equal(count(/^minilm-l6-v2-static-256.*\.engemb$/), 1, assets.join(" "));
  assert.ok(statSync(join(outDir, "assets", assets.find((f) => f.endsWith(".engemb")))).size > 7_000_000);

  const port = await freePort();
  const server = await preview({ ...quiet, root: app, build: { outDir }, preview: { host: "127.0.0.1", port, strictPort: true } });
  try {
    const url = `http://127.0.0.1:${port}/`;
    const { result, errors } = await runSmokePage(browser, url);
    assert.deepEqual(errors, []);
    checkSmoke(assert, result);
  } finally {
    await server.close();
  }
});

test("Vite production build: a reload reads both tables from the Cache API (no refetch)", async () => {
  const outDir = join(app, "dist");
  const port = await freePort();
  const server = await preview({ ...quiet, root: app, build: { outDir }, preview: { host: "127.0.0.1", port, strictPort: true } });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    const tables = [];
    page.on("request", (r) => /\.(engemb|engtok)$/.test(new URL(r.url()).pathname) && tables.push(r.url()));
    await page.goto(`http://127.0.0.1:${port}/?user=first`);
    await page.waitForFunction(() => window.__smoke !== undefined, null, { timeout: 60_000 });
    checkSmoke(assert, await page.evaluate(() => window.__smoke));
    assert.equal(tables.length, 2, `first visit fetches both tables: ${tables.join(" ")}`);
    tables.length = 0;
    await page.goto(`http://127.0.0.1:${port}/?user=second`);
    await page.waitForFunction(() => window.__smoke !== undefined, null, { timeout: 60_000 });
    checkSmoke(assert, await page.evaluate(() => window.__smoke));
    assert.deepEqual(tables, [], "the reload fetched no table");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.close();
  }
});

test("Vite production build: a table fetched under a new URL replaces the cached copy of the old build", async () => {
  const outDir = join(app, "dist");
  const port = await freePort();
  const server = await preview({ ...quiet, root: app, build: { outDir }, preview: { host: "127.0.0.1", port, strictPort: true } });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`http://127.0.0.1:${port}/?user=one`);
    await page.waitForFunction(() => window.__smoke !== undefined, null, { timeout: 60_000 });
    // Pretend the cached copies came from an older build (other hashes in their URLs).
    const current = await page.evaluate(async () => {
      const cache = await caches.open("engram-assets-v1");
      const keys = (await cache.keys()).map((r) => r.url);
      for (const u of keys) {
        const old = u.replace(/-[A-Za-z0-9_-]+\.(engemb|engtok)$/, "-0ldBu1ld.$1");
        await cache.put(old, await cache.match(u));
        await cache.delete(u);
      }
      return keys.sort();
    });
    assert.equal(current.length, 2);
    await page.goto(`http://127.0.0.1:${port}/?user=two`);
    await page.waitForFunction(() => window.__smoke !== undefined, null, { timeout: 60_000 });
    checkSmoke(assert, await page.evaluate(() => window.__smoke));
    const after = await page.evaluate(async () => (await (await caches.open("engram-assets-v1")).keys()).map((r) => r.url).sort());
    assert.deepEqual(after, current, "only the current build's tables are kept");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.close();
  }
});

test("Vite dev server (dependency pre-bundling): runs in Chromium", async () => {
  const port = await freePort();
  const server = await createServer({ ...quiet, root: app, server: { host: "127.0.0.1", port, strictPort: true, fs: { allow: [fixtures] } } });
  await server.listen();
  try {
    const { result, errors, requests } = await runSmokePage(browser, `http://127.0.0.1:${port}/`);
    assert.deepEqual(errors, []);
    checkSmoke(assert, result);
    assert.ok(requests.some((r) => r.url.includes(".vite/deps/")), "engram was pre-bundled");
    assert.deepEqual(requests.filter((r) => r.status >= 400), []);
  } finally {
    await server.close();
  }
});

test("Vite 6 (Rollup) production build: the same assets, runs in Chromium", async () => {
  const outDir = join(app, "dist6");
  await vite6.build({ ...quiet, root: app, build: { outDir, emptyOutDir: true } });
  const assets = readdirSync(join(outDir, "assets"));
  for (const re of [/\.wasm$/, /^o200k_base.*\.engtok$/, /^minilm-l6-v2-static-256.*\.engemb$/]) assert.equal(assets.filter((f) => re.test(f)).length, 1, `${re} in ${assets.join(" ")}`);
  assert.equal(assets.filter((f) => f.startsWith("cl100k_base")).length, 0);
  const port = await freePort();
  const server = await vite6.preview({ ...quiet, root: app, build: { outDir }, preview: { host: "127.0.0.1", port, strictPort: true } });
  try {
    const { result, errors } = await runSmokePage(browser, `http://127.0.0.1:${port}/`);
    assert.deepEqual(errors, []);
    checkSmoke(assert, result);
  } finally {
    await server.close();
  }
});

test("the tarball README's cl100k snippet, as written, builds under Vite and counts exactly in Chromium", async () => {
  const readme = readFileSync(join(fixtures, "node_modules", "engram", "README.md"), "utf8");
  const snippet = readme.match(/```js\n(import cl100k from "engram\/assets\/cl100k_base\.engtok\?url";[\s\S]*?)```/)?.[1];
  assert.ok(snippet, "the README has the cl100k snippet");
  const root = mkdtempSync(join(fixtures, "cl100k-"));
  try {
    writeFileSync(join(root, "index.html"), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="./main.js"></script>');
    writeFileSync(join(root, "main.js"), `import { Engram, MemoryStorage } from "engram";\nconst user = "vite-cl100k";\n${snippet}\nawait mem.tokenizerReady();\nwindow.__smoke = mem.countTokens("hello world, 你好世界");\n`);
    const outDir = join(root, "dist");
    await build({ ...quiet, root, build: { outDir, emptyOutDir: true } });
    const emitted = readdirSync(join(outDir, "assets"));
    assert.equal(emitted.filter((f) => /^cl100k_base.*\.engtok$/.test(f)).length, 1, `the ?url import emits cl100k: ${emitted.join(" ")}`);
    const port = await freePort();
    const server = await preview({ ...quiet, root, build: { outDir }, preview: { host: "127.0.0.1", port, strictPort: true } });
    try {
      const { result, errors } = await runSmokePage(browser, `http://127.0.0.1:${port}/`);
      assert.deepEqual(errors, []);
      // js-tiktoken counts this text as 9 tokens in cl100k_base and 6 in o200k_base: the
      // count is cl100k's, so the table the snippet names is the one in use.
      assert.equal(result.exact, true, JSON.stringify(result));
      assert.equal(result.tokens, 9, JSON.stringify(result));
    } finally {
      await server.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
