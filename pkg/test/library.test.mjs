// The tenant library through the SDK on the real wasm core: documents the operator shares
// with every user of the tenant, written through the documents' own pipeline (chunked,
// embedded), searched beside the user's own with `shared` on each hit, persisted, and
// pulled from the origin read-only by a user's replica.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, MemoryStorage } from "../dist/entrypoints/node.js";
import { encodeFrames } from "../dist/sync/frames.js";
import { clock, hashEmbedder } from "./helpers.mjs";
import { startOrigin, token } from "./origin.mjs";

const handbook = { id: "handbook", title: "Employee handbook", text: "# Leave\n\nStaff get 25 days of paid annual leave a year.\n\n# Travel\n\nBook trains over flights for trips under five hours.", metadata: { owner: "hr" }, chunkTokens: 16, chunkOverlap: 0 };

test("library documents are put, read and deleted apart from the user's documents, and searched beside them as shared", async () => {
  const c = clock();
  const storage = new MemoryStorage();
  let mem = await Engram.open({ user: "alice", tenant: "acme", storage, now: c.now, embedder: hashEmbedder() });
  try {
    const chunks = await mem.library.put(handbook);
    assert.ok(chunks.length >= 2, JSON.stringify(chunks));
    assert.deepEqual(await mem.library.put(handbook), chunks, "the same document again keeps its chunk ids");
    await mem.documents.put({ id: "notes", text: "My trip notes: the train to Shanghai leaves at nine." });
    const got = await mem.library.get("handbook");
    assert.deepEqual([got.title, got.text, got.metadata, got.chunks], ["Employee handbook", handbook.text, { owner: "hr" }, chunks]);
    assert.deepEqual((await mem.library.list()).map((d) => [d.id, d.text]), [["handbook", null]], "listed without its text");
    assert.deepEqual((await mem.documents.list()).map((d) => d.id), ["notes"], "the user's own documents only");

    const leave = await mem.documents.search("how many days of paid annual leave", { k: 3 });
    assert.deepEqual([leave[0].document, leave[0].shared], ["handbook", true], JSON.stringify(leave));
    assert.ok(leave[0].text.includes("25 days"));
    const trip = await mem.documents.search("when does the train to Shanghai leave", { k: 3 });
    assert.deepEqual([trip[0].document, trip[0].shared], ["notes", false], JSON.stringify(trip));
    const ctx = await mem.buildContext("how many days of paid annual leave", { budget: 400 });
    assert.ok(/\(shared document "Employee handbook", part \d of \d\)/.test(ctx.text), ctx.text);
    assert.ok(!ctx.text.includes("<agent-instructions>"), "a library document is data, never an instruction");

    // Persisted: a reopened store has it; forgetting the user leaves it.
    await mem.close();
    mem = await Engram.open({ user: "alice", tenant: "acme", storage, now: c.now, embedder: hashEmbedder() });
    assert.deepEqual((await mem.library.list()).map((d) => d.id), ["handbook"]);
    await mem.forgetUser();
    assert.deepEqual(await mem.documents.list(), []);
    assert.deepEqual((await mem.library.list()).map((d) => d.id), ["handbook"]);

    await assert.rejects(mem.library.get("nope"), (e) => e.code === "NOT_FOUND");
    await assert.rejects(mem.library.put({ id: "", text: "x" }), (e) => e.code === "INVALID_INPUT");
    await assert.rejects(mem.library.put({ id: "x" }), (e) => e.code === "INVALID_INPUT");
    assert.equal(await mem.library.delete("handbook"), true);
    assert.equal(await mem.library.delete("handbook"), false);
    assert.deepEqual(await mem.library.list(), []);
    assert.deepEqual(await mem.documents.search("paid annual leave"), [], "its chunks went with it");
  } finally {
    await mem.close();
  }
});

test("a store that syncs with the user's token refuses to write the library", async () => {
  const mem = await Engram.open({ user: "dave", tenant: "acme", embedder: hashEmbedder(), sync: { url: "http://127.0.0.1:9", token: "t", background: false } });
  try {
    await assert.rejects(mem.library.put(handbook), (e) => e.code === "INVALID_INPUT" && /origin refuses/.test(e.message));
    await assert.rejects(mem.library.delete("handbook"), (e) => e.code === "INVALID_INPUT");
    assert.deepEqual(await mem.library.list(), []);
  } finally {
    await mem.close();
  }
});

