// The Engram SDK over the real wasm build in Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Engram, MemoryStorage, NodeFileStorage, EngramError, EngramInputError, EngramFatalError, EngramIoError,
} from "../dist/entrypoints/node.js";
import { hashEmbedder, clock, FlakyStorage } from "./helpers.mjs";

const DAY = 86_400_000;

test("remember, recall and buildContext work end to end with exact token counts", async () => {
  const c = clock();
  const mem = await Engram.open({ user: "alice", now: c.now, embedder: hashEmbedder() });
  await mem.tokenizerReady();
  await mem.remember({ text: "Alice prefers Python", key: { subject: "alice", attribute: "preferred language" } });
  const out = await mem.remember({ text: "Alice switched from Python to Go", key: { subject: "alice", attribute: "preferred language" } });
  assert.equal(out.action, "inserted");
  assert.equal(out.superseded.length, 1);
  const r = await mem.recall("which programming language does alice use");
  assert.equal(r.route, "retrieve");
  assert.equal(r.hits[0].record.text, "Alice switched from Python to Go");
  assert.ok(r.hits[0].parts.key === 1 || r.hits[0].parts.lexical !== null);
  assert.equal((await mem.recall("thanks!")).route, "small-talk");
  const s = mem.session("s1");
  await s.append("user", "Which language should the new service use?");
  const ctx = await mem.buildContext("Which language should the new service use?", { session: "s1", budget: 200 });
  assert.equal(ctx.exact, true);
  assert.ok(ctx.tokens <= 200 && ctx.tokens > 0);
  assert.equal(mem.countTokens(ctx.text).tokens, ctx.tokens);
  assert.match(ctx.text, /switched from Python to Go/);
  assert.doesNotMatch(ctx.text, /"Alice prefers Python"/);
  const all = await mem.list({ includeSuperseded: true });
  assert.equal(all.length, 3);
  assert.ok(all.some((m) => m.supersededBy === out.id));
  await mem.close();
});

test("counts are estimates until the table is loaded, and say so", async () => {
  let release;
  const gate = new Promise((r) => (release = r));
  const { readFile } = await import("node:fs/promises");
  const table = () => gate.then(() => readFile(new URL("../assets/cl100k_base.engtok", import.meta.url))).then((b) => new Uint8Array(b));
  const mem = await Engram.open({ user: "t", tokenizer: { encoding: "cl100k_base", table } });
  const before = mem.countTokens("hello world, this is engram");
  assert.equal(before.exact, false);
  release();
  await mem.tokenizerReady();
  const after = mem.countTokens("hello world, this is engram");
  const { Tiktoken } = await import("js-tiktoken/lite");
  const ranks = (await import("js-tiktoken/ranks/cl100k_base")).default;
  assert.deepEqual(after, { tokens: new Tiktoken(ranks).encode("hello world, this is engram").length, exact: true });
});

test("state persists across reopen through the op log and through snapshots", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-sdk-"));
  const c = clock();
  let mem = await Engram.open({ user: "bob", storage: new NodeFileStorage(dir), now: c.now, compactEvery: 3 });
  for (let i = 0; i < 7; i++) await mem.remember(`fact number ${i} about bob's garden`);
  await mem.session("s").set("topic", { name: "garden" });
  await mem.close();
  mem = await Engram.open({ user: "bob", storage: new NodeFileStorage(dir), now: c.now, compactEvery: 3 });
  assert.equal(mem.openReport.snapshot, "current");
  assert.ok(mem.openReport.replayedBatches >= 1);
  assert.equal((await mem.list()).length, 7);
  assert.deepEqual(await mem.session("s").get("topic"), { name: "garden" });
  assert.equal((await mem.recall("garden fact number 3")).hits[0].record.text, "fact number 3 about bob's garden");
});

