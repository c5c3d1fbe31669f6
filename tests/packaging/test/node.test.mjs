// The packed tarball in plain Node projects: ESM import, CommonJS require, and what the tarball holds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkSmoke, fixtures, installEngram } from "./helpers.mjs";

const { tgz, dir } = installEngram();

test("the tarball carries README, INTEGRATIONS, both licenses, the wasm and the tables, and no sources or tests", () => {
  const files = execFileSync("tar", ["-tzf", tgz], { encoding: "utf8" }).split("\n").filter(Boolean);
  for (const f of ["README.md", "INTEGRATIONS.md", "LICENSE-MIT", "LICENSE-APACHE", "package.json", "wasm/engram_wasm_bg.wasm", "assets/o200k_base.engtok",
    "assets/cl100k_base.engtok", "assets/minilm-l6-v2-static-256.engemb", "dist/entrypoints/browser.js", "dist/entrypoints/browser.d.ts",
    "dist/entrypoints/node.d.ts", "dist/entrypoints/workerd.d.ts"]) {
    assert.ok(files.includes(`package/${f}`), `${f} in the tarball`);
  }
  assert.ok(!files.some((f) => f.startsWith("package/src/") || f.startsWith("package/test/")), "no src/ or test/");
  assert.match(readFileSync(join(dir, "README.md"), "utf8"), /engram/);
  assert.match(readFileSync(join(dir, "INTEGRATIONS.md"), "utf8"), /MCP server/);
  assert.match(readFileSync(join(dir, "LICENSE-APACHE"), "utf8"), /Apache License/);
});

test("package.json declares the entry files as side effects and types per condition", () => {
  const pj = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  assert.ok(Array.isArray(pj.sideEffects) && pj.sideEffects.includes("./dist/entrypoints/browser.js"));
  for (const [cond, name] of [["browser", "browser"], ["node", "node"], ["workerd", "workerd"], ["default", "browser"]]) {
    assert.equal(pj.exports["."][cond].types, `./dist/entrypoints/${name}.d.ts`);
  }
});

test("plain Node ESM: open, remember, recall, exact context", () => {
  const out = execFileSync(process.execPath, [join(fixtures, "node-esm/main.mjs")], { encoding: "utf8" });
  checkSmoke(assert, JSON.parse(out.trim().split("\n").pop()));
});

test("CommonJS require('engram') works on this Node (require of the ESM build)", () => {
  const out = execFileSync(process.execPath, [join(fixtures, "node-cjs/main.cjs")], { encoding: "utf8" });
  const r = JSON.parse(out.trim().split("\n").pop());
  assert.equal(r.top, "Prefers Go for backend services");
  assert.equal(r.exact, true);
});

test("the tarball's README: its quick start runs as written in a project that installed the tarball", () => {
  const readme = readFileSync(join(dir, "README.md"), "utf8");
  const m = readme.match(/<!-- pkg-example: quick-start[^>]*-->\s*```js\n([\s\S]*?)```/);
  assert.ok(m, "the README has its quick start");
  const out = mkdtempSync(join(fixtures, "readme-"));
  try {
    writeFileSync(join(out, "quick-start.mjs"), m[1]); // imports "engram" from fixtures/node_modules
    const printed = execFileSync(process.execPath, [join(out, "quick-start.mjs")], { encoding: "utf8" });
    assert.match(printed, /^Switched from Python to Go /);
    assert.match(printed, /<memory-data trust="untrusted">/);
    assert.match(printed, /User works at Globex/);
    assert.match(printed, /\[EMAIL\]/);
    assert.doesNotMatch(printed, /zs@example\.com/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
