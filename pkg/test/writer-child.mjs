// A writer process for writers.test.mjs: opens the NodeFileStorage directory given in
// ENGRAM_WRITER_CHILD, writes ENGRAM_WRITER_N memories and prints one JSON line per
// acknowledged write. With ENGRAM_WRITER_WAIT=1 a write refused with STORE_LOCKED is retried
// until the other writer closes. `node --test test/` also loads this file: without the
// variable it does nothing.
const dir = process.env.ENGRAM_WRITER_CHILD;
if (dir) {
  if (process.env.ENGRAM_WRITER_WEB_LOCKS === "1") installProcessWebLocks();
  const { Engram, NodeFileStorage } = await import("../dist/entrypoints/node.js");
  const name = process.env.ENGRAM_WRITER_NAME ?? String(process.pid);
  const n = Number(process.env.ENGRAM_WRITER_N ?? 100);
  const wait = process.env.ENGRAM_WRITER_WAIT === "1";
  const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
  const mem = await Engram.open({ user: "writers", storage: new NodeFileStorage(dir), embedder: false, tokenizer: false, compactEvery: 25 });
  let refused = 0;
  for (let i = 0; i < n; i++) {
    const text = `${name} wrote fact ${i}: the value is ${i * 7919}`;
    for (;;) {
      try {
        const out = await mem.remember(text);
        say({ acked: text, id: out.id });
        break;
      } catch (e) {
        if (e?.code !== "STORE_LOCKED" || !wait) {
          say({ refused: e?.code ?? String(e), message: e?.message });
          process.exit(0);
        }
        refused++;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }
  if (process.env.ENGRAM_WRITER_HANG === "1") {
    say({ hanging: true });
    setInterval(() => undefined, 1000); // wait to be killed
  } else {
    await mem.close();
    say({ closed: name, refused });
  }
}

/**
 * Web Locks as Node ≥ 24.5 has them: exclusive per name, within this process only (what the
 * runtime here, Node 20, lacks). With them present, a lock file must still keep processes apart.
 */
function installProcessWebLocks() {
  const tails = new Map();
  const locks = {
    request(name, options, f) {
      const run = (tails.get(name) ?? Promise.resolve()).then(() => f({ name, mode: options.mode }));
      tails.set(name, run.catch(() => undefined));
      return run;
    },
  };
  Object.defineProperty(globalThis, "navigator", { value: { ...(globalThis.navigator ?? {}), locks }, configurable: true });
}
