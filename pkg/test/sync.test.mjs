// Sync through the real origin (engram-origin binary) over the real MongoDB-wire server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, MemoryStorage } from "../dist/entrypoints/node.js";
import { runReadmeExample } from "./helpers.mjs";
import { originMemories, startOrigin, token } from "./origin.mjs";

const open = (user, url, storage = new MemoryStorage(), sync = {}) =>
  Engram.open({ user, storage, embedder: false, tokenizer: false, sync: { url, token: token(user), background: false, ...sync } });
const texts = async (e) => (await e.list()).map((r) => r.text).sort();

test("two devices of a user converge through the origin after writing offline, and forgetting the user removes them everywhere but leaves another user whole", async () => {
  const o = await startOrigin();
  try {
    const offline = "http://127.0.0.1:9"; // nothing listens: the devices are offline
    const phoneStore = new MemoryStorage();
    let phone = await open("alice", offline, phoneStore);
    const laptop = await open("alice", o.url);
    const bob = await open("bob", o.url);
    await phone.remember("I live in Lisbon");
    await phone.remember("My sister is called Ana");
    await phone.session("chat").append("user", "Remind me to water the plants");
    await assert.rejects(phone.sync(), (e) => e.code === "SYNC_NETWORK");
    assert.equal(await phone.pendingSync(), 3, "offline changes wait in the persisted outbox");
    await phone.close();
    // Back online (same storage: the outbox survived the restart).
    phone = await open("alice", o.url, phoneStore);
    assert.equal(await phone.pendingSync(), 3);
    await laptop.remember("I work at Globex");
    await bob.remember("Bob plays chess");
    const r1 = await phone.sync();
    assert.equal(r1.pushed, 3);
    assert.equal(await phone.pendingSync(), 0);
    await laptop.sync();
    await phone.sync();
    await bob.sync();
    assert.deepEqual(await texts(phone), await texts(laptop));
    assert.deepEqual(await texts(laptop), ["I live in Lisbon", "I work at Globex", "My sister is called Ana", "Remind me to water the plants"]);
    assert.deepEqual(await texts(bob), ["Bob plays chess"]);
    assert.equal((await originMemories(o, "alice")).length, 4);

    assert.equal(await phone.forgetUser(), 4);
    await phone.sync();
    assert.equal((await originMemories(o, "alice")).length, 0, "alice is gone from the origin");
    assert.equal(await laptop.count(), 4, "the laptop still holds alice until it syncs");
    await laptop.sync();
    assert.equal(await laptop.count(), 0, "gone from the laptop after its next sync");
    assert.deepEqual((await originMemories(o, "bob")).map((m) => m.text), ["Bob plays chess"]);
    await bob.sync();
    assert.deepEqual(await texts(bob), ["Bob plays chess"]);
    await Promise.all([phone.close(), laptop.close(), bob.close()]);
  } finally {
    await o.kill();
  }
});