test("a corrupt snapshot is detected and the previous generation plus the op log rebuild the state", async () => {
  const storage = new MemoryStorage();
  const mem = await Engram.open({ user: "carol", storage, compactEvery: 2 });
  for (let i = 0; i < 9; i++) await mem.remember(`memory ${i} of carol`);
  await mem.close();
  const key = "engram/default/carol/snapshot/current";
  const snap = await storage.get(key);
  snap[snap.length - 5] ^= 0xff;
  await storage.put(key, snap);
  const again = await Engram.open({ user: "carol", storage });
  assert.deepEqual(again.openReport.corrupt, ["snapshot/current"]);
  assert.equal(again.openReport.snapshot, "previous");
  assert.equal((await again.list()).length, 9);
});

test("a storage that says its database was discarded opens with openReport.storageLost, and is kept apart from a new store", async () => {
  /** The adapter contract's optional `discarded()`: IndexedDbStorage answers it in browsers (www/test/discarded.test.mjs). */
  class DiscardedStorage extends MemoryStorage {
    constructor(lost) {
      super();
      this.lost = lost;
    }
    async discarded() {
      return this.lost;
    }
  }
  for (const lost of [true, false]) {
    const storage = new DiscardedStorage(lost);
    const mem = await Engram.open({ user: "erin", storage, compactEvery: 2 });
    assert.equal(mem.openReport.storageLost, lost);
    // Reloads after a trap rebuild the report; it keeps saying what the open found.
    for (let i = 0; i < 3; i++) await mem.remember(`erin note ${i}`);
    await mem._trapForTests().catch(() => undefined);
    assert.equal((await mem.list()).length, 3);
    assert.equal(mem.openReport.storageLost, lost);
    await mem.close();
  }
  const plain = await Engram.open({ user: "erin", storage: new MemoryStorage() });
  assert.equal(plain.openReport.storageLost, false, "an adapter without discarded() never reports a loss");
});

test("a failed write loses only the write in flight, and the instance stays usable", async () => {
  const storage = new FlakyStorage();
  const mem = await Engram.open({ user: "dan", storage });
  await mem.remember("dan likes chess");
  storage.failPuts = true;
  await assert.rejects(mem.remember("dan likes go"), /disk full/);
  storage.failPuts = false;
  await mem.remember("dan likes shogi");
  const reopened = await Engram.open({ user: "dan", storage });
  const texts = (await reopened.list()).map((m) => m.text).sort();
  assert.ok(texts.includes("dan likes chess") && texts.includes("dan likes shogi"));
});

test("bad input from JS gets a typed error with a code and the instance stays usable", async () => {
  const mem = await Engram.open({ user: "eve", embedder: hashEmbedder(8) });
  const cases = [
    [() => mem.remember({ text: "x", embedding: new Float32Array(3) }), "DIMENSION_MISMATCH"],
    [() => mem.remember({ text: "x", embedding: new Float32Array([NaN, 1, 1, 1, 1, 1, 1, 1]) }), "BAD_EMBEDDING"],
    [() => mem.remember({ text: 42 }), "INVALID_INPUT"],
    [() => mem.remember(null), "INVALID_INPUT"],
    [() => mem.remember("   "), "INVALID_INPUT"],
    [() => mem.remember("z".repeat(40_000)), "TEXT_TOO_LARGE"],
    [() => mem.remember({ text: "x", importance: 3 }), "INVALID_INPUT"],
    [() => mem.remember({ text: "x", kind: "gossip" }), "INVALID_INPUT"],
    [() => mem.recall(undefined), "INVALID_INPUT"],
    [() => mem.importSnapshot(new Uint8Array([1, 2, 3])), "BAD_MAGIC"],
  ];
  for (const [f, code] of cases) {
    await assert.rejects(f(), (e) => e instanceof EngramError && e.code === code, `expected ${code}`);
  }
  await assert.rejects(Engram.open({ user: "" }), EngramInputError);
  assert.equal((await mem.remember("eve still works")).action, "inserted");
});

