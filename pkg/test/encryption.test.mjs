// Encryption at rest: with a user-held key, no memory text reaches storage, the wire or the
// origin's database in the clear — and recall, sync, last-writer-wins and forget still work.
// The real wasm core, the real origin (engram-origin over SecantusDB), the raw bytes read back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Engram, EngramInputError, MemoryStorage, NodeFileStorage } from "../dist/entrypoints/node.js";
import { hashEmbedder } from "./helpers.mjs";
import { originMemories, startOrigin, token } from "./origin.mjs";

const KEY = new Uint8Array(32).map((_, i) => i * 7 + 1);
const OTHER_KEY = new Uint8Array(32).map((_, i) => 255 - i);

// Words that appear only in memory text (never in a key, tag, id or session name).
const FACT = "Zephyrine hides the quince marmalade recipe inside the cobalt tin";
const TURN = "Please write to zephyrine.q@example.org about the persimmon harvest";
const SUMMARY = "We talked about quince marmalade and the persimmon harvest";
const SECRETS = ["Zephyrine", "zephyrine", "quince", "marmalade", "cobalt", "persimmon", "example.org"];

const open = (user, storage, extra = {}) =>
  Engram.open({ user, storage, embedder: hashEmbedder(), tokenizer: false, encryption: { key: KEY }, ...extra });
const syncTo = (user, url, f) => ({ url, token: token(user), background: false, ...(f ? { fetch: f } : {}) });
const isKeyError = (e) => e instanceof EngramInputError && e.code === "ENCRYPTION_KEY";

/** The secrets found in `bytes` (as UTF-8, and as UTF-16 in case a backend stored strings). */
function leaks(bytes) {
  const buf = Buffer.from(bytes);
  return SECRETS.filter((s) => buf.includes(Buffer.from(s, "utf8")) || buf.includes(Buffer.from(s, "utf16le")));
}

/** Every raw value of a MemoryStorage, concatenated. */
async function rawValues(storage) {
  const keys = await storage.list("");
  assert.ok(keys.length > 0);
  return Buffer.concat(await Promise.all(keys.map(async (k) => Buffer.from(await storage.get(k)))));
}

/** Every file under `dir`, concatenated. */
async function rawFiles(dir) {
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = names.filter((d) => d.isFile()).map((d) => join(d.parentPath ?? d.path, d.name));
  assert.ok(files.length > 0);
  return Buffer.concat(await Promise.all(files.map((f) => readFile(f))));
}

/** Every document of the origin's database, as raw BSON (read with pymongo from SecantusDB's own venv). */
function originDocuments(db) {
  const python = fileURLToPath(new URL("../../.ci-mongo/venv/bin/python", import.meta.url));
  const script = [
    "import sys, bson, pymongo",
    "d = pymongo.MongoClient(sys.argv[1])[sys.argv[2]]",
    "for c in d.list_collection_names():",
    "    for doc in d[c].find(): sys.stdout.buffer.write(bson.encode(doc))",
  ].join("\n");
  return execFileSync(python, ["-c", script, process.env.MONGODB_URI ?? "mongodb://127.0.0.1:27017/", db], { maxBuffer: 64 << 20 });
}

/** A fetch that records every request body it sends. */
function recordingFetch() {
  const bodies = [];
  const f = async (url, init) => {
    if (init?.body) bodies.push(Buffer.from(init.body));
    return fetch(url, init);
  };
  return { f, bodies };
}

async function writeSecrets(mem) {
  const fact = await mem.remember(FACT);
  await mem.remember({ text: "The office opens at nine", sensitivity: "public" });
  const chat = mem.session("chat");
  await chat.append("user", TURN);
  await chat.setSummary(SUMMARY);
  await chat.set("mood", "calm");
  return fact.id;
}

