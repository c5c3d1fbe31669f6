// A rekeying process for rekey.test.mjs: opens the NodeFileStorage directory given in
// ENGRAM_REKEY_CHILD with the old key, says "ready", then rotates to the new key and says
// "done" (the test kills it at some point in between). `node --test test/` also loads
// this file: without the variable it does nothing.
const dir = process.env.ENGRAM_REKEY_CHILD;
if (dir) {
  const { Engram, NodeFileStorage } = await import("../dist/entrypoints/node.js");
  const key = (seed) => new Uint8Array(32).map((_, i) => (i * 13 + seed) & 0xff);
  const mem = await Engram.open({ user: "rotor", storage: new NodeFileStorage(dir), embedder: false, tokenizer: false, encryption: { key: key(1) } });
  process.stdout.write("ready\n");
  await mem.rekey(key(2));
  process.stdout.write("done\n");
  await mem.close();
}