/** The operator's console: a store without sync whose new op batches it pushes itself with the library partition's token. */
async function operatorConsole(o, tenant) {
  const storage = new MemoryStorage();
  const mem = await Engram.open({ user: "console", tenant, storage, embedder: false, tokenizer: false });
  const sent = new Set();
  const push = async () => {
    const keys = (await storage.list("")).filter((k) => /\/ops\//.test(k) && !sent.has(k));
    const frames = [];
    for (const k of keys) frames.push({ id: `console-${k}`, ops: await storage.get(k) });
    const res = await fetch(`${o.url}/v1/sync?after=0`, { method: "POST", headers: { authorization: `Bearer ${token("~library", { tenant })}` }, body: encodeFrames(frames) });
    assert.equal(res.status, 200, await res.text());
    keys.forEach((k) => sent.add(k));
    return frames.length;
  };
  return { mem, push };
}

test("a user's replica pulls the tenant's library from the origin, finds it beside its own documents, and loses a deleted one on its next sync", async () => {
  const o = await startOrigin();
  try {
    const op = await operatorConsole(o, "acme");
    await op.mem.library.put(handbook);
    await op.mem.library.put({ id: "menu", title: "Canteen", text: "Lunch is served at noon; the canteen offers noodles." });
    assert.ok((await op.push()) >= 1);
    const other = await operatorConsole(o, "globex");
    await other.mem.library.put({ id: "globex-only", text: "Globex staff get 40 days of paid annual leave." });
    await other.push();

    const storage = new MemoryStorage();
    const open = () => Engram.open({ user: "dave", tenant: "acme", storage, embedder: false, tokenizer: false, sync: { url: o.url, token: token("dave", { tenant: "acme" }), background: false } });
    let mem = await open();
    await mem.documents.put({ id: "notes", text: "Dave's notes: ask about noodles at the canteen on Friday." });
    const r1 = await mem.sync();
    assert.ok(r1.libraryCursor > 0 && r1.pulled >= 1, JSON.stringify(r1));
    assert.deepEqual((await mem.library.list()).map((d) => d.id).sort(), ["handbook", "menu"], "acme's library, not globex's");
    const leave = await mem.documents.search("how many days of paid annual leave");
    assert.ok(leave[0].shared && leave[0].text.includes("25 days") && leave.every((h) => !h.text.includes("40 days")), JSON.stringify(leave));
    const noodles = await mem.documents.search("noodles at the canteen", { k: 4 });
    assert.deepEqual(noodles.map((h) => [h.document, h.shared]).sort(), [["menu", true], ["notes", false]], "ranked together with the user's own");
    await assert.rejects(mem.library.delete("menu"), (e) => e.code === "INVALID_INPUT", "still read-only for the user");

    // The cursors are persisted: a reopened replica pulls nothing it has.
    await mem.close();
    mem = await open();
    const r2 = await mem.sync();
    assert.equal(r2.pulled, 0, JSON.stringify(r2));
    assert.deepEqual([r2.libraryCursor, r2.proceduresCursor], [r1.libraryCursor, r1.proceduresCursor]);

    // The operator deletes one: the user's next sync removes it and its chunks.
    assert.equal(await op.mem.library.delete("menu"), true);
    await op.push();
    const r3 = await mem.sync();
    assert.ok(r3.libraryCursor > r1.libraryCursor && r3.pulled >= 1, JSON.stringify(r3));
    assert.deepEqual((await mem.library.list()).map((d) => d.id), ["handbook"]);
    assert.deepEqual((await mem.documents.search("noodles at the canteen", { k: 4 })).map((h) => [h.document, h.shared]), [["notes", false]]);

    // Forgetting the user at the origin leaves the library: a new replica of dave gets it.
    await mem.forgetUser();
    await mem.sync();
    const fresh = await Engram.open({ user: "dave", tenant: "acme", storage: new MemoryStorage(), embedder: false, tokenizer: false, sync: { url: o.url, token: token("dave", { tenant: "acme" }), background: false } });
    await fresh.sync();
    assert.deepEqual((await fresh.library.list()).map((d) => d.id), ["handbook"]);
    assert.deepEqual(await fresh.documents.list(), []);
    await Promise.all([mem.close(), fresh.close(), op.mem.close(), other.mem.close()]);
  } finally {
    await o.kill();
  }
});
