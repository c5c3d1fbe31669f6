// The README's JavaScript example, run as written against the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runReadmeExample } from "./helpers.mjs";

test("the README's SDK example runs and prints what it promises", async () => {
  const logs = await runReadmeExample("sdk-example");
  assert.equal(logs[0][0], "Switched from Python to Go");
  assert.equal(typeof logs[0][1].fused, "number");
  const [tokens, exact, text] = logs[1];
  assert.ok(exact && tokens <= 900 && text.includes("Switched from Python to Go"));
});
