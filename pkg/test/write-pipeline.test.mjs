// The one write pipeline seen from the SDK: each write crosses into wasm twice (the core's
// `prepare`, then `commit` with the vectors), and the embedder sees each text once,
// exactly as stored, PII redacted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram } from "../dist/entrypoints/node.js";
import { hashEmbedder } from "./helpers.mjs";

/** An instance whose embedder records every text, and whose engine handle records every call. */
async function counted(opts = {}) {
  const embedder = hashEmbedder(32);
  const seen = [];
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (texts) => (seen.push(...texts), embed(texts));
  const mem = await Engram.open({ user: "p", embedder, tokenizer: false, ...opts });
  const calls = [];
  const life = mem["life"];
  const raw = life.handle;
  life.handle = new Proxy(raw, {
    get(target, p) {
      const v = Reflect.get(target, p);
      return typeof v === "function" ? (...args) => (calls.push(String(p)), v.apply(target, args)) : v;
    },
  });
  return { mem, calls, seen };
}

test("observe of one user turn stating one fact crosses into wasm twice, plus the write's one takePending", async () => {
  const { mem, calls } = await counted();
  const events = [];
  mem.on((e) => events.push(e));
  const out = await mem.observe([{ role: "user", text: "I work at Alibaba." }], { session: "s" });
  assert.equal(out.turns.length, 1);
  assert.equal(out.remembered.length, 1);
  assert.deepEqual(calls, ["prepare", "commit", "takePending"]);
  assert.deepEqual(events, [{ type: "turn", ids: out.turns }, { type: "remember", ids: [out.remembered[0].id] }], "the turn, then the fact");
  await mem.close();
});

test("rememberMany of many memories and a session append cross twice each, whatever the batch holds", async () => {
  const { mem, calls } = await counted();
  await mem.rememberMany(["likes tea", "plays chess", { text: "own vector", embedding: new Float32Array(32).fill(0.5) }]);
  assert.deepEqual(calls.splice(0), ["prepare", "commit", "takePending"]);
  await mem.session("s").append("user", "hello there");
  assert.deepEqual(calls.splice(0), ["prepare", "commit", "takePending"]);
  await mem.close();
});

test("each text is redacted once and embedded once, exactly as it is stored", async () => {
  const { mem, seen } = await counted();
  const out = await mem.observe([{ role: "user", text: "I work at Alibaba, mail me at bob@example.com" }], { session: "s" });
  const turn = (await mem.session("s").recent())[0].text;
  const fact = (await mem.list()).find((r) => r.id === out.remembered[0].id).text;
  assert.equal(turn, "I work at Alibaba, mail me at [EMAIL]");
  assert.deepEqual(seen, [turn, fact], "the turn and the fact, each once, as stored");
  assert.ok(!seen.some((t) => t.includes("bob@example.com")), "no raw value reached the embedder");
  await mem.rememberMany(["Call me at bob@example.com", "likes tea"]);
  assert.deepEqual(seen.slice(2), ["Call me at [EMAIL]", "likes tea"]);
  await mem.close();
});

test("a batch the core refuses in prepare writes nothing and emits nothing", async () => {
  const { mem, calls } = await counted();
  const events = [];
  mem.on((e) => events.push(e));
  await assert.rejects(mem.rememberMany(["fine", { text: "bad", importance: 7 }]), (e) => e.code === "INVALID_INPUT");
  await assert.rejects(mem.observe([{ role: "user", text: "I live in Oslo." }, { role: "robot", text: "beep" }], { session: "s" }), (e) => e.code === "INVALID_INPUT");
  assert.equal(calls.filter((c) => c === "commit").length, 0, "refused before commit");
  assert.equal(mem.count(), 0);
  assert.deepEqual(events, []);
  await mem.close();
});
