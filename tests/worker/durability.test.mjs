// Durability under concurrency: snapshots taken while concurrent writes are in flight keep
// every acknowledged write (ENGRAM_COMPACT_EVERY = 7, so 150 writes cross ~20 snapshots), and
// a workerd killed with SIGKILL in the middle of a stream of writes loses none it acknowledged.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { client, startWorker, token } from "./harness.mjs";

const dir = mkdtempSync(join(tmpdir(), "engram-worker-durable-"));
const vars = { ENGRAM_COMPACT_EVERY: "7" };
let w;
after(async () => {
  await w?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ids = async (c) => new Set((await c.list("?limit=1000")).body.memories.map((m) => m.id));
const text = (tag, i) => `${tag} ledger line ${i}: ${["oak", "tin", "salt", "wool", "jade", "rye"][i % 6]} lot ${10_000 + i * 17}`;

test("150 concurrent writes across ~20 snapshots are all there after a clean restart", async () => {
  const persistTo = join(dir, "snap");
  w = await startWorker({ persistTo, vars });
  const c = client(w.url, token("acme", "lena"));
  const rs = await Promise.all(Array.from({ length: 150 }, (_, i) => c.remember(text("Lena", i))));
  for (const r of rs) assert.equal(r.status, 201, JSON.stringify(r.body));
  await w.stop();
  w = await startWorker({ persistTo, vars });
  const got = await ids(client(w.url, token("acme", "lena")));
  assert.deepEqual(got, new Set(rs.map((r) => r.body.id)));
  await w.stop();
  w = undefined;
});

test("a workerd killed mid-stream keeps every write it acknowledged, and the store still opens", async () => {
  const persistTo = join(dir, "crash");
  w = await startWorker({ persistTo, vars });
  const c = client(w.url, token("acme", "milo"));
  const acked = [];
  let next = 0;
  let crashed = false;
  // 8 writers in parallel; the group is killed once 60 writes were acknowledged.
  const writer = async () => {
    while (!crashed && next < 400) {
      const i = next++;
      try {
        const r = await c.remember(text("Milo", i));
        if (r.status === 201) acked.push(r.body.id);
        if (acked.length >= 60 && !crashed) {
          crashed = true;
          await w.crash();
        }
      } catch {
        // the connection died with workerd: not acknowledged
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
  assert.ok(crashed && acked.length >= 60);
  w = await startWorker({ persistTo, vars });
  const c2 = client(w.url, token("acme", "milo"));
  const got = await ids(c2);
  const lost = acked.filter((id) => !got.has(id));
  console.log(`# killed after ${acked.length} acknowledged of ${next} sent; ${got.size} stored after the restart`);
  assert.deepEqual(lost, [], `${lost.length} of ${acked.length} acknowledged writes lost`);
  assert.equal((await c2.remember("Milo after the crash")).status, 201, "the store is writable after the crash");
});
