// Sync of stores with a past, through the real origin: a store written before sync was
// configured pushes its whole state on its first sync; replica ids are new on every open and
// never copied with the data, so a copied store directory syncs from two machines without
// either being taken for the other, and a batch resent after a restart keeps its one id.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, MemoryStorage, NodeFileStorage } from "../dist/entrypoints/node.js";
import { originMemories, startOrigin, token } from "./origin.mjs";

const base = { embedder: false, tokenizer: false };
const offline = (user, storage, more = {}) => Engram.open({ user, storage, ...base, ...more });
const online = (user, url, storage = new MemoryStorage(), sync = {}, more = {}) =>
  Engram.open({ user, storage, ...base, ...more, sync: { url, token: token(user), background: false, ...sync } });
const texts = async (e) => (await e.list()).map((r) => r.text).sort();

test("a store with history from before sync was configured pushes its whole state on its first sync, and another device recalls it", async () => {
  const o = await startOrigin();
  try {
    const dir = await mkdtemp(join(tmpdir(), "engram-first-sync-"));
    // Months of use without sync: a snapshot, ops after it, a retraction, session state, the graph.
    const before = await offline("hana", new NodeFileStorage(dir), { compactEvery: 3 });
    await before.remember("Hana lives in Kyoto");
    await before.remember("Hana's daughter is called Emi");
    await before.remember({ text: "Hana prefers tea", key: { subject: "hana", attribute: "drink" } });
    await before.remember({ text: "Hana switched from tea to coffee", key: { subject: "hana", attribute: "drink" } });
    const gone = await before.remember("Hana's old phone number ends in 42");
    await before.forget(gone.id);
    await before.session("trip").set("destination", "Sapporo");
    await before.relate({ name: "Hana", kind: "person" }, "works_at", { name: "Nintendo", kind: "org" });
    await before.close();

    const phone = await online("hana", o.url, new NodeFileStorage(dir));
    const pushed = await phone.sync();
    assert.ok(pushed.pushed >= 1, "the store's state went to the origin");
    assert.deepEqual(
      (await originMemories(o, "hana")).map((m) => m.text).sort(),
      ["Hana lives in Kyoto", "Hana switched from tea to coffee", "Hana's daughter is called Emi"],
    );

    const laptop = await online("hana", o.url);
    await laptop.sync();
    assert.deepEqual(await texts(laptop), await texts(phone));
    assert.equal((await laptop.recall("where does Hana live")).hits[0]?.record.text, "Hana lives in Kyoto");
    assert.equal((await laptop.list({ includeSuperseded: true })).length, 4, "the superseded version came too, the forgotten one did not");
    assert.equal(await laptop.session("trip").get("destination"), "Sapporo");
    assert.deepEqual(laptop.graph({ template: "neighbours", entity: "Hana", relation: "works_at" }).entities.map((e) => e.name), ["Nintendo"]);

    // Once: reopening does not queue the state again.
    await phone.close();
    const again = await online("hana", o.url, new NodeFileStorage(dir));
    assert.equal(await again.pendingSync(), 0);
    await Promise.all([again.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});

test("writes made while sync was switched off reach the other devices when it is on again", async () => {
  const o = await startOrigin();
  try {
    const storage = new MemoryStorage();
    let phone = await online("ivan", o.url, storage);
    await phone.remember("Ivan plays the cello");
    await phone.sync();
    await phone.close();
    phone = await offline("ivan", storage);
    await phone.remember("Ivan moved to Tallinn");
    await phone.close();
    phone = await online("ivan", o.url, storage);
    await phone.sync();
    const laptop = await online("ivan", o.url);
    await laptop.sync();
    assert.deepEqual(await texts(laptop), ["Ivan moved to Tallinn", "Ivan plays the cello"]);
    await Promise.all([phone.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});

test("a copied store directory synced from two machines: every write of both reaches the origin and a third device, and no id is shared", async () => {
  const o = await startOrigin();
  try {
    const dir = await mkdtemp(join(tmpdir(), "engram-copied-"));
    const first = await online("jun", o.url, new NodeFileStorage(dir), {}, { compactEvery: 4 });
    for (let i = 0; i < 6; i++) await first.remember(`Jun's shared fact ${i}`);
    await first.sync();
    await first.close();
    const copy = await mkdtemp(join(tmpdir(), "engram-copied-"));
    await cp(dir, copy, { recursive: true });

    // Both machines' clocks read the same millisecond: only the replica id tells their writes apart.
    const t = Date.now();
    const a = await online("jun", o.url, new NodeFileStorage(dir), {}, { compactEvery: 4, now: () => t });
    const b = await online("jun", o.url, new NodeFileStorage(copy), {}, { compactEvery: 4, now: () => t });
    const ids = [];
    for (let i = 0; i < 10; i++) {
      ids.push((await a.remember(`machine A wrote note ${i}`)).id);
      ids.push((await b.remember(`machine B wrote note ${i}`)).id);
    }
    assert.equal(new Set(ids).size, 20, "the two machines never hand out the same id");
    const ra = await a.sync();
    const rb = await b.sync();
    assert.equal(ra.duplicates + rb.duplicates, 0, "no batch of one machine was taken for a resend of the other's");
    assert.equal((await originMemories(o, "jun")).length, 26);
    const c = await online("jun", o.url);
    await c.sync();
    assert.equal(c.count(), 26);
    await a.sync();
    await b.sync();
    assert.deepEqual(await texts(a), await texts(c));
    assert.deepEqual(await texts(b), await texts(c));
    assert.equal(await new NodeFileStorage(dir).get("engram/default/jun/replica"), undefined, "no replica id is stored with the data");
    await Promise.all([a.close(), b.close(), c.close()]);
  } finally {
    await o.kill();
  }
});

test("a batch whose answer was lost, resent after a restart, keeps its id and is recognised", async () => {
  const o = await startOrigin();
  try {
    const storage = new MemoryStorage();
    const loseAnswer = async (url, init) => {
      await fetch(url, init);
      throw new TypeError("fetch failed (connection reset)");
    };
    let phone = await online("kim", o.url, storage, { fetch: loseAnswer });
    for (let i = 0; i < 3; i++) await phone.remember(`Kim's fact ${i}`);
    await assert.rejects(phone.sync(), (e) => e.code === "SYNC_NETWORK");
    assert.equal(await phone.pendingSync(), 3);
    await phone.close();
    phone = await online("kim", o.url, storage);
    const r = await phone.sync();
    assert.equal(r.pushed, 3);
    assert.equal(r.duplicates, 3, "the origin had them, under the ids they were first sent with");
    const laptop = await online("kim", o.url);
    assert.equal((await laptop.sync()).pulled, 3, "stored once");
    await Promise.all([phone.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});

test("an outbox batch keeps the id its writer gave it; one an older version wrote is named by the replica id that version stored", async () => {
  const storage = new MemoryStorage();
  const url = "http://127.0.0.1:9"; // offline: nothing is sent
  const mem = await online("lea", url, storage);
  await mem.remember("Lea keeps a sourdough starter");
  const writer = mem.replicaId;
  await mem.close();
  const [key] = await storage.list("engram/default/lea/outbox/");
  const seq = Number(key.slice(-16));
  const reopened = await online("lea", url, storage);
  assert.notEqual(reopened.replicaId, writer);
  const [batch] = await reopened["persistence"].pendingOutbox(10);
  assert.deepEqual([batch.id, batch.seq], [`${writer}-${seq}`, seq], "the writer's id, not the reopened instance's");
  await reopened.close();
  // As an older version left it: the bare op batch under outbox/<seq>, its replica id stored.
  await storage.put(key, batch.bytes);
  const replica = new Uint8Array(8);
  new DataView(replica.buffer).setUint32(0, 123456789, true);
  await storage.put("engram/default/lea/replica", replica);
  const upgraded = await online("lea", url, storage);
  const [old] = await upgraded["persistence"].pendingOutbox(10);
  assert.deepEqual([old.id, old.seq], [`123456789-${seq}`, seq]);
  assert.deepEqual([...old.bytes], [...batch.bytes]);
  await upgraded.close();
});

test("a seed larger than the origin's body limit goes in batches and requests that fit, and arrives whole", async () => {
  // The origin here takes at most 1 MiB per request; 3,000 memories with vectors are ~3.7 MB
  // of state. Before: one seed batch, refused 413 on every retry, nothing synced ever again.
  const o = await startOrigin({ ENGRAM_MAX_BODY: String(1024 * 1024) });
  try {
    const storage = new MemoryStorage();
    const before = await Engram.open({ user: "jo", storage, tokenizer: false });
    const all = Array.from({ length: 3000 }, (_, i) => `Jo logged delivery ${i} of ${["apples", "pears", "plums"][i % 3]} to depot ${i % 17}, crate ${i * 7}`);
    for (let i = 0; i < all.length; i += 500) await before.rememberMany(all.slice(i, i + 500));
    const n = before.count();
    await before.close();
    const phone = await Engram.open({ user: "jo", storage, tokenizer: false, sync: { url: o.url, token: token("jo"), background: false, bytesPerRequest: 512 * 1024 } });
    const r = await phone.sync();
    assert.ok(r.requests >= 6, `the seed needed several requests (${r.requests})`);
    assert.equal(await phone.pendingSync(), 0);
    const laptop = await Engram.open({ user: "jo", storage: new MemoryStorage(), tokenizer: false, sync: { url: o.url, token: token("jo"), background: false } });
    await laptop.sync();
    assert.equal(laptop.count(), n);
    assert.ok((await laptop.recall(all[2999])).hits.slice(0, 3).some((h) => h.record.text === all[2999]), "the last memory of the seed is recalled on the other device");
    await Promise.all([phone.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});
