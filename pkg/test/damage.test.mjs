// Damaged meta documents and leftover temporary files, in a real directory (NodeFileStorage):
// the store opens, the report names what was damaged, later writes succeed and stay.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, NodeFileStorage } from "../dist/entrypoints/node.js";

const KEY = new Uint8Array(32).map((_, i) => i * 3 + 5);
const open = (dir, extra = {}) => Engram.open({ user: "dana", storage: new NodeFileStorage(dir), embedder: false, tokenizer: false, compactEvery: 4, ...extra });

/** The file of a meta document (`meta/<name>`) in `dir`. */
async function metaFile(dir, name) {
  const f = (await readdir(dir)).find((n) => n.includes("meta") && n.includes(name) && n.endsWith(".bin"));
  assert.ok(f, `no file for meta/${name} in ${(await readdir(dir)).join(", ")}`);
  return join(dir, f);
}

for (const encrypted of [false, true]) {
  for (const damage of ["flip a middle byte", "flip the last byte", "truncate to half", "truncate to 0"]) {
    test(`${encrypted ? "encrypted" : "plaintext"}: meta/compacted with "${damage}" is reported at open and no later write fails or is lost`, async () => {
      const dir = await mkdtemp(join(tmpdir(), "engram-damage-"));
      const extra = encrypted ? { encryption: { key: KEY } } : {};
      let e = await open(dir, extra);
      for (let i = 0; i < 10; i++) await e.remember(`fact number ${i} about the orchard`);
      await e.close();
      const file = await metaFile(dir, "compacted");
      const bytes = await readFile(file);
      const damaged =
        damage === "flip a middle byte" ? bytes.map((b, i) => (i === bytes.length >> 1 ? b ^ 0x20 : b))
        : damage === "flip the last byte" ? bytes.map((b, i) => (i === bytes.length - 1 ? b ^ 0x01 : b))
        : damage === "truncate to half" ? bytes.subarray(0, bytes.length >> 1)
        : bytes.subarray(0, 0);
      await writeFile(file, damaged);

      e = await open(dir, extra);
      // A flip inside a JSON number may still read as JSON: then nothing is unreadable.
      const readable = !encrypted && damage.startsWith("flip") && (() => { try { JSON.parse(new TextDecoder().decode(damaged)); return true; } catch { return false; } })();
      if (!readable) assert.ok(e.openReport.corrupt.includes("meta/compacted"), JSON.stringify(e.openReport));
      assert.equal(await e.count(), 10, "the memories are all there");
      for (let i = 0; i < 8; i++) {
        const out = await e.remember(`later fact ${i} about the vineyard`);
        assert.equal(out.action, "inserted", JSON.stringify(out));
      }
      await e.close();
      e = await open(dir, extra);
      assert.equal(await e.count(), 18, "every write reported as done is on disk");
      assert.deepEqual(e.openReport.corrupt, [], "the next compaction wrote it again");
      await e.close();
    });
  }
}

test("temporary files a killed writer left behind are removed when the store is next opened; a live process's are kept", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-tmp-"));
  let e = await open(dir);
  await e.remember("a first fact");
  await e.close();
  const dead = join(dir, "engram%2Fdefault%2Fdana%2Fops%2F0000000000000009.bin.999999.k3j2.tmp");
  const live = join(dir, `other-namespace.bin.${process.pid}.a1b2.tmp`);
  await writeFile(dead, "torn");
  await writeFile(live, "being written");
  e = await open(dir);
  const left = await readdir(dir);
  assert.ok(!left.some((n) => n.includes(".999999.")), `the dead writer's file is gone: ${left}`);
  assert.ok(left.includes(`other-namespace.bin.${process.pid}.a1b2.tmp`), "a live process's is kept");
  await e.remember("a second fact");
  assert.equal(await e.count(), 2);
  await e.close();
});

test("a damaged encryption mark is told from another key by the store's other values: rewritten and reported with the right key, still ENCRYPTION_KEY with another", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-mark-"));
  const extra = { encryption: { key: KEY } };
  let e = await open(dir, extra);
  for (let i = 0; i < 6; i++) await e.remember(`sealed fact ${i} about the cellar`);
  await e.close();
  const file = await metaFile(dir, "encryption");
  const bytes = await readFile(file);
  await writeFile(file, bytes.map((b, i) => (i === bytes.length - 3 ? b ^ 0x10 : b)));
  await assert.rejects(open(dir, { encryption: { key: new Uint8Array(32).fill(9) } }), (err) => err.code === "ENCRYPTION_KEY");
  e = await open(dir, extra);
  assert.ok(e.openReport.corrupt.includes("meta/encryption"), JSON.stringify(e.openReport));
  assert.equal(await e.count(), 6);
  await e.remember("written after the repair");
  await e.close();
  e = await open(dir, extra);
  assert.deepEqual(e.openReport.corrupt, []);
  assert.equal(await e.count(), 7);
  await e.close();
  await assert.rejects(open(dir, { encryption: { key: new Uint8Array(32).fill(9) } }), (err) => err.code === "ENCRYPTION_KEY", "another key is still refused");
});
