// The tarball's types under each module resolution, with library .d.ts files checked (skipLibCheck false).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fixtures, installEngram } from "./helpers.mjs";

installEngram();
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function compile(name) {
  try {
    execFileSync(process.execPath, [tsc, "-p", join(fixtures, "ts", name)], { encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    assert.fail(`tsc -p ${name} failed:\n${e.stdout}${e.stderr}`);
  }
}

test("bundler resolution, lib DOM + ES2022, no @types/node: browser types (no NodeFileStorage) check", () => {
  compile("bundler-dom");
});

test("bundler resolution, lib DOM + ESNext (which declares Symbol.dispose itself): checks", () => {
  compile("bundler-esnext");
});

test("node10 resolution (no exports map; top-level types), lib DOM + ES2022: checks", () => {
  compile("node10");
});

test("node10 resolution in a Node app: engram/node's types (NodeFileStorage) come from typesVersions and check", () => {
  compile("node10-node");
});

test("workerd: a Worker with @cloudflare/workers-types imports engram/workerd and checks without skipLibCheck", () => {
  compile("workerd");
});

for (const m of ["node16", "nodenext", "bundler-node"]) {
  test(`${m} resolution in a Node app: node types (NodeFileStorage) check, and the compiled program runs`, () => {
    compile(m);
    const out = execFileSync(process.execPath, [join(fixtures, "ts", m, "out/main.js")], { encoding: "utf8" });
    const r = JSON.parse(out.trim());
    assert.equal(r.top, "Prefers Go");
    assert.equal(r.exact, true);
  });
}
