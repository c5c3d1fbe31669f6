// Archival documents through the SDK over the real wasm build: put, replace, get, list,
// delete and search of chunks; what is embedded; persistence; forgetting; typed errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, MemoryStorage, EngramInputError, EngramError } from "../dist/entrypoints/node.js";
import { hashEmbedder, clock } from "./helpers.mjs";

function handbook() {
  let s = "# Employee handbook\n\n";
  for (const [i, topic] of ["leave", "travel", "expenses", "security", "equipment", "training"].entries()) {
    s += `## Section ${i}: ${topic}\n\n`;
    for (let j = 0; j < 6; j++) s += `Rule ${j} about ${topic} policy number ${i}${j}: employees follow the ${topic} guideline carefully. `;
    s += "\n\n";
  }
  return s + "## Holidays\n\nStaff get 25 days of paid annual leave, plus public holidays in Hangzhou.\n\n员工每年有二十五天带薪年假。";
}

const doc = (id, text) => ({ id, text, title: `The ${id}`, source: "intranet", tags: ["hr"], metadata: { owner: "hr", v: 1 }, chunkTokens: 64, chunkOverlap: 8 });

test("documents.put chunks and embeds a document, get gives it back whole, list without text", async () => {
  const embedder = hashEmbedder();
  const seen = [];
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (texts) => (seen.push(...texts), embed(texts));
  const mem = await Engram.open({ user: "alice", now: clock().now, embedder });
  await mem.tokenizerReady();
  const text = handbook();
  const chunks = await mem.documents.put(doc("handbook", text));
  assert.ok(chunks.length > 5, `${chunks.length} chunks`);
  assert.equal(seen.length, new Set(chunks).size, "each distinct chunk embedded once");
  const got = await mem.documents.get("handbook");
  assert.equal(got.text, text);
  assert.deepEqual([got.title, got.source, got.tags, got.metadata, got.chunks], ["The handbook", "intranet", ["hr"], { owner: "hr", v: 1 }, chunks]);
  const listed = await mem.documents.list();
  assert.deepEqual(listed.map((d) => [d.id, d.text]), [["handbook", null]]);
  assert.deepEqual(await mem.list(), [], "documents are not memories");
  // The same text again embeds and writes nothing; an edit only the chunks it touches.
  seen.length = 0;
  assert.deepEqual(await mem.documents.put(doc("handbook", text)), chunks);
  assert.equal(seen.length, 0);
  const edited = text.replace("25 days", "28 days");
  const again = await mem.documents.put(doc("handbook", edited));
  assert.ok(seen.length >= 1 && seen.length <= 2, `${seen.length} chunks embedded`);
  assert.equal(again.filter((c) => !chunks.includes(c)).length, seen.length);
  assert.equal((await mem.documents.get("handbook")).text, edited);
  await mem.close();
});

test("documents.search names the document, position and neighbours of each chunk, and buildContext has a documents section", async () => {
  const mem = await Engram.open({ user: "alice", now: clock().now, embedder: hashEmbedder() });
  await mem.tokenizerReady();
  const chunks = await mem.documents.put(doc("handbook", handbook()));
  await mem.documents.put(doc("menu", "Lunch is served at noon. The canteen offers noodles and dumplings."));
  const [top] = await mem.documents.search("how many days of paid annual leave", { k: 3 });
  assert.equal(top.document, "handbook");
  assert.match(top.text, /25 days/);
  assert.equal(chunks[top.position], top.chunk);
  assert.equal(top.count, chunks.length);
  assert.equal(top.previous, chunks[top.position - 1]);
  assert.equal(top.next, chunks[top.position + 1] ?? null);
  const ctx = await mem.buildContext("how many days of paid annual leave do staff get", { budget: 900 });
  assert.ok(ctx.tokens <= 900);
  assert.match(ctx.text, /<memory-data[^]*\[documents\][^]*25 days[^]*<\/memory-data>/);
  const none = await mem.buildContext("how many days of paid annual leave", { budget: 900, archivalK: 0 });
  assert.doesNotMatch(none.text, /\[documents\]/);
  await mem.close();
});

test("documents persist across a reopen; delete and forgetUser remove them and their chunks", async () => {
  const storage = new MemoryStorage();
  const c = clock();
  let mem = await Engram.open({ user: "alice", storage, now: c.now, embedder: hashEmbedder() });
  await mem.documents.put(doc("handbook", handbook()));
  await mem.documents.put(doc("menu", "Lunch is served at noon."));
  await mem.close();
  mem = await Engram.open({ user: "alice", storage, now: c.now, embedder: hashEmbedder() });
  assert.equal((await mem.documents.get("handbook")).text, handbook());
  assert.equal(await mem.documents.delete("handbook"), true);
  assert.equal(await mem.documents.delete("handbook"), false);
  await assert.rejects(mem.documents.get("handbook"), (e) => e instanceof EngramError && e.code === "NOT_FOUND");
  assert.equal((await mem.list({ kinds: ["chunk"] })).length, 1);
  assert.ok((await mem.documents.search("paid annual leave")).every((h) => h.document === "menu"));
  await mem.forgetUser();
  assert.deepEqual(await mem.documents.list(), []);
  assert.equal(mem.count(), 0);
  await mem.close();
});

test("bad documents are refused with typed errors and nothing is written", async () => {
  const mem = await Engram.open({ user: "alice", now: clock().now, embedder: hashEmbedder() });
  const code = async (d) => mem.documents.put(d).then(() => "ok", (e) => (e instanceof EngramInputError ? e.code : `not an input error: ${e}`));
  assert.equal(await code(null), "INVALID_INPUT");
  assert.equal(await code({ id: "", text: "x" }), "INVALID_INPUT");
  assert.equal(await code({ id: "x", text: "   " }), "INVALID_INPUT");
  assert.equal(await code({ id: "x", text: "hello", chunkTokens: 2 }), "INVALID_INPUT");
  assert.equal(await code({ id: "x", text: "hello", chunkTokens: 1.5 }), "INVALID_INPUT");
  assert.equal(await code({ id: "x", text: "hello", tags: "hr" }), "INVALID_INPUT");
  assert.equal(await code({ id: "x", text: 42 }), "INVALID_INPUT");
  assert.equal(mem.count(), 0);
  await mem.close();
});
