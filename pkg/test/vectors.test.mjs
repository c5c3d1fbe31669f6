// The shared vectors in tests/vectors/ (written by the Rust test kit) read through the wasm
// binding and the SDK: the same bytes mean the same state on both sides.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Engram, MemoryStorage, decodeFrames } from "../dist/entrypoints/node.js";
import { EngramHandle } from "../dist/core.js";

const dir = new URL("../../tests/vectors/", import.meta.url);
const read = (name) => new Uint8Array(readFileSync(new URL(name, dir)));
const manifest = JSON.parse(readFileSync(new URL("manifest.json", dir), "utf8"));
await (await Engram.open({ user: "u", storage: new MemoryStorage(), embedder: false })).close(); // loads the wasm core

test("the vector snapshot opens in wasm with the records its manifest lists", () => {
  const engine = EngramHandle.fromSnapshot(read(manifest.snapshot.file));
  for (const [who, records] of Object.entries(manifest.snapshot.current)) {
    const [tenant, user] = who.split("/");
    const got = engine.list({ tenant, user }, {}, manifest.now).map((r) => ({ id: r.id, text: r.text }));
    assert.deepEqual(got, records, who);
  }
  engine.free();
});

test("the vector op batch rebuilds the snapshot's state, and the vector frames carry the same ops", () => {
  const fromOps = new EngramHandle(undefined, 7);
  assert.equal(fromOps.applyOps(read(manifest.ops.file)), manifest.ops.count);
  const frames = decodeFrames(read(manifest.frames.file));
  assert.deepEqual(frames.map((f) => f.id), manifest.frames.ids);
  const fromFrames = new EngramHandle(undefined, 9);
  assert.deepEqual(frames.map((f) => fromFrames.applyOps(f.ops)), manifest.frames.ops);
  const snapshot = EngramHandle.fromSnapshot(read(manifest.snapshot.file));
  for (const who of Object.keys(manifest.snapshot.current)) {
    const [tenant, user] = who.split("/");
    const ids = (e) => e.list({ tenant, user }, {}, manifest.now).map((r) => r.id);
    assert.deepEqual(ids(fromOps), ids(snapshot), who);
    assert.deepEqual(ids(fromFrames), ids(snapshot), who);
  }
});
