// The package's own README (pkg/README.md, the tarball's front page): its quick start run as
// written against the built package, and its size table held to the files it describes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { runReadmeExample } from "./helpers.mjs";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

test("the package README's quick start runs and prints what its comments promise", async () => {
  const logs = await runReadmeExample("pkg-example: quick-start", "pkg/README.md");
  assert.equal(logs.length, 2);
  const [text, parts] = logs[0];
  assert.equal(text, "Switched from Python to Go");
  assert.equal(typeof parts.fused, "number");
  const [tokens, exact, context] = logs[1];
  assert.ok(exact && tokens > 0 && tokens <= 300, `tokens ${tokens}`);
  assert.match(context, /^<memory-data trust="untrusted">/);
  assert.match(context, /User works at Globex/);
  assert.match(context, /\[EMAIL\]/);
});

test("the package README states the sizes of the wasm and the tables this build ships, within 5 %", () => {
  // Within 5 %, not to the byte: every change to the core moves the wasm by a few bytes, and
  // the README's figures are there to tell a user what a first visit costs.
  const files = ["wasm/engram_wasm_bg.wasm", "wasm/engram_wasm.js", "assets/minilm-l6-v2-static-256.engemb", "assets/o200k_base.engtok", "assets/cl100k_base.engtok"];
  const near = (stated, actual, what) => assert.ok(Math.abs(stated - actual) <= actual * 0.05, `${what}: README says ${stated}, the build has ${actual} (update pkg/README.md)`);
  for (const f of files) {
    const bytes = readFileSync(new URL(`../${f}`, import.meta.url));
    const row = readme.split("\n").find((l) => l.startsWith(`| \`${f}\``));
    assert.ok(row, `no row for ${f}`);
    const [raw, gz] = [...row.matchAll(/([\d,]+) B/g)].map((m) => Number(m[1].replace(/,/g, "")));
    near(raw, bytes.length, `${f} raw`);
    near(gz, gzipSync(bytes, { level: 9 }).length, `${f} gzip`);
  }
});

test("the package README's first-visit totals are the sums of the files a browser fetches, within 5 %", () => {
  const size = (f) => { const b = readFileSync(new URL(`../${f}`, import.meta.url)); return { raw: b.length, gz: gzipSync(b, { level: 9 }).length }; };
  const beforeRecall = ["wasm/engram_wasm_bg.wasm", "wasm/engram_wasm.js", "assets/minilm-l6-v2-static-256.engemb"].map(size);
  const table = size("assets/o200k_base.engtok");
  const sum = (xs, k) => xs.reduce((a, x) => a + x[k], 0);
  const m = readme.replace(/\s+/g, " ").match(/about ([\d.]+) MB gzip before its first recall \(([\d.]+) MB raw\), ([\d.]+) MB gzip \(([\d.]+) MB raw\) once the token table is in/);
  assert.ok(m, "the README states the first visit's download");
  const near = (stated, actual, what) => assert.ok(Math.abs(stated * 1e6 - actual) <= actual * 0.05, `${what}: README says ${stated} MB, the files add up to ${(actual / 1e6).toFixed(2)} MB`);
  near(Number(m[1]), sum(beforeRecall, "gz"), "gzip before the first recall");
  near(Number(m[2]), sum(beforeRecall, "raw"), "raw before the first recall");
  near(Number(m[3]), sum(beforeRecall, "gz") + table.gz, "gzip with the token table");
  near(Number(m[4]), sum(beforeRecall, "raw") + table.raw, "raw with the token table");
});

test("the package ships INTEGRATIONS.md, which its README points to", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  assert.ok(pkg.files.includes("INTEGRATIONS.md"));
  assert.match(readme, /INTEGRATIONS\.md/);
});