test("a store reopened from its snapshot takes this open's config, and bad settings are refused", async () => {
  const storage = new MemoryStorage();
  const a = await Engram.open({ user: "g", storage, embedder: hashEmbedder(8) });
  await a.remember("g likes green tea");
  await a.compact();
  await a.close();
  // A month later the default decay has halved the memory's weight; the new setting (no
  // decay) must keep it whole.
  const monthLater = () => Date.now() + 30 * 86_400_000;
  const b = await Engram.open({ user: "g", storage, embedder: hashEmbedder(8), config: { decay: "None" }, now: monthLater });
  assert.equal(b.openReport.snapshot, "current");
  assert.equal((await b.recall("green tea", { force: true })).hits[0].parts.decay, 1);
  await b.close();
  const c = await Engram.open({ user: "g", storage, embedder: hashEmbedder(8), now: monthLater });
  assert.ok((await c.recall("green tea", { force: true })).hits[0].parts.decay < 0.51);
  await c.close();
  // The vectors are stored as int8: another precision is refused, naming it.
  await assert.rejects(Engram.open({ user: "g", storage, embedder: hashEmbedder(8), config: { precision: "F32" } }), (e) => e.code === "INVALID_INPUT" && /precision/.test(e.message));
  for (const config of [{ rrfK: -1 }, { weights: { vector: Number.NaN } }, { sessionTtlMs: 0 }]) {
    await assert.rejects(Engram.open({ user: "h", embedder: false, config }), (e) => e instanceof EngramInputError && e.code === "INVALID_INPUT", JSON.stringify(config));
  }
  const snapshot = (await Engram.open({ user: "g", storage, embedder: hashEmbedder(8) })).exportSnapshot();
  const d = await Engram.open({ user: "g", embedder: hashEmbedder(8), config: { decay: "None" }, now: monthLater });
  await d.importSnapshot(snapshot);
  assert.equal((await d.recall("green tea", { force: true })).hits[0].parts.decay, 1, "an imported snapshot takes this instance's config too");
});

test("mixing embedders of another dimension or id in one store is refused", async () => {
  const storage = new MemoryStorage();
  const a = await Engram.open({ user: "f", storage, embedder: hashEmbedder(16, "model-a") });
  await a.remember("f likes tea");
  await a.close();
  await assert.rejects(Engram.open({ user: "f", storage, embedder: hashEmbedder(32, "model-b") }), (e) => e.code === "INVALID_INPUT" && /model-a/.test(e.message) && /model-b/.test(e.message));
});

test("a wasm trap is fatal for that instance: the SDK rebuilds from storage and keeps working", async () => {
  const storage = new MemoryStorage();
  const mem = await Engram.open({ user: "g", storage });
  await mem.remember("g lives in Oslo");
  await assert.rejects(mem._trapForTests(), EngramFatalError);
  assert.equal((await mem.list()).length, 1);
  await mem.remember("g works at a bakery");
  assert.equal(mem.count(), 2);
});

test("change events fire after the call, with the ids it touched", async () => {
  const mem = await Engram.open({ user: "h" });
  const events = [];
  mem.on((e) => events.push(e));
  const out = await mem.remember("h plays the cello");
  await mem.forget(out.id);
  assert.deepEqual(events, [{ type: "remember", ids: [out.id] }, { type: "forget", ids: [out.id] }]);
});

test("session state expires after an idle hour; writes refresh it", async () => {
  const c = clock();
  const mem = await Engram.open({ user: "i", now: c.now });
  const s = mem.session("s");
  await s.set("step", 1);
  c.advance(50 * 60_000);
  await s.append("user", "still here");
  c.advance(50 * 60_000);
  assert.equal(await s.get("step"), 1);
  c.advance(61 * 60_000);
  assert.equal(await s.get("step"), undefined);
  assert.equal((await s.recent()).length, 1);
});

