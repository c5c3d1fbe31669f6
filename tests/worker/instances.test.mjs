// One user's writes arriving through two isolates at once: the "engram" worker and a second
// front worker (tests/worker/fixtures/front-b, its own script) bound to the same
// UserMemory objects. Both reach the user's one object, so every acknowledged write is
// found afterwards, under one replica id.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ROOT, SECRET, absoluteConfig, client, startWorker, token } from "./harness.mjs";

const dir = mkdtempSync(join(tmpdir(), "engram-worker-instances-"));
let w;
after(async () => {
  await w?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("64 concurrent writes for one user through two front isolates are all found afterwards", async () => {
  const main = absoluteConfig(dir, { vars: { ENGRAM_SECRET: SECRET } });
  const frontB = join(dir, "front-b.toml");
  writeFileSync(
    frontB,
    [
      'name = "engram-front-b"',
      `main = "${join(ROOT, "tests/worker/fixtures/front-b/index.js")}"`,
      'compatibility_date = "2026-04-01"',
      "send_metrics = false",
      "[[durable_objects.bindings]]",
      'name = "USERS"',
      'class_name = "UserMemory"',
      'script_name = "engram"',
      "[[services]]",
      'binding = "MAIN"',
      'service = "engram"',
    ].join("\n"),
  );
  w = await startWorker({ config: [frontB, main], persistTo: join(dir, "state") });
  const tok = token("acme", "kim");
  const viaB = client(w.url, tok);
  const viaMain = { remember: (t) => client(w.url, tok).call("POST", "/v1/remember", { text: t }, { "x-front": "main" }) };
  const N = 64;
  const texts = Array.from({ length: N }, (_, i) => `Kim's crate ${i} of ${["teak", "slate", "linen", "cobalt"][i % 4]} weighs ${300 + i * 13} grams`);
  const rs = await Promise.all(texts.map((t, i) => (i % 2 ? viaB.remember(t) : viaMain.remember(t))));
  for (const r of rs) assert.equal(r.status, 201, JSON.stringify(r.body));
  // Half went through each front isolate.
  const byB = rs.filter((r) => r.headers.get("x-served-by") === "front-b").length;
  assert.equal(byB, N / 2);
  const list = (await viaB.list("?limit=1000")).body.memories;
  assert.deepEqual(new Set(list.map((m) => m.id)), new Set(rs.map((r) => r.body.id)));
  assert.deepEqual(list.map((m) => m.text).sort(), [...texts].sort());
  const fromMain = await client(w.url, tok).call("GET", "/v1/status", undefined, { "x-front": "main" });
  const fromB = await viaB.status();
  assert.equal(fromMain.body.count, N);
  assert.equal(fromB.body.count, N);
  assert.equal(fromMain.body.replica, fromB.body.replica, "one object, one replica, whichever isolate asked");
});
