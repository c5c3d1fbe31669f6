// One conformance suite, run against every storage adapter available in Node:
// memory, Node files, and IndexedDB (fake-indexeddb). KV and D1 run it in workerd.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "fake-indexeddb/auto";
import { MemoryStorage, NodeFileStorage, IndexedDbStorage } from "../dist/entrypoints/node.js";

const adapters = {
  memory: async () => new MemoryStorage(),
  "node-file": async () => new NodeFileStorage(await mkdtemp(join(tmpdir(), "engram-fs-"))),
  indexeddb: async () => new IndexedDbStorage(`engram-test-${Math.random()}`),
};

const bytes = (...xs) => Uint8Array.from(xs);

for (const [name, make] of Object.entries(adapters)) {
  describe(`storage adapter: ${name}`, () => {
    test("a missing key reads as undefined", async () => {
      const s = await make();
      assert.equal(await s.get("nope"), undefined);
    });

    test("put then get returns equal bytes, and later mutation of either side does not leak", async () => {
      const s = await make();
      const v = bytes(1, 2, 3, 0, 255);
      await s.put("a", v);
      v[0] = 9;
      const got = await s.get("a");
      assert.deepEqual([...got], [1, 2, 3, 0, 255]);
      got[1] = 7;
      assert.deepEqual([...(await s.get("a"))], [1, 2, 3, 0, 255]);
    });

    test("put replaces, delete removes, deleting a missing key is fine", async () => {
      const s = await make();
      await s.put("k", bytes(1));
      await s.put("k", bytes(2, 2));
      assert.deepEqual([...(await s.get("k"))], [2, 2]);
      await s.delete("k");
      assert.equal(await s.get("k"), undefined);
      await s.delete("k");
    });

    test("list returns exactly the keys under a prefix, sorted", async () => {
      const s = await make();
      for (const k of ["engram/u/ops/0002", "engram/u/ops/0001", "engram/u/snapshot/current", "engram/v/ops/0001", "other"]) {
        await s.put(k, bytes(1));
      }
      assert.deepEqual(await s.list("engram/u/ops/"), ["engram/u/ops/0001", "engram/u/ops/0002"]);
      assert.deepEqual(await s.list("engram/u/"), ["engram/u/ops/0001", "engram/u/ops/0002", "engram/u/snapshot/current"]);
      assert.deepEqual(await s.list("zzz"), []);
    });

    test("empty and large values, and keys with unicode and dots, roundtrip", async () => {
      const s = await make();
      const big = new Uint8Array(1 << 20).map((_, i) => (i * 31) & 255);
      await s.put("empty", new Uint8Array(0));
      await s.put("big", big);
      await s.put("用户/../é.x", bytes(5));
      assert.equal((await s.get("empty")).length, 0);
      assert.deepEqual(await s.get("big"), big);
      assert.deepEqual([...(await s.get("用户/../é.x"))], [5]);
      assert.deepEqual(await s.list("用户"), ["用户/../é.x"]);
    });
  });
}
