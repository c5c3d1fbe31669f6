// Every stored file of a store (snapshots, op batches, the outbox, meta documents, the encryption mark)
// × {flip a middle byte, flip the last byte, truncate to half, truncate to 0}, plaintext
// and encrypted, in a real directory (NodeFileStorage): the store opens, its report names
// what was damaged, the loss is at most that file's content (what opening without the file
// keeps), later writes succeed and are on disk after a reopen, and every error is typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, EngramError, MemoryStorage, NodeFileStorage } from "../dist/entrypoints/node.js";
import { startOrigin, token } from "./origin.mjs";

const KEY = new Uint8Array(32).map((_, i) => i * 7 + 1);
const DAMAGES = {
  "flip a middle byte": (b) => b.map((x, i) => (i === b.length >> 1 ? x ^ 0x20 : x)),
  "flip the last byte": (b) => b.map((x, i) => (i === b.length - 1 ? x ^ 0x01 : x)),
  "truncate to half": (b) => b.subarray(0, b.length >> 1),
  "truncate to 0": (b) => b.subarray(0, 0),
};
// Sync to an origin that is not there (port 9, never synced: background off), so that
// the outbox holds every batch too.
const SYNC = { url: "http://127.0.0.1:9", token: "unused", background: false };
const open = (dir, encrypted) =>
  Engram.open({ user: "dana", storage: new NodeFileStorage(dir), embedder: false, tokenizer: false, compactEvery: 4, sync: SYNC, ...(encrypted ? { encryption: { key: KEY } } : {}) });
