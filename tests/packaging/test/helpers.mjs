// Shared by the packaging tests: the packed tarball installed into fixtures/, Chromium
// through playwright-core, and pages that must finish without a console error.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, "../../..");
export const fixtures = resolve(here, "../fixtures");
export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/** The tarball under test: $ENGRAM_TARBALL, else `npm pack` of pkg/ (which must be built). */
export function tarball() {
  if (process.env.ENGRAM_TARBALL) return resolve(process.env.ENGRAM_TARBALL);
  const out = mkdtempSync(join(tmpdir(), "engram-pack-"));
  execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: join(root, "pkg"), stdio: ["ignore", "pipe", "inherit"] });
  const name = readdirSync(out).find((f) => f.endsWith(".tgz"));
  return join(out, name);
}

/** Install the tarball into fixtures/node_modules (once per tarball content). */
export function installEngram() {
  const tgz = tarball();
  const sum = createHash("sha256").update(readFileSync(tgz)).digest("hex");
  const marker = join(fixtures, ".engram-tarball");
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== sum || !existsSync(join(fixtures, "node_modules", "engram"))) {
    execFileSync("npm", ["install", "--no-save", "--no-package-lock", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tgz], {
      cwd: fixtures,
      stdio: "inherit",
    });
    writeFileSync(marker, sum);
  }
  return { tgz, dir: join(fixtures, "node_modules", "engram") };
}

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/**
 * Open `url` in a fresh context, wait for `window.__smoke`, and return it with every
 * console error and page error seen (the caller asserts there are none).
 */
export async function runSmokePage(browser, url, timeout = 60_000) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()} (${m.location()?.url ?? ""})`));
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => errors.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  const requests = [];
  page.on("response", (r) => requests.push({ url: r.url(), status: r.status() }));
  await page.goto(url);
  await page.waitForFunction(() => window.__smoke !== undefined, null, { timeout });
  const result = await page.evaluate(() => window.__smoke);
  await context.close();
  return { result, errors, requests };
}

/** The assertions every smoke run shares. */
export function checkSmoke(assert, r) {
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.top, "Switched from Python to Go");
  assert.equal(typeof r.vectorRank, "number", "the vector channel ranked the hit (the embedding table loaded)");
  assert.equal(r.superseded, 1);
  assert.equal(r.exact, true, "the context's count is exact (the o200k table loaded)");
  assert.ok(r.tokens > 0 && r.tokens <= 900, `tokens ${r.tokens}`);
  assert.deepEqual(r.recount, { tokens: r.tokens, exact: true });
  assert.equal(r.contextHasFact, true);
  assert.equal(r.contextHasOldFact, false, "the superseded value is not in the context");
}

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  const net = await import("node:net");
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}