test("forgetUser removes this user's memories and leaves another user's store untouched", async () => {
  const storage = new MemoryStorage();
  const a = await Engram.open({ user: "ann", storage });
  const b = await Engram.open({ user: "ben", storage });
  await a.remember("ann's secret");
  await b.remember("ben's note");
  assert.equal(await a.forgetUser(), 1);
  assert.equal(a.count(), 0);
  const a2 = await Engram.open({ user: "ann", storage });
  assert.equal(a2.count(), 0, "forgetting survives reopen");
  assert.equal((await b.list())[0].text, "ben's note");
});

test("export and import a snapshot", async () => {
  const a = await Engram.open({ user: "j" });
  await a.remember("j likes maps");
  const bytes = a.exportSnapshot();
  const b = await Engram.open({ user: "j" });
  await b.importSnapshot(bytes);
  assert.equal((await b.list())[0].text, "j likes maps");
});

test("an embedder failure is an EngramIoError and nothing is written", async () => {
  const bad = { id: "broken", dimension: 4, embed: async () => { throw new Error("503"); } };
  const mem = await Engram.open({ user: "k", embedder: bad });
  await assert.rejects(mem.remember("k likes rain"), EngramIoError);
  assert.equal(mem.count(), 0);
});

test("PII is redacted before it is embedded or stored", async () => {
  const seen = [];
  const emb = hashEmbedder(16);
  const spy = { id: emb.id, dimension: 16, embed: async (t) => (seen.push(...t), emb.embed(t)) };
  const mem = await Engram.open({ user: "p", embedder: spy });
  const out = await mem.remember("Email me at p.q@example.com, my PIN is 4821");
  assert.deepEqual(out.redacted.sort(), ["email", "secret"]);
  await mem.session("s").append("user", "call me on +44 20 7946 0958");
  // Every field a user's words can reach; ids, timestamps and stamps are machine-made and
  // may contain the digits by chance.
  const machineMade = (key, value) => (typeof value === "number" || key === "id" || key === "supersededBy" ? undefined : value);
  const stored = JSON.stringify(await mem.list(), machineMade);
  for (const secret of ["p.q@example.com", "4821", "7946"]) {
    assert.ok(!stored.includes(secret), `${secret} stored`);
    assert.ok(!seen.join(" ").includes(secret), `${secret} sent to the embedder`);
  }
  assert.match(stored, /\[EMAIL\]/);
  assert.match(stored, /call me on \[PHONE\]/);
  // The bytes a snapshot carries off the device hold the redacted texts and no secret.
  const snapshot = Buffer.from(mem.exportSnapshot()).toString("latin1");
  assert.ok(snapshot.includes("call me on [PHONE]"));
  for (const secret of ["p.q@example.com", "7946 0958"]) assert.ok(!snapshot.includes(secret), `${secret} in the snapshot`);
});

test("observe stores the turns and remembers the facts in the user's words, and a switch supersedes", async () => {
  const mem = await Engram.open({ user: "zs", embedder: hashEmbedder(16) });
  const { turns, remembered } = await mem.observe(
    [
      { role: "user", text: "我叫张三，在阿里巴巴做算法工程师。" },
      { role: "assistant", text: "你好张三！" },
      { role: "user", text: "对了，我偏好Python，不太喜欢Java。" },
    ],
    { session: "s1" },
  );
  assert.equal(turns.length, 3);
  const texts = (await mem.list({ kinds: ["fact", "preference"] })).map((m) => m.text);
  for (const t of ["用户叫张三", "用户偏好Python", "用户不喜欢Java"]) assert.ok(texts.includes(t), `${t} in ${texts}`);
  assert.ok(remembered.every((o) => o.action === "inserted"));
  await mem.observe([{ role: "user", text: "我已经从Python改用Go了。" }], { session: "s2" });
  const now = (await mem.list({ kinds: ["preference"] })).map((m) => m.text);
  assert.ok(now.includes("用户偏好Go") && !now.includes("用户偏好Python"), String(now));
});