/** The stored key of a file name (`engram%2Fdefault%2Fdana%2Fops%2F…bin` → `ops/…`). */
const keyOf = (file) => decodeURIComponent(file).replace(/^engram\/default\/dana\//, "").replace(/\.bin$/, "");
const ids = async (e) => (await e.list()).map((r) => r.id).sort();

/** A store with two snapshot generations, op batches after them, a session and a document. */
async function made(encrypted) {
  const dir = await mkdtemp(join(tmpdir(), "engram-matrix-"));
  const e = await open(dir, encrypted);
  for (let i = 0; i < 10; i++) await e.remember(`fact number ${i} about the orchard`);
  const s = e.session("s1");
  await s.append("user", "I like pears");
  await s.set("mood", "calm");
  await e.documents.put({ id: "doc1", text: "A document about pears and the orchard. ".repeat(40) });
  for (let i = 0; i < 2; i++) await e.remember(`late fact ${i} about the barn`);
  await e.close();
  return dir;
}

/** Run `f`; an error that escapes must be an EngramError with a code. */
async function typed(what, f) {
  try {
    return await f();
  } catch (err) {
    assert.ok(err instanceof EngramError && typeof err.code === "string", `${what}: untyped ${err?.name}: ${err?.message}`);
    throw err;
  }
}

for (const encrypted of [false, true]) {
  const mode = encrypted ? "encrypted" : "plaintext";
  test(`${mode}: every stored file × every damage opens, reports it, loses at most that file, and takes later writes`, async () => {
    const base = await made(encrypted);
    const files = (await readdir(base)).filter((f) => f.endsWith(".bin")).sort();
    const kinds = new Set(files.map((f) => keyOf(f).replace(/\/\d+$/, "/<n>")));
    for (const want of ["snapshot/current", "snapshot/previous", "ops/<n>", "outbox/<n>", "meta/compacted", ...(encrypted ? ["meta/encryption"] : [])]) {
      assert.ok(kinds.has(want), `the store has a ${want} to damage: ${[...kinds]}`);
    }
    const all = await typed("open undamaged", async () => { const e = await open(base, encrypted); const x = await ids(e); await e.close(); return x; });
    let cases = 0;
    for (const file of files) {
      const key = keyOf(file);
      // What the store keeps without this file at all: the most a damaged copy may lose.
      const gone = await mkdtemp(join(tmpdir(), "engram-gone-"));
      await cp(base, gone, { recursive: true });
      await rm(join(gone, file));
      const withoutFile = await typed(`open without ${key}`, async () => { const e = await open(gone, encrypted); const x = await ids(e); await e.close(); return x; });
      for (const [damage, f] of Object.entries(DAMAGES)) {
        const what = `${mode} ${key} "${damage}"`;
        const dir = await mkdtemp(join(tmpdir(), "engram-hit-"));
        await cp(base, dir, { recursive: true });
        const bytes = await readFile(join(dir, file));
        const damaged = f(bytes);
        await writeFile(join(dir, file), damaged);

        let e = await typed(`${what}: open`, () => open(dir, encrypted));
        const kept = await ids(e);
        // A flipped byte inside a plaintext JSON number can still read: then nothing is damaged.
        const readable = !encrypted && key.startsWith("meta/") && damaged.length > 0 && (() => { try { JSON.parse(new TextDecoder().decode(damaged)); return true; } catch { return false; } })();
        if (!readable) assert.ok(e.openReport.corrupt.includes(key), `${what}: reported, got ${JSON.stringify(e.openReport)}`);
        const lost = all.filter((id) => !kept.includes(id));
        const lostWithout = all.filter((id) => !withoutFile.includes(id));
        assert.ok(lost.every((id) => lostWithout.includes(id)), `${what}: lost ${lost.length} (${lost}), without the file ${lostWithout.length}`);
        for (let i = 0; i < 6; i++) {
          const out = await typed(`${what}: write ${i}`, () => e.remember(`written after the damage ${i} about the meadow`));
          assert.equal(out.action, "inserted", `${what}: ${JSON.stringify(out)}`);
        }
        await typed(`${what}: close`, () => e.close());
        e = await typed(`${what}: reopen`, () => open(dir, encrypted));
        assert.equal((await ids(e)).length, kept.length + 6, `${what}: every write reported as done is on disk`);
        await e.close();
        await rm(dir, { recursive: true, force: true });
        cases++;
      }
      await rm(gone, { recursive: true, force: true });
    }
    assert.equal(cases, files.length * 4);
    await rm(base, { recursive: true, force: true });
  });
}

test("a damaged outbox entry, plaintext or encrypted, is rebuilt from the log at open and every write still reaches a second device", async () => {
  const o = await startOrigin();
  try {
    for (const encrypted of [false, true]) {
      const user = encrypted ? "erin" : "ezra";
      const opts = (storage) => ({ user, storage, embedder: false, tokenizer: false, sync: { url: o.url, token: token(user), background: false }, ...(encrypted ? { encryption: { key: KEY } } : {}) });
      const store = new MemoryStorage();
      let phone = await Engram.open(opts(store));
      for (let i = 0; i < 5; i++) await phone.remember(`offline fact ${i} about the harbour`);
      await phone.close();
      const keys = (await store.list(`engram/default/${user}/outbox/`)).sort();
      assert.ok(keys.length >= 5, `the outbox holds the writes: ${keys.length}`);
      const hit = keys[keys.length - 2];
      const bytes = await store.get(hit);
      await store.put(hit, bytes.map((x, i) => (i === bytes.length >> 1 ? x ^ 0x20 : x)));

      phone = await Engram.open(opts(store));
      assert.ok(phone.openReport.corrupt.includes(hit.slice(`engram/default/${user}/`.length)), JSON.stringify(phone.openReport));
      await phone.sync();
      assert.equal(await phone.pendingSync(), 0, "nothing left behind");
      assert.deepEqual(await phone.quarantined(), [], "nothing set aside: the entry was rebuilt, not sent damaged");
      const laptop = await Engram.open(opts(new MemoryStorage()));
      await laptop.sync();
      assert.equal((await laptop.list()).length, 5, `${encrypted ? "encrypted" : "plaintext"}: all five writes arrived`);
      await laptop.close();
      await phone.close();
    }
  } finally {
    await o.kill();
  }
});
