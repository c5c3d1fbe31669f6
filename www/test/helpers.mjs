// Shared by the www tests: the packed engram tarball installed here, a production build
// served by `vite preview`, Chromium through playwright-core, an OpenAI-compatible stub.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer as createHttp } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const www = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const root = resolve(www, "..");
export const screenshots = join(root, "target", "screenshots");
export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/** Install the tarball ($ENGRAM_TARBALL, else `npm pack` of pkg/) into www/node_modules, once per content. */
export function installEngram() {
  let tgz = process.env.ENGRAM_TARBALL;
  if (!tgz) {
    const out = mkdtempSync(join(tmpdir(), "engram-pack-"));
    execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: join(root, "pkg"), stdio: ["ignore", "pipe", "inherit"] });
    tgz = join(out, readdirSync(out).find((f) => f.endsWith(".tgz")));
  }
  const sum = createHash("sha256").update(readFileSync(tgz)).digest("hex");
  const marker = join(www, ".engram-tarball");
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== sum || !existsSync(join(www, "node_modules/engram"))) {
    execFileSync("npm", ["install", "--no-save", "--no-package-lock", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tgz], {
      cwd: www,
      stdio: "inherit",
    });
    writeFileSync(marker, sum);
  }
}

/** Build www (production) and serve it on 127.0.0.1; returns { url, close }. */
export async function serveBuild({ proxy, rebuild = true } = {}) {
  const { build, preview } = await import("vite");
  if (rebuild || !existsSync(join(www, "dist/index.html"))) await build({ root: www, logLevel: "warn", build: { outDir: join(www, "dist"), emptyOutDir: true } });
  const port = await freePort();
  const server = await preview({ root: www, logLevel: "warn", preview: { host: "127.0.0.1", port, strictPort: true, proxy } });
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** A page whose console errors and page errors are collected in `page.errors` (tests assert it stays empty). */
export async function openPage(context, url) {
  const page = await context.newPage();
  page.errors = [];
  page.on("console", (m) => m.type() === "error" && page.errors.push(`console: ${m.text()} (${m.location()?.url ?? ""})`));
  page.on("pageerror", (e) => page.errors.push(`pageerror: ${e.message}`));
  page.tables = [];
  page.on("request", (r) => /\.(engemb|engtok)$/.test(new URL(r.url()).pathname) && page.tables.push(r.url()));
  if (url) await gotoReady(page, url);
  return page;
}

export async function gotoReady(page, url) {
  await page.goto(url);
  await waitReady(page);
}

export async function waitReady(page) {
  await page.waitForFunction(() => window.__engram?.ready === true || window.__engram?.error, null, { timeout: 90_000 });
  const err = await page.evaluate(() => window.__engram.error);
  if (err) throw new Error(`the app failed to start: ${err}`);
}

/** Type a message, send it, and wait until the app has answered it. */
export async function chat(page, text) {
  const before = await page.evaluate(() => window.__engram.turns ?? 0);
  await page.fill("#msg", text);
  await page.click("#send");
  await page.waitForFunction((n) => (window.__engram.turns ?? 0) > n, before, { timeout: 60_000 });
}

/** Wait until the panel has rendered after the latest change. */
export async function settled(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForFunction(() => (window.__engram.rendered ?? 0) > 0 && !window.__engram.rendering, null, { timeout: 10_000 });
}

export async function memoryTexts(page) {
  return page.$$eval("#memories li.memory .text", (els) => els.map((e) => e.textContent));
}

/** What the chat shows under each user turn as kept from it, in order. */
export async function keptLines(page) {
  return page.$$eval("#log li.user .kept", (els) => els.map((e) => e.textContent));
}

export async function shot(page, name) {
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

/** A local OpenAI-compatible endpoint that streams its answer in several server-sent events (CORS open). */
export async function startStub(answer = ["Go ", "is a good ", "fit for ", "the new service."]) {
  const requests = [];
  const server = createHttp(async (req, res) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization", "access-control-allow-methods": "POST, OPTIONS" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    let body = "";
    for await (const c of req) body += c;
    requests.push({ url: req.url, headers: req.headers, body: JSON.parse(body) });
    res.writeHead(200, { ...cors, "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const piece of answer) {
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
      await new Promise((r) => setTimeout(r, 40));
    }
    res.end("data: [DONE]\n\n");
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(r)) };
}

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
