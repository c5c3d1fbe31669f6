// The default embedder through the SDK on the real wasm core: used when no embedder is
// given, same vectors as the distillation script, typed errors for a bad table.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, StaticEmbedder, defaultEmbedder } from "../dist/entrypoints/node.js";
import { clock, cosine, readParity } from "./helpers.mjs";

const parity = readParity("embed_parity.tsv");

test("the wasm embedder reproduces the distillation script's vectors", async () => {
  const e = defaultEmbedder();
  assert.equal(e.dimension, 256);
  const english = parity.filter(([s]) => !/[\u4e00-\u9fff]/.test(s));
  const got = await e.embed(english.map(([s]) => s));
  english.forEach(([s, want], i) => assert.ok(cosine(got[i], want) > 0.9999, `${s}: ${cosine(got[i], want)}`));
  assert.ok(english.length >= 35, `${english.length} English sentences compared`);
});

test("Engram.open without an embedder recalls by meaning with the default one; embedder: false turns vectors off", async () => {
  const mem = await Engram.open({ user: "d1", now: clock().now });
  const off = await Engram.open({ user: "d2", now: clock().now, embedder: false });
  try {
    for (const m of [mem, off]) {
      await m.remember("User enjoys hiking in the mountains every summer");
      await m.remember("Quarterly taxes are due in April");
    }
    const hit = (await mem.recall("any outdoor trips planned for the summer?")).hits[0];
    assert.equal(hit.record.text, "User enjoys hiking in the mountains every summer");
    assert.ok(hit.parts.vector !== null, "found by the vector channel");
    const offHits = (await off.recall("any outdoor trips planned for the summer?")).hits;
    assert.ok(offHits.every((h) => h.parts.vector === null));
  } finally {
    await mem.close();
    await off.close();
  }
});

test("text the English vocabulary cannot represent is stored without a vector, never merged as a near-duplicate", async () => {
  const mem = await Engram.open({ user: "d3", now: clock().now });
  try {
    const a = await mem.remember("陪聊。");
    const b = await mem.remember("股东。");
    assert.equal(a.action, "inserted");
    assert.equal(b.action, "inserted", "two unrelated Chinese memories stay two");
    assert.equal((await mem.list()).length, 2);
    const hits = (await mem.recall("股东", { force: true })).hits;
    assert.equal(hits[0].record.text, "股东。");
  } finally {
    await mem.close();
  }
});

test("a bad embedding table is a typed error at first use", async () => {
  const e = new StaticEmbedder({ table: new Uint8Array([1, 2, 3]) });
  await assert.rejects(e.embed(["x"]), (err) => err.code === "EMBED_TABLE");
});
