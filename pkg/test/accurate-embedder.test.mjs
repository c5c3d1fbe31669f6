// The accurate embedder (all-MiniLM-L6-v2 run in full by the wasm core) through the SDK:
// sentence-transformers' vectors, recall by meaning inside Engram, typed errors for bad
// model files. The model comes from ENGRAM_MINILM_DIR (scripts/env.sh's ensure_minilm).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { AccurateEmbedder, Engram, accurateEmbedder } from "../dist/entrypoints/node.js";
import { clock, cosine, readParity } from "./helpers.mjs";

const dir = process.env.ENGRAM_MINILM_DIR ?? join(homedir(), ".cache/engram-models/all-MiniLM-L6-v2");
const files = { weights: () => readFile(join(dir, "model.safetensors")), vocab: () => readFile(join(dir, "vocab.txt")) };
const minilm = accurateEmbedder(files);

const parity = readParity("bert_parity.tsv");

test("the wasm encoder reproduces sentence-transformers' vectors", async () => {
  assert.equal(parity.length, 56);
  const got = await minilm.embed(parity.map(([s]) => s));
  parity.forEach(([s, want], i) => assert.ok(cosine(got[i], want) > 0.9999, `${JSON.stringify(s)}: ${cosine(got[i], want)}`));
  assert.equal(got[0].length, 384);
});

test("Engram with the accurate embedder recalls by meaning where no word is shared", async () => {
  const mem = await Engram.open({ user: "acc", now: clock().now, embedder: minilm });
  try {
    await mem.remember("User enjoys hiking in the mountains every summer");
    await mem.remember("Quarterly taxes are due in April");
    await mem.remember("The user's cat is called Miso");
    const hit = (await mem.recall("what pet do I have?", { force: true })).hits[0];
    assert.equal(hit.record.text, "The user's cat is called Miso");
    assert.ok(hit.parts.vector !== null && hit.parts.lexical === null, "found by meaning alone");
  } finally {
    await mem.close();
  }
});

test("bad model files are typed errors at first use, other weights must be named, and a later good load still works", async () => {
  const vocab = await files.vocab();
  const truncated = new AccurateEmbedder({ weights: (await files.weights()).subarray(0, 1000), vocab });
  await assert.rejects(truncated.embed(["x"]), (e) => e.code === "EMBED_MODEL");
  const wrongDim = new AccurateEmbedder({ ...files, dimension: 256 });
  await assert.rejects(wrongDim.embed(["x"]), (e) => e.code === "EMBED_MODEL" && /384 dimensions/.test(e.message));
  // Other weights (here: one value changed) must be named, or two models' vectors could
  // share an id in a store.
  const altered = new Uint8Array(await files.weights());
  altered[altered.length - 1] ^= 0x01;
  await assert.rejects(new AccurateEmbedder({ weights: altered, vocab }).embed(["x"]), (e) => e.code === "EMBED_MODEL" && /pass an id/.test(e.message));
  assert.equal((await new AccurateEmbedder({ weights: altered, vocab, id: "my-minilm-variant" }).embed(["x"]))[0].length, 384);
  let fail = true;
  const flaky = new AccurateEmbedder({ vocab, weights: async () => { if (fail) throw new Error("network down"); return files.weights(); } });
  await assert.rejects(flaky.embed(["x"]), (e) => e.code === "EMBED_MODEL" && /network down/.test(e.message));
  fail = false;
  assert.equal((await flaky.embed(["x"]))[0].length, 384, "the failed load was not cached");
});
