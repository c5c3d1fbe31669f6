// The README's quick example and the SDK example of docs/sdk.md, run as written against the
// built package (../dist/entrypoints/node.js stands in for "engram").
import { test } from "node:test";
import assert from "node:assert/strict";
import { runReadmeExample } from "./helpers.mjs";

test("the README's quick example runs and prints what its comments promise", async () => {
  const logs = await runReadmeExample("quick-example");
  assert.equal(logs.length, 2);
  assert.deepEqual(logs[0], ["Switched from Python to Go"]);
  const [tokens, text] = logs[1];
  assert.ok(Number.isInteger(tokens) && tokens > 0 && tokens <= 300, `tokens ${tokens}`);
  assert.match(text, /^<memory-data trust="untrusted">/);
  assert.match(text, /User works at Globex/);
  assert.match(text, /\[EMAIL\]/);
  assert.doesNotMatch(text, /zs@example\.com/);
});

test("the SDK example of docs/sdk.md runs and prints what it promises", async () => {
  const logs = await runReadmeExample("sdk-example", "docs/sdk.md");
  assert.equal(logs[0][0], "Switched from Python to Go");
  assert.equal(typeof logs[0][1].fused, "number");
  const [tokens, exact, text] = logs[1];
  assert.ok(exact && tokens <= 900 && text.includes("Switched from Python to Go"));
});
