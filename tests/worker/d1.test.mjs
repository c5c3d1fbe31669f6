// ENGRAM_STORE = "d1": the users' logs and snapshots in D1 (one table, namespaced per user),
// still written only by each user's Durable Object. Concurrent writes, users apart, restart.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { allTexts, client, startWorker, token } from "./harness.mjs";

const persistTo = mkdtempSync(join(tmpdir(), "engram-worker-d1-"));
let w;
after(async () => {
  await w?.stop();
  rmSync(persistTo, { recursive: true, force: true });
});

test("with D1 behind the objects, 50 concurrent writes for one user survive a restart and users stay apart", async () => {
  w = await startWorker({ persistTo, vars: { ENGRAM_STORE: "d1" } });
  const ivy = client(w.url, token("acme", "ivy"));
  const jon = client(w.url, token("acme", "jon"));
  const texts = Array.from({ length: 50 }, (_, i) => `Ivy's shelf ${i} holds ${["atlases", "herbaria", "ledgers", "maps", "scores"][i % 5]} numbered ${7000 + i * 11}`);
  const rs = await Promise.all([...texts.map((t) => ivy.remember(t)), jon.remember("Jon collects vinyl records")]);
  for (const r of rs) assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal((await ivy.status()).body.storedBytes, null, "the object's own SQLite is not the store");
  await w.stop();
  w = await startWorker({ persistTo, vars: { ENGRAM_STORE: "d1" } });
  const after = await allTexts(client(w.url, token("acme", "ivy")));
  assert.deepEqual(after.sort(), [...texts].sort());
  assert.deepEqual(await allTexts(client(w.url, token("acme", "jon"))), ["Jon collects vinyl records"]);
  // The rows are in D1: the same persisted state opened with the object store shows nothing for ivy.
  await w.stop();
  w = await startWorker({ persistTo, vars: { ENGRAM_STORE: "do" } });
  assert.deepEqual(await allTexts(client(w.url, token("acme", "ivy"))), []);
});
