// The README's JavaScript example, run as written against the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

test("the README's SDK example runs and prints what it promises", async () => {
  const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
  const m = readme.match(/<!-- sdk-example[^>]*-->\s*```js\n([\s\S]*?)```/);
  assert.ok(m, "README has the marked js example");
  const entry = new URL("../dist/entrypoints/node.js", import.meta.url).href;
  const code = m[1].replace(/from "engram"/g, `from ${JSON.stringify(entry)}`);
  const dir = await mkdtemp(join(tmpdir(), "engram-readme-"));
  const file = join(dir, "example.mjs");
  await writeFile(file, code);
  const logs = [];
  const orig = console.log;
  console.log = (...a) => logs.push(a);
  try {
    await import(file);
  } finally {
    console.log = orig;
  }
  assert.equal(logs[0][0], "Switched from Python to Go");
  assert.equal(typeof logs[0][1].fused, "number");
  const [tokens, exact, text] = logs[1];
  assert.ok(exact && tokens <= 900 && text.includes("Switched from Python to Go"));
});