test("with a key, no memory text is in any stored byte (memory and files) after writes, compaction and sync, and recall works after reopening", async () => {
  const o = await startOrigin();
  try {
    const mem = new MemoryStorage();
    const dir = await mkdtemp(join(tmpdir(), "engram-enc-"));
    for (const storage of [mem, new NodeFileStorage(dir)]) {
      const user = storage === mem ? "ada" : "ben";
      const a = await open(user, storage, { compactEvery: 3, sync: syncTo(user, o.url) });
      await writeSecrets(a);
      await a.compact();
      await a.remember("One more note after the quince snapshot");
      await a.sync();
      await a.close();
      const raw = storage === mem ? await rawValues(mem) : await rawFiles(dir);
      assert.deepEqual(leaks(raw), [], `nothing readable in ${storage === mem ? "MemoryStorage values" : "NodeFileStorage files"}`);

      const again = await open(user, storage);
      assert.equal(again.openReport.corrupt.length, 0);
      const hits = (await again.recall("where is the marmalade recipe?")).hits.map((h) => h.record.text);
      assert.ok(hits.includes(FACT), `recalled after reopening: ${JSON.stringify(hits)}`);
      const turns = (await again.session("chat").recent()).map((t) => t.text);
      assert.equal(turns.length, 1);
      assert.ok(turns[0].startsWith("Please write to ") && turns[0].endsWith(" about the persimmon harvest"), turns[0]);
      assert.equal(await again.session("chat").get("mood"), "calm");
      await again.close();
    }
    // Without the feature the same bytes hold the text: the check above can fail.
    const plain = new MemoryStorage();
    const p = await Engram.open({ user: "cy", storage: plain, embedder: false, tokenizer: false });
    await p.remember(FACT);
    await p.close();
    assert.ok(leaks(await rawValues(plain)).includes("marmalade"));
  } finally {
    await o.kill();
  }
});

test("a wrong key, a missing key and a key on a plaintext store are ENCRYPTION_KEY errors that change nothing", async () => {
  const storage = new MemoryStorage();
  const a = await open("dana", storage);
  await a.remember(FACT);
  await a.close();
  const before = await rawValues(storage);

  await assert.rejects(open("dana", storage, { encryption: { key: OTHER_KEY } }), isKeyError);
  await assert.rejects(Engram.open({ user: "dana", storage, embedder: hashEmbedder(), tokenizer: false }), isKeyError);
  await assert.rejects(open("dana", storage, { encryption: { key: new Uint8Array(16) } }), (e) => e.code === "INVALID_INPUT");
  assert.deepEqual(await rawValues(storage), before, "refused opens wrote nothing");

  const b = await open("dana", storage);
  assert.deepEqual((await b.list()).map((r) => r.text), [FACT]);
  await b.close();

  // A CryptoKey works too, the same key as raw bytes.
  const ck = await crypto.subtle.importKey("raw", KEY, "AES-GCM", false, ["encrypt", "decrypt"]);
  const c = await open("dana", storage, { encryption: { key: ck } });
  assert.equal(c.count(), 1);
  await c.close();

  const plain = new MemoryStorage();
  const p = await Engram.open({ user: "eve", storage: plain, embedder: false, tokenizer: false });
  await p.remember("a plaintext store");
  await p.close();
  await assert.rejects(open("eve", plain), isKeyError);
  const again = await Engram.open({ user: "eve", storage: plain, embedder: false, tokenizer: false });
  assert.equal(again.count(), 1, "the plaintext store still opens without a key");
  await again.close();
});

test("an encrypted value altered or moved to another key does not open and counts as corrupt: the previous snapshot generation is used", async () => {
  for (const tamper of ["flip a byte", "move the previous generation over the current one"]) {
    const storage = new MemoryStorage();
    const a = await open("fay", storage, { compactEvery: 1000 });
    await a.remember(FACT);
    await a.compact();
    await a.remember("second note");
    await a.compact();
    await a.close();
    const keys = await storage.list("");
    const current = keys.find((k) => k.endsWith("snapshot/current"));
    const previous = keys.find((k) => k.endsWith("snapshot/previous"));
    const v = await storage.get(tamper === "flip a byte" ? current : previous);
    if (tamper === "flip a byte") v[v.length - 1] ^= 1;
    await storage.put(current, v);
    const b = await open("fay", storage);
    assert.equal(b.openReport.snapshot, "previous", tamper);
    assert.deepEqual(b.openReport.corrupt, ["snapshot/current"], tamper);
    assert.equal(b.count(), 2, tamper);
    await b.close();
  }
});

