// Issue 21: inputs that bricked an instance, crashed the process or were half-written, and a
// sync backoff that counted one failure many times. Each test reproduces its bug first.
// Limits (text, key fields, nesting, k, role, time) are the core's: these tests hold the SDK
// to them without the SDK repeating them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Engram, MemoryStorage, EngramError, EngramInputError, EngramDataError, EngramFatalError } from "../dist/entrypoints/node.js";
import * as errors from "../dist/errors.js";
import { hashEmbedder } from "./helpers.mjs";

const open = (user = "r", extra = {}) => Engram.open({ user, storage: new MemoryStorage(), embedder: hashEmbedder(), tokenizer: false, ...extra });
const code = (c) => (e) => e instanceof EngramError && e.code === c;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A value nested `depth` arrays deep. */
const nested = (depth) => {
  let v = "x";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

/** An input whose every property read throws, as a hostile or broken Proxy would. */
const hostile = () =>
  new Proxy({}, {
    get: () => { throw new Error("getter says no"); },
    has: () => { throw new Error("getter says no"); },
    ownKeys: () => { throw new Error("getter says no"); },
  });

/** Still works: a write, a read, and the store holds `n` memories. */
async function stillWorks(mem, n) {
  await mem.remember("still works after that");
  assert.equal(mem.count(), n + 1);
  assert.ok((await mem.list()).some((m) => m.text === "still works after that"));
}

// ---- error codes ---------------------------------------------------------------------------

test("every error code the core defines maps to an error class in errors.ts", () => {
  const src = readFileSync(new URL("../../crates/engram-core/src/error.rs", import.meta.url), "utf8");
  const body = src.slice(src.indexOf("pub fn code(&self)"));
  const codes = [...body.slice(0, body.indexOf("\n    }\n")).matchAll(/=>\s*"([A-Z_]+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 15, `found only ${codes.length} codes in error.rs`);
  const { CODE_CLASSES, fromCore } = errors;
  assert.equal(typeof CODE_CLASSES, "object", "errors.ts exports CODE_CLASSES, its code -> class table");
  const missing = codes.filter((c) => !(c in CODE_CLASSES));
  assert.deepEqual(missing, [], "add these core codes to CODE_CLASSES in pkg/src/errors.ts");
  for (const c of codes) {
    const e = Object.assign(new Error("from the core"), { code: c });
    assert.ok(fromCore(e) instanceof CODE_CLASSES[c], `${c} becomes a ${CODE_CLASSES[c].name}`);
  }
});

test("unusable embedding tables and models are data errors, like unusable token tables", () => {
  for (const c of ["EMBED_TABLE", "EMBED_MODEL", "TOKEN_TABLE", "CHECKSUM"]) {
    const e = errors.fromCore(Object.assign(new Error("bad bytes"), { code: c }));
    assert.ok(e instanceof EngramDataError, `${c} is an EngramDataError, got ${e.constructor.name}`);
    assert.equal(e.code, c);
  }
  assert.ok(errors.fromCore(Object.assign(new Error("x"), { code: "NOT_FOUND" })) instanceof EngramInputError);
});

// ---- item 7: a trap in a read ----------------------------------------------------------------

test("a trap in a read rebuilds the instance from storage, and later reads and writes work", async () => {
  const mem = await open();
  await mem.remember("r lives in Oslo");
  assert.throws(() => mem._trapInReadForTests(), (e) => e instanceof EngramFatalError && e.code === "WASM_TRAP");
  const texts = (await mem.list()).map((m) => m.text);
  assert.deepEqual(texts, ["r lives in Oslo"]);
  assert.equal((await mem.recall("where does r live")).hits[0].record.text, "r lives in Oslo");
  await stillWorks(mem, 1);
  await mem.close();
});

test("a sync read while the rebuild runs says so, and idle() waits for the rebuild", async () => {
  const mem = await open();
  await mem.remember("r plays the cello");
  assert.throws(() => mem._trapInReadForTests(), EngramFatalError);
  assert.throws(() => mem.count(), (e) => e instanceof EngramFatalError && /being rebuilt from storage/.test(e.message));
  await mem.idle();
  assert.equal(mem.count(), 1);
  await stillWorks(mem, 1);
  await mem.close();
});

test("a write right after a trapped read waits for the rebuild and lands", async () => {
  const storage = new MemoryStorage();
  const mem = await Engram.open({ user: "w", storage, embedder: hashEmbedder(), tokenizer: false });
  await mem.remember("w one");
  assert.throws(() => mem._trapInReadForTests(), EngramFatalError);
  await mem.remember("w two");
  await mem.close();
  const again = await Engram.open({ user: "w", storage, embedder: hashEmbedder(), tokenizer: false });
  assert.deepEqual((await again.list()).map((m) => m.text).sort(), ["w one", "w two"]);
  await again.close();
});

test("a rebuild after a trap that fails because storage is down is retried by the next call", async () => {
  class DownStorage extends MemoryStorage {
    down = false;
    async get(key) {
      if (this.down) throw new Error("storage is down");
      return super.get(key);
    }
    async list(prefix) {
      if (this.down) throw new Error("storage is down");
      return super.list(prefix);
    }
  }
  const storage = new DownStorage();
  const mem = await Engram.open({ user: "d", storage, embedder: hashEmbedder(), tokenizer: false });
  await mem.remember("d keeps bees");
  storage.down = true;
  assert.throws(() => mem._trapInReadForTests(), EngramFatalError);
  await assert.rejects(mem.list(), /storage is down/);
  await assert.rejects(mem.remember("d keeps goats"), /storage is down/);
  storage.down = false;
  assert.deepEqual((await mem.list()).map((m) => m.text), ["d keeps bees"]);
  await stillWorks(mem, 1);
  await mem.close();
});

test("recall and buildContext with k of ten million are refused INVALID_INPUT and the instance keeps working", async () => {
  const mem = await open();
  await mem.remember("r works at a bakery");
  await assert.rejects(mem.recall("where does r work", { k: 1e7 }), code("INVALID_INPUT"));
  await assert.rejects(mem.buildContext("where does r work", { k: 1e7 }), code("INVALID_INPUT"));
  await assert.rejects(mem.recall("where does r work", { k: 1001 }), code("INVALID_INPUT"));
  assert.equal((await mem.recall("where does r work", { k: 1000 })).hits.length, 1);
  await stillWorks(mem, 1);
  await mem.close();
});

// ---- item 6: nesting, poisoned handles, close(), a token table loading ------------------------

test("values nested 5,000 levels deep or cyclic are refused INVALID_INPUT and the instance keeps working", async () => {
  const mem = await open();
  const cyclic = { name: "loop", kind: "thing" };
  cyclic.self = cyclic;
  const cyclicTags = ["a"];
  cyclicTags.push(cyclicTags);
  const attempts = [
    ["tags", () => mem.remember({ text: "deep tags", tags: nested(5000) })],
    ["key", () => mem.remember({ text: "deep key", key: { subject: nested(5000), attribute: "a" } })],
    ["graph", async () => mem.graph({ template: "path", from: nested(5000) })],
    ["relate", () => mem.relate(nested(5000), "knows", { name: "b", kind: "person" })],
    ["33 levels", () => mem.remember({ text: "deep tags", tags: nested(33) })],
    ["cyclic tags", () => mem.remember({ text: "cyclic tags", tags: cyclicTags })],
    ["cyclic relate", () => mem.relate(cyclic, "knows", { name: "b", kind: "person" })],
  ];
  for (const [what, f] of attempts) {
    await assert.rejects(f(), code("INVALID_INPUT"), what);
    assert.equal(mem.count(), 0, `${what}: nothing written, and the instance answers`);
  }
  await stillWorks(mem, 0);
  await mem.close();
});

test("an input whose getters throw leaves a working instance, and close() resolves", async () => {
  const mem = await open();
  await mem.remember("r likes tea");
  await assert.rejects(mem.remember({ text: "hostile key", key: hostile() }), EngramError);
  assert.equal(mem.count(), 1);
  assert.throws(() => mem.graph(hostile()), EngramError);
  await mem.idle();
  assert.equal(mem.count(), 1);
  await stillWorks(mem, 1);
  await mem.close();
});

test("close() right after a trapped read resolves", async () => {
  const mem = await open();
  assert.throws(() => mem._trapInReadForTests(), EngramFatalError);
  await mem.close();
  await assert.rejects(mem.list(), code("CLOSED"));
});

test("a token table that finishes loading after the instance failed and closed does not crash the process", async () => {
  const table = readFileSync(new URL("../assets/o200k_base.engtok", import.meta.url));
  let release;
  const gate = new Promise((r) => (release = r));
  const crashes = [];
  const onCrash = (e) => crashes.push(e);
  process.on("unhandledRejection", onCrash);
  process.on("uncaughtException", onCrash);
  try {
    const mem = await open("t", { tokenizer: { table: async () => (await gate, new Uint8Array(table)) } });
    await assert.rejects(mem.remember({ text: "hostile key", key: hostile() }), EngramError);
    await mem.close();
    release();
    await sleep(100);
    assert.deepEqual(crashes.map((e) => e.message), []);
  } finally {
    process.off("unhandledRejection", onCrash);
    process.off("uncaughtException", onCrash);
  }
});

test("a token table that finishes loading while the instance rebuilds after a trap is used by the rebuilt one", async () => {
  const table = readFileSync(new URL("../assets/o200k_base.engtok", import.meta.url));
  let release;
  const gate = new Promise((r) => (release = r));
  const mem = await open("t2", { tokenizer: { table: async () => (await gate, new Uint8Array(table)) } });
  assert.equal(mem.countTokens("hello world").exact, false);
  assert.throws(() => mem._trapInReadForTests(), EngramFatalError);
  release();
  await mem.tokenizerReady();
  await mem.idle();
  assert.equal(mem.countTokens("hello world").exact, true);
  await mem.close();
});

// ---- item 8: observe, session state, recent, append, countTokens ------------------------------

test("a failed observe() writes none of its turns", async () => {
  const mem = await open();
  const ok = { role: "user", text: "I live in Oslo and I prefer Python." };
  const bad = [
    [ok, { role: "user", text: 42 }],
    [ok, null],
    [ok, "just a string"],
    [ok, { role: 7, text: "role is a number" }],
    [ok, { text: "no role" }],
    [ok, { role: "robot", text: "not a role" }], // refused by the core after the first turn went in
  ];
  for (const turns of bad) {
    await assert.rejects(mem.observe(turns, { session: "s" }), code("INVALID_INPUT"), JSON.stringify(turns[1]));
    assert.equal((await mem.session("s").recent()).length, 0, `${JSON.stringify(turns[1])}: no turn written`);
    assert.equal(mem.count(), 0, `${JSON.stringify(turns[1])}: nothing remembered`);
  }
  const out = await mem.observe([ok, { role: "assistant", text: "Noted." }], { session: "s" });
  assert.equal(out.turns.length, 2);
  assert.deepEqual((await mem.session("s").recent()).map((t) => t.text), [ok.text, "Noted."]);
  await mem.close();
});

test("a failed rememberMany() writes none of its memories, now or with the next write", async () => {
  const storage = new MemoryStorage();
  const mem = await Engram.open({ user: "m", storage, embedder: false, tokenizer: false });
  await mem.remember("m likes tea");
  await assert.rejects(mem.rememberMany(["m likes chess", { text: "m bad vector", embedding: new Float32Array([NaN, 1]) }]), code("BAD_EMBEDDING"));
  assert.deepEqual((await mem.list()).map((r) => r.text), ["m likes tea"]);
  await mem.remember("m likes coffee");
  await mem.close();
  const again = await Engram.open({ user: "m", storage, embedder: false, tokenizer: false });
  assert.deepEqual((await again.list()).map((r) => r.text).sort(), ["m likes coffee", "m likes tea"]);
  await again.close();
});

test("observe() without options, without a session, or with a non-array is refused INVALID_INPUT", async () => {
  const mem = await open();
  const turns = [{ role: "user", text: "I live in Oslo." }];
  await assert.rejects(mem.observe(turns), code("INVALID_INPUT"));
  await assert.rejects(mem.observe(turns, {}), code("INVALID_INPUT"));
  await assert.rejects(mem.observe(turns, { session: "" }), code("INVALID_INPUT"));
  await assert.rejects(mem.observe(null, { session: "s" }), code("INVALID_INPUT"));
  await assert.rejects(mem.observe([null], { session: "s" }), code("INVALID_INPUT"));
  assert.equal(mem.count(), 0);
  await mem.close();
});

test("session.set() of a cyclic object, a BigInt, undefined or a function is refused INVALID_INPUT", async () => {
  const mem = await open();
  const s = mem.session("s");
  const cyclic = {};
  cyclic.self = cyclic;
  for (const v of [cyclic, 10n, { n: 1n }, undefined, () => 1, Symbol("x")]) {
    await assert.rejects(s.set("k", v), code("INVALID_INPUT"), String(typeof v));
  }
  assert.deepEqual(await s.state(), {});
  await s.set("k", { fine: true });
  assert.deepEqual(await s.get("k"), { fine: true });
  await mem.close();
});

test("session-state keys that are not strings, or hold a NUL byte or a megabyte of text, are refused before anything is written", async () => {
  const mem = await open();
  const s = mem.session("s");
  await assert.rejects(s.set(42, "value"), code("INVALID_INPUT"));
  await assert.rejects(s.set("a\0b", 1), code("INVALID_INPUT"));
  await assert.rejects(s.set("k".repeat(1 << 20), 1), (e) => e instanceof EngramInputError);
  assert.deepEqual(await s.state(), {});
  assert.equal(await mem.pendingSync(), 0);
  await mem.close();
});

test("recent() refuses a negative, fractional or non-numeric n, and a huge n returns every turn", async () => {
  const mem = await open();
  const s = mem.session("s");
  for (const t of ["one", "two", "three"]) await s.append("user", t);
  for (const n of [-1, 1.5, NaN, Infinity, "2", null]) {
    await assert.rejects(s.recent(n), code("INVALID_INPUT"), String(n));
  }
  assert.equal((await s.recent(0)).length, 0);
  assert.deepEqual((await s.recent(2)).map((t) => t.text), ["two", "three"]);
  assert.equal((await s.recent(2 ** 32)).length, 3);
  assert.equal((await s.recent()).length, 3);
  await mem.close();
});

test("append() with a non-string role or one outside user, assistant, system and tool is refused INVALID_INPUT", async () => {
  const mem = await open();
  const s = mem.session("s");
  for (const role of [7, null, undefined, {}, "robot", "USER", "rule-extracted", "llm-extracted"]) {
    await assert.rejects(s.append(role, "hello there"), code("INVALID_INPUT"), String(role));
  }
  await assert.rejects(s.append("user", 42), code("INVALID_INPUT"));
  assert.equal((await s.recent()).length, 0);
  await s.append("tool", "ran the tests");
  await stillWorks(mem, 1);
  await mem.close();
});

test("countTokens refuses a non-string, and text over 4 MiB with TEXT_TOO_LARGE", async () => {
  const mem = await open();
  for (const v of [42, null, undefined, {}]) assert.throws(() => mem.countTokens(v), code("INVALID_INPUT"), String(v));
  assert.throws(() => mem.countTokens("a".repeat(4 * 1024 * 1024 + 1)), code("TEXT_TOO_LARGE"));
  assert.ok(mem.countTokens("a ".repeat(1000)).tokens > 0);
  await stillWorks(mem, 0);
  await mem.close();
});

// ---- item 3/8: the core's limits on what is written ------------------------------------------

test("a text with no visible characters is refused INVALID_INPUT, in memories, turns and observed batches", async () => {
  const mem = await open();
  for (const text of ["\0\0\0", "\0 \u0001\t\n", "\u0007"]) {
    await assert.rejects(mem.remember(text), code("INVALID_INPUT"), JSON.stringify(text));
    await assert.rejects(mem.session("s").append("user", text), code("INVALID_INPUT"), JSON.stringify(text));
    await assert.rejects(mem.observe([{ role: "user", text: "I live in Oslo." }, { role: "user", text }], { session: "s" }), code("INVALID_INPUT"));
  }
  assert.equal(mem.count(), 0);
  assert.equal((await mem.session("s").recent()).length, 0);
  await mem.close();
});

test("observedAt below zero is refused INVALID_INPUT", async () => {
  const mem = await open();
  await assert.rejects(mem.remember({ text: "long ago", observedAt: -1e15 }), code("INVALID_INPUT"));
  await assert.rejects(mem.remember({ text: "just before 1970", observedAt: -1 }), code("INVALID_INPUT"));
  assert.equal(mem.count(), 0);
  await mem.remember({ text: "at the epoch", observedAt: 0 });
  assert.equal(mem.count(), 1);
  await mem.close();
});

test("key fields with a NUL byte, a control character or a megabyte of text are refused before anything is queued for sync", async () => {
  const stub = async () => new Response(null, { status: 503 });
  const mem = await open("k", { sync: { url: "http://origin.invalid", token: "t", background: false, fetch: stub } });
  const bad = [
    { subject: "zhang\0san", attribute: "language" },
    { subject: "zhang san", attribute: "lang\u0001uage" },
    { subject: "zhang san", attribute: "x".repeat(1 << 20) },
    { subject: "s".repeat(1 << 20), attribute: "language" },
  ];
  for (const key of bad) {
    await assert.rejects(mem.remember({ text: "a fact with a bad key", key }), (e) => e instanceof EngramInputError, JSON.stringify(key).slice(0, 60));
  }
  assert.equal(mem.count(), 0);
  assert.equal(await mem.pendingSync(), 0);
  await mem.close();
});

// ---- item 10: sync backoff -------------------------------------------------------------------

test("one failed sync round during an outage counts as one retry, however many writes poke it meanwhile", async () => {
  let calls = 0;
  let answer;
  const outage = new Promise((r) => (answer = r));
  const fetch = async () => {
    calls++;
    await outage; // the origin waits on its database, then gives up
    return new Response(JSON.stringify({ error: { code: "UNAVAILABLE", message: "database down" } }), { status: 503 });
  };
  const mem = await open("b", { sync: { url: "http://origin.invalid", token: "t", fetch, debounceMs: 1, intervalMs: 60_000, backoff: { baseMs: 500, maxMs: 60_000 }, random: () => 0.999 } });
  const errors = [];
  mem.on((e) => e.type === "sync-error" && errors.push(e));
  await sleep(20);
  for (let i = 0; i < 30; i++) {
    await mem.remember(`b wrote note ${i}`);
    await sleep(5);
  }
  answer();
  await sleep(50);
  assert.deepEqual(errors.map((e) => e.attempt), [1], "one failure, one attempt");
  assert.ok(errors[0].retryInMs < 500, `first retry within the base delay, got ${errors[0].retryInMs} ms`);
  assert.equal(calls, 1, "no request until the backoff delay has passed");
  await mem.close();
});

test("a write made while a sync round is in flight is pushed right after that round, not at the next interval", async () => {
  let calls = 0;
  let answer;
  const slow = new Promise((r) => (answer = r));
  const fetch = async () => {
    if (++calls === 1) await slow;
    return new Response(null, { status: 200, headers: { "x-engram-cursor": "0" } });
  };
  const mem = await open("c", { sync: { url: "http://origin.invalid", token: "t", fetch, debounceMs: 1, intervalMs: 60_000 } });
  await sleep(20); // the first round (empty outbox) is waiting on the origin
  await mem.remember("c wrote this during the round");
  await sleep(20);
  assert.equal(await mem.pendingSync(), 1);
  answer();
  await sleep(100);
  assert.equal(calls, 2, "one more round right after the slow one");
  assert.equal(await mem.pendingSync(), 0, "the write reached the origin");
  await mem.close();
});
