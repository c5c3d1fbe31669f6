// Chromium on an on-disk profile, driven over CDP, and the static server of the fixture page
// (fixtures/crash.html: the SDK as built in pkg/dist, unbundled, through an import map) —
// shared by crash.test.mjs (abrupt stops mid-stream) and discarded.test.mjs (a database the
// browser deletes). The browser runs on a real profile directory, not an off-the-record
// context, so what a restart finds is what the profile holds on disk.
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, freePort, root, www } from "./helpers.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const USER = "crash";
/** Chromium's log line when it deletes an origin's IndexedDB that failed to open as corrupt. */
export const CORRUPT_DELETED = "IndexedDB recovering from a corrupted (and deleted) database";
export const PREFIX = `engram/default/${USER}/`;
const IDB = [join(root, "pkg/node_modules/idb/build"), join(www, "node_modules/idb/build")].find((d) => existsSync(join(d, "index.js")));
export const missing = ["pkg/dist/entrypoints/browser.js", "pkg/wasm/engram_wasm_bg.wasm", "pkg/assets/minilm-l6-v2-static-256.engemb"]
  .filter((f) => !existsSync(join(root, f)))
  .concat(IDB ? [] : ["idb (pkg/node_modules or www/node_modules)"]);

/**
 * The calling test file's fixture: the page served for its tests (`site`, from `before`),
 * fresh profile directories removed `after` them, and `skip` saying why it cannot run.
 */
export function useFixture(name) {
  const profiles = [];
  const fixture = {
    site: undefined,
    skip: missing.length ? `missing ${missing.join(", ")} (run scripts/build-wasm.sh)` : false,
    /** A new empty profile directory for Chromium. */
    profile(tag) {
      const dir = mkdtempSync(join(tmpdir(), `engram-${name}-${tag}-`));
      profiles.push(dir);
      return dir;
    },
  };
  before(async () => {
    if (!missing.length) fixture.site = await serve();
  });
  after(async () => {
    await fixture.site?.close();
    for (const p of profiles) rmSync(p, { recursive: true, force: true });
  });
  return fixture;
}

// ---------------------------------------------------------------------------- server

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
const MOUNTS = [
  ["/engram/", join(root, "pkg")],
  ["/idb/", IDB],
  ["/", join(www, "test/fixtures")],
];

/** A static server for the fixture page, the built SDK (dist, wasm, assets) and `idb`. */
export async function serve() {
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/") path = "/crash.html";
    for (const [mount, dir] of MOUNTS) {
      if (!path.startsWith(mount)) continue;
      const file = normalize(join(dir, path.slice(mount.length)));
      if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) break;
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "content-length": body.length, "cache-control": "no-store" });
      return res.end(body);
    }
    res.writeHead(404).end();
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}

// ---------------------------------------------------------------------------- browser

/**
 * Chromium on an on-disk profile, started by this process in its own process group (so
 * SIGKILL of the group takes the browser and every child process at once, like kill -9 of
 * an app), driven over CDP.
 */
export async function startChromium(profile) {
  const child = spawn(CHROMIUM, [...CHROMIUM_ARGS, "--enable-logging=stderr", `--user-data-dir=${profile}`, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "about:blank"], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  let log = "";
  /** How many times this Chromium said it deleted an IndexedDB database it found corrupt (whole lines only). */
  let deletedCorrupt = 0;
  let partial = "";
  child.stderr.on("data", (d) => {
    const lines = (partial + d).split("\n");
    partial = lines.pop();
    deletedCorrupt += lines.filter((l) => l.includes(CORRUPT_DELETED)).length;
  });
  const ws = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`chromium did not start in 30 s:\n${log.slice(-2000)}`)), 30_000);
    child.stderr.on("data", (d) => {
      log = (log + d).slice(-20_000);
      const m = log.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    exited.then(({ code, signal }) => reject(new Error(`chromium exited (${code ?? signal}) before listening:\n${log.slice(-2000)}`)));
  });
  const browser = await chromium.connectOverCDP(ws);
  const context = browser.contexts()[0];
  assert.ok(context, "the browser's default (on-disk profile) context");
  return {
    context,
    /** How many corrupt IndexedDB databases this Chromium has logged deleting so far. */
    deletions: () => deletedCorrupt,
    /** Whether this Chromium logged deleting a corrupt database after it had logged `before` (waits `ms` for its stderr). */
    async deletedCorruptDatabase(before, ms = 3000) {
      for (const t0 = Date.now(); deletedCorrupt <= before && Date.now() - t0 < ms; ) await new Promise((r) => setTimeout(r, 50));
      return deletedCorrupt > before;
    },
    /** kill -9 of the browser's process group, mid-whatever. */
    async kill() {
      process.kill(-child.pid, "SIGKILL");
      await exited;
      await browser.close().catch(() => undefined);
    },
    /** A clean shutdown (Browser.close), so the profile is flushed the ordinary way. */
    async close() {
      const s = await browser.newBrowserCDPSession();
      await s.send("Browser.close").catch(() => undefined);
      const t = setTimeout(() => process.kill(-child.pid, "SIGKILL"), 15_000);
      await exited;
      clearTimeout(t);
      await browser.close().catch(() => undefined);
    },
  };
}

/** A page of the fixture with `__ack` routed to `page.onAck`, and its errors collected. */
export async function harnessPage(context, url) {
  const page = await context.newPage();
  page.errors = [];
  page.on("console", (m) => m.type() === "error" && page.errors.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => page.errors.push(`pageerror: ${e.message}`));
  page.onAck = () => undefined;
  await page.exposeFunction("__ack", (a) => page.onAck(a));
  await page.goto(url);
  await page.waitForFunction(() => window.harnessReady === true, null, { timeout: 20_000, polling: 50 }).catch(async (e) => {
    const state = await page.evaluate(() => `${location.href} ${document.readyState}`).catch((x) => x.message);
    throw new Error(`the fixture page did not load (${state}): ${e.message}; ${page.errors.join("; ")}`);
  });
  return page;
}

export const within = (p, ms, what) =>
  Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`${what}: no answer in ${ms} ms`)), ms).unref())]);

export async function openStore(page, db, compactEvery, { writeBehindMs, secondCopy } = {}) {
  const opened = await within(page.evaluate((o) => window.harness.open(o), { db, user: USER, compactEvery, writeBehindMs, secondCopy }), 30_000, "Engram.open on IndexedDB");
  assert.equal(opened.adapter, writeBehindMs ? "WriteBehindIndexedDb" : "IndexedDbStorage");
  assert.ok(opened.indexedDb, "the store is the IndexedDB adapter on the page's real indexedDB");
  assert.ok(opened.locks, "Web Locks are available (the SDK's cross-tab guard is in play)");
  return opened;
}