test("pushed frames and the origin's documents hold no memory text; a second device with the key pulls and recalls it, without or with another key it gets ENCRYPTION_KEY", async () => {
  const o = await startOrigin();
  try {
    const { f, bodies } = recordingFetch();
    const phone = await open("gus", new MemoryStorage(), { sync: syncTo("gus", o.url, f) });
    await writeSecrets(phone);
    await phone.sync();
    assert.ok(bodies.length > 0 && bodies.some((b) => b.length > 100));
    assert.deepEqual(leaks(Buffer.concat(bodies)), [], "nothing readable in the pushed op frames");

    const docs = originDocuments(o.db);
    assert.ok(docs.includes(Buffer.from("engram-opaque:v1:")), "the origin stored the opaque texts");
    assert.deepEqual(leaks(docs), [], "nothing readable in the origin's documents");
    const stored = await originMemories(o, "gus");
    assert.equal(stored.length, 3, "the origin's view lists the three memories");
    assert.deepEqual(stored.filter((m) => !m.text.startsWith("engram-opaque:v1:")).map((m) => m.text), ["The office opens at nine"], "public text stays readable");

    const laptop = await open("gus", new MemoryStorage(), { sync: syncTo("gus", o.url) });
    await laptop.sync();
    const hit = (await laptop.recall("marmalade recipe")).hits.find((h) => h.record.text === FACT);
    assert.ok(hit, "the laptop recalls the memory");
    assert.ok(hit.parts.vector !== null, "by its vector too: the embedding came back");
    assert.equal(await laptop.session("chat").get("mood"), "calm");

    for (const encryption of [undefined, { key: OTHER_KEY }]) {
      const other = await Engram.open({ user: "gus", storage: new MemoryStorage(), embedder: hashEmbedder(), tokenizer: false, encryption, sync: syncTo("gus", o.url) });
      await assert.rejects(other.sync(), isKeyError);
      assert.equal(other.count(), 0, "nothing garbled was applied");
      await other.close();
    }
    await Promise.all([phone.close(), laptop.close()]);
  } finally {
    await o.kill();
  }
});

test("with encryption, a fact superseded on another device, a forgotten memory and a forgotten user converge through the origin", async () => {
  const o = await startOrigin();
  try {
    const a = await open("hal", new MemoryStorage(), { sync: syncTo("hal", o.url) });
    const b = await open("hal", new MemoryStorage(), { sync: syncTo("hal", o.url) });
    await a.remember({ text: "Lives in Ouagadougou", key: { subject: "user", attribute: "city" } });
    const doomed = await a.remember(FACT);
    await a.sync();
    await b.sync();
    await b.remember({ text: "Lives in Tegucigalpa", key: { subject: "user", attribute: "city" } });
    await b.sync();
    await a.sync();
    const current = async (e) => (await e.list()).map((r) => r.text).sort();
    assert.deepEqual(await current(a), ["Lives in Tegucigalpa", FACT].sort(), "the newer value won on the first device");
    assert.deepEqual(await current(b), await current(a));
    const view = await originMemories(o, "hal");
    assert.equal(view.length, 2, "the origin's view keeps one current city and the fact");
    assert.ok(view.every((m) => m.text.startsWith("engram-opaque:v1:")));

    assert.equal(await b.forget(doomed.id), true);
    await b.sync();
    await a.sync();
    assert.deepEqual(await current(a), ["Lives in Tegucigalpa"]);
    assert.equal((await originMemories(o, "hal")).length, 1, "forgotten at the origin");

    await a.forgetUser();
    await a.sync();
    await b.sync();
    assert.equal(b.count(), 0);
    assert.equal((await originMemories(o, "hal")).length, 0, "the user is gone from the origin");
    await Promise.all([a.close(), b.close()]);
  } finally {
    await o.kill();
  }
});