test("background sync retries with backoff and jitter while the origin is down, then delivers", async () => {
  const o = await startOrigin();
  try {
    await o.kill();
    const events = [];
    const phone = await open("carol", o.url, new MemoryStorage(), { background: true, debounceMs: 10, intervalMs: 60_000, backoff: { baseMs: 50, maxMs: 400 } });
    phone.on((e) => events.push(e));
    await phone.remember("Carol's cat is called Miso");
    const until = async (pred, ms = 15_000) => {
      const end = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > end) throw new Error(`timed out; events: ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until(() => events.filter((e) => e.type === "sync-error").length >= 3);
    const errors = events.filter((e) => e.type === "sync-error");
    assert.deepEqual(errors.slice(0, 3).map((e) => e.attempt), [1, 2, 3]);
    for (const e of errors) {
      assert.equal(e.error.code, "SYNC_NETWORK");
      assert.ok(e.retryInMs >= 0 && e.retryInMs < Math.min(400, 50 * 2 ** (e.attempt - 1)), `retry ${e.retryInMs} within the cap of attempt ${e.attempt}`);
    }
    await o.start();
    await until(() => events.some((e) => e.type === "sync" && e.report.pushed === 1));
    assert.deepEqual((await originMemories(o, "carol")).map((m) => m.text), ["Carol's cat is called Miso"]);
    await phone.close();
  } finally {
    await o.kill();
  }
});

test("killing the origin in the middle of a sync loses nothing and stores nothing twice", async () => {
  const o = await startOrigin();
  try {
    let responses = 0;
    let killed;
    // After two answered requests, kill the origin while the third is in flight.
    const fetchThatKills = async (url, init) => {
      const p = fetch(url, init);
      if (++responses === 3) killed = new Promise((r) => setTimeout(r, 15)).then(() => o.kill());
      return p;
    };
    const phone = await open("dave", o.url, new MemoryStorage(), { fetch: fetchThatKills, batchesPerRequest: 20 });
    const n = 150;
    for (let i = 0; i < n; i++) await phone.remember(`Dave's note number ${i}: item ${i * 7} of the list`);
    assert.equal(await phone.pendingSync(), n);
    await assert.rejects(phone.sync(), (e) => e.code === "SYNC_NETWORK" || e.code === "SYNC_UNAVAILABLE");
    await killed;
    const left = await phone.pendingSync();
    assert.ok(left > 0 && left < n, `some batches were accepted before the kill (${n - left}), some not`);
    await o.start();
    const report = await phone.sync();
    assert.equal(await phone.pendingSync(), 0);
    assert.equal(report.pushed, left);
    console.log(`# killed mid-sync: ${n - left} batches accepted before, ${left} after the restart, ${report.duplicates} of them already stored`);
    const laptop = await open("dave", o.url);
    const pulled = await laptop.sync();
    assert.equal(pulled.pulled, n, "every batch is at the origin exactly once");
    assert.equal(await laptop.count(), n);
    const atOrigin = await originMemories(o, "dave", { history: true });
    assert.equal(atOrigin.length, n);
    assert.equal(new Set(atOrigin.map((m) => m.text)).size, n);
    await Promise.all([phone.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});

test("when the origin's answer is lost the resent batches are recognised, not stored again", async () => {
  const o = await startOrigin();
  try {
    let calls = 0;
    const loseSecondAnswer = async (url, init) => {
      const res = await fetch(url, init);
      if (++calls === 2) throw new TypeError("fetch failed (connection reset)");
      return res;
    };
    const phone = await open("frank", o.url, new MemoryStorage(), { fetch: loseSecondAnswer, batchesPerRequest: 5 });
    for (let i = 0; i < 12; i++) await phone.remember(`Frank's fact ${i} is about subject ${i}`);
    await assert.rejects(phone.sync(), (e) => e.code === "SYNC_NETWORK");
    assert.equal(await phone.pendingSync(), 7, "the first request's 5 left the outbox, the lost one's 5 did not");
    const again = await phone.sync();
    assert.equal(again.pushed, 7);
    assert.equal(again.duplicates, 5, "the origin had stored the batches whose answer was lost");
    const laptop = await open("frank", o.url);
    assert.equal((await laptop.sync()).pulled, 12);
    assert.equal(await laptop.count(), 12);
    await Promise.all([phone.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});

test("pulled changes and the cursor are persisted: a reopened device has them offline and pulls only what is new", async () => {
  const o = await startOrigin();
  try {
    const phone = await open("gina", o.url);
    const laptopStore = new MemoryStorage();
    let laptop = await open("gina", o.url, laptopStore);
    await phone.remember("Gina runs on Tuesdays");
    await phone.remember("Gina's bike is green");
    await phone.sync();
    assert.equal((await laptop.sync()).pulled, 2);
    await laptop.close();
    laptop = await open("gina", "http://127.0.0.1:9", laptopStore);
    assert.deepEqual(await texts(laptop), ["Gina runs on Tuesdays", "Gina's bike is green"], "held locally, no network needed");
    await laptop.close();
    laptop = await open("gina", o.url, laptopStore);
    await phone.remember("Gina moved to Porto");
    await phone.sync();
    const r = await laptop.sync();
    assert.equal(r.pulled, 1, "only the batch after the persisted cursor");
    assert.equal(await laptop.count(), 3);
    await Promise.all([phone.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});

test("a refused token is a typed error and nothing leaves the outbox", async () => {
  const o = await startOrigin();
  try {
    const e = await Engram.open({ user: "erin", embedder: false, tokenizer: false, sync: { url: o.url, token: token("erin", { secret: "x".repeat(40) }), background: false } });
    await e.remember("Erin likes tea");
    await assert.rejects(e.sync(), (err) => err.code === "SYNC_UNAUTHORIZED");
    assert.equal(await e.pendingSync(), 1);
    const mallory = await Engram.open({ user: "erin", embedder: false, tokenizer: false, sync: { url: o.url, token: token("mallory"), background: false } });
    await mallory.remember("written as erin with mallory's token");
    await assert.rejects(mallory.sync(), (err) => err.code === "SYNC_FORBIDDEN");
    assert.equal((await originMemories(o, "erin")).length, 0);
    await assert.rejects(Engram.open({ user: "x", sync: { url: "ftp://nope", token: "t" } }), (err) => err.code === "INVALID_INPUT");
    await Promise.all([e.close(), mallory.close()]);
  } finally {
    await o.kill();
  }
});

test("the sync example of docs/sync-and-origin.md runs as written against a real origin", async () => {
  const o = await startOrigin();
  try {
    process.env.ENGRAM_ORIGIN = o.url;
    process.env.ENGRAM_TOKEN = token("zhang-san", { tenant: "demo" });
    const logs = await runReadmeExample("sync-example", "docs/sync-and-origin.md");
    assert.deepEqual(logs[0][0], ["Prefers Go for backend services"]);
  } finally {
    await o.kill();
  }
});
