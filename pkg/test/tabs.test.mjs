// Two instances on one storage, as two browser tabs of one user: with Web Locks (here a
// stand-in for navigator.locks) every write first loads what the other instance logged.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";

// Node has BroadcastChannel but no navigator.locks: provide an exclusive lock manager.
const held = new Map();
globalThis.navigator ??= {};
if (!globalThis.navigator.locks) {
  Object.defineProperty(globalThis.navigator, "locks", {
    configurable: true,
    value: {
      request(name, _opts, f) {
        const prev = held.get(name) ?? Promise.resolve();
        const run = prev.then(() => f());
        held.set(name, run.catch(() => undefined));
        return run;
      },
    },
  });
}
const { Engram, MemoryStorage } = await import("../dist/entrypoints/node.js");

// Every instance is closed after its test, also when an assertion failed (an open
// BroadcastChannel would keep the process alive).
const opened = [];
const open = async (storage) => {
  const m = await Engram.open({ user: "tabs", storage, embedder: false, tokenizer: false });
  opened.push(m);
  return m;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});
const texts = async (m) => (await m.list()).map((r) => r.text).sort();

test("two instances writing at once on one storage lose nothing", async () => {
  const storage = new MemoryStorage();
  const [a, b] = await Promise.all([open(storage), open(storage)]);
  await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).remember(`fact number ${i} is ${i * 31}`)));
  await a.compact();
  const c = await open(storage);
  assert.equal(c.count(), 20);
});

test("a write after the other instance compacted twice (no op keys left) still loads its writes first", async () => {
  const storage = new MemoryStorage();
  const a = await open(storage);
  const b = await open(storage);
  a["channel"].onmessage = null; // a misses b's announcement (e.g. a frozen tab)
  await b.remember("The staging server is called Kestrel");
  await b.compact();
  await b.compact();
  assert.deepEqual(await storage.list("engram/default/tabs/ops/"), [], "no op key is left");
  await a.remember("The production database runs PostgreSQL 16");
  const c = await open(storage);
  assert.deepEqual(await texts(c), ["The production database runs PostgreSQL 16", "The staging server is called Kestrel"]);
  assert.deepEqual(await texts(a), await texts(c), "a loaded b's write before its own");
});

test("refresh() loads another instance's write and reports it", async () => {
  const storage = new MemoryStorage();
  const a = await open(storage);
  const b = await open(storage);
  a["channel"].onmessage = null;
  await b.remember("Prefers tea over coffee");
  assert.equal(a.count(), 0);
  assert.equal(await a.refresh(), true);
  assert.deepEqual(await texts(a), ["Prefers tea over coffee"]);
  assert.equal(await a.refresh(), false);
});
