// The sync wire format as the SDK sees it: the core's codec (the origin's too), bound in wasm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, MemoryStorage, encodeFrames, decodeFrames, EngramDataError, EngramInputError } from "../dist/entrypoints/node.js";

// Opening an engram loads the wasm core the codec lives in.
await (await Engram.open({ user: "u", storage: new MemoryStorage(), embedder: false })).close();

test("frames round-trip and match the documented layout byte for byte", () => {
  const frames = [
    { id: "7-1", ops: new Uint8Array([1, 2, 3]) },
    { id: "é-2", ops: new Uint8Array(0) },
  ];
  const body = encodeFrames(frames);
  const id2 = new TextEncoder().encode("é-2");
  const expected = new Uint8Array([0x45, 0x47, 0x53, 0x31, 3, 0, ...new TextEncoder().encode("7-1"), 3, 0, 0, 0, 1, 2, 3, id2.length, 0, ...id2, 0, 0, 0, 0]);
  assert.deepEqual(body, expected);
  assert.deepEqual(decodeFrames(body), frames);
  assert.deepEqual(decodeFrames(new Uint8Array(0)), []);
});

test("every truncation of a body is SYNC_BODY, and a bad id is INVALID_INPUT", () => {
  const body = encodeFrames([{ id: "abc", ops: new Uint8Array(20).fill(9) }]);
  for (let cut = 1; cut < body.length; cut++) {
    if (cut === 4) continue; // the magic alone is an empty body of frames
    assert.throws(() => decodeFrames(body.subarray(0, cut)), (e) => e instanceof EngramDataError && e.code === "SYNC_BODY", `cut at ${cut}`);
  }
  assert.throws(() => decodeFrames(new TextEncoder().encode("XXXXjunk")), (e) => e.code === "SYNC_BODY" && /EGS1/.test(e.message));
  for (const id of ["", "x".repeat(201), 42]) {
    assert.throws(() => encodeFrames([{ id, ops: new Uint8Array(1) }]), (e) => e instanceof EngramInputError && e.code === "INVALID_INPUT", String(id));
  }
  assert.throws(() => encodeFrames([{ id: "a", ops: [1, 2] }]), (e) => e.code === "INVALID_INPUT");
});
