// One writer per namespace where the platform has no Web Locks (Node): two instances in one
// process, two processes on one directory, a writer killed with kill -9, a copied directory.
// Every acknowledged write survives; the first write of an instance takes the store's lock
// until close(), so another instance's writes are refused with STORE_LOCKED (or, in a loop
// that retries, wait their turn) while reads keep working; no two acknowledged writes share
// an id.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Engram, EngramIoError, MemoryStorage, NodeFileStorage } from "../dist/entrypoints/node.js";
import { FlakyStorage } from "./helpers.mjs";

const CHILD = fileURLToPath(new URL("./writer-child.mjs", import.meta.url));
const open = (storage, more = {}) => Engram.open({ user: "writers", storage, embedder: false, tokenizer: false, compactEvery: 25, ...more });
const tempDir = () => mkdtemp(join(tmpdir(), "engram-writers-"));
const fact = (who, i) => `${who} wrote fact ${i}: the value is ${i * 7919}`;

/** Two instances on one namespace write `n` memories each, all at once. */
async function twoWriters(makeStorage, n) {
  const a = await open(makeStorage());
  const b = await open(makeStorage());
  const writes = Array.from({ length: n }, (_, i) => [a, b].map((m, j) => {
    const text = fact("ab"[j], i);
    return m.remember(text).then((out) => ({ who: j, text, id: out.id }), (error) => ({ who: j, text, error }));
  })).flat();
  const results = await Promise.all(writes);
  const acked = results.filter((r) => !r.error);
  const refused = results.filter((r) => r.error);
  return { a, b, acked, refused };
}

async function assertEveryAckedWriteSurvives(storage, acked) {
  const c = await open(storage);
  const stored = new Map((await c.list()).map((r) => [r.id, r.text]));
  const lost = acked.filter((w) => stored.get(w.id) !== w.text);
  assert.equal(lost.length, 0, `${lost.length} of ${acked.length} acknowledged writes lost (e.g. ${JSON.stringify(lost[0])})`);
  assert.equal(new Set(acked.map((w) => w.id)).size, acked.length, "no two acknowledged writes share an id");
  await c.close();
}

function assertLocked(e) {
  assert.ok(e instanceof EngramIoError, `an EngramIoError, got ${e}`);
  assert.equal(e.code, "STORE_LOCKED");
  return true;
}

/** One instance wrote everything, the other's every write was refused; after the writer closes the other writes, on top of the writer's state. */
async function assertOneWriter({ a, b, acked, refused }, n, holderPattern) {
  assert.equal(acked.length, n, "one instance's writes were acknowledged");
  assert.equal(refused.length, n, "the other's were refused");
  assert.equal(new Set(acked.map((r) => r.who)).size, 1);
  for (const r of refused) assertLocked(r.error);
  assert.match(refused[0].error.message, holderPattern, "the message names the holder");
  const [writer, other] = acked[0].who === 0 ? [a, b] : [b, a];
  assert.equal(other.count(), 0, "the refused writes were not made");
  await writer.close();
  await other.remember("written after the first writer closed");
  assert.equal(other.count(), n + 1, "the second writer loaded the first one's writes before its own");
  await other.close();
}

test("two instances on one MemoryStorage: one writes, the other's writes are refused with STORE_LOCKED, and every acknowledged write survives", async () => {
  const storage = new MemoryStorage();
  const run = await twoWriters(() => storage, 150);
  await assertEveryAckedWriteSurvives(storage, run.acked);
  await assertOneWriter(run, 150, /another Engram instance in this process/);
  await assertEveryAckedWriteSurvives(storage, run.acked);
  // Another namespace of the same storage is another store.
  const [x, y] = [await open(storage), await open(storage, { user: "someone-else" })];
  await Promise.all([x.remember("x"), y.remember("y")]);
  await Promise.all([x.close(), y.close()]);
});

test("two instances on one NodeFileStorage directory: one writes, the other is refused naming the holder's pid, every acknowledged write survives", async () => {
  const dir = await tempDir();
  const run = await twoWriters(() => new NodeFileStorage(dir), 100);
  await assertEveryAckedWriteSurvives(new NodeFileStorage(dir), run.acked);
  await assertOneWriter(run, 100, new RegExp(`pid ${process.pid} on `));
});

test("a reader beside a writer opens and reads without the lock", async () => {
  const dir = await tempDir();
  const writer = await open(new NodeFileStorage(dir));
  await writer.remember("Keeps bees on the roof");
  const reader = await open(new NodeFileStorage(dir));
  assert.deepEqual((await reader.list()).map((r) => r.text), ["Keeps bees on the roof"]);
  await assert.rejects(reader.remember("a second writer"), assertLocked);
  await Promise.all([writer.close(), reader.close()]);
});

test("a sync, which writes what it pulls, needs the lock too", async () => {
  const storage = new MemoryStorage();
  const sync = { url: "http://127.0.0.1:9", token: "t", background: false };
  const writer = await open(storage, { sync });
  await writer.remember("Grows tomatoes");
  const reader = await open(storage, { sync });
  await assert.rejects(reader.sync(), assertLocked);
  await assert.rejects(writer.sync(), (e) => e.code === "SYNC_NETWORK", "the writer gets as far as the network");
  await writer.close();
  await assert.rejects(reader.sync(), (e) => e.code === "SYNC_NETWORK", "and the reader once the writer closed");
  await reader.close();
});

test("close() gives the lock back, also after a write failed in storage", async () => {
  const storage = new FlakyStorage();
  const first = await open(storage);
  await first.remember("Likes green tea");
  storage.failPuts = true;
  await assert.rejects(first.remember("Likes black tea"), /disk full/);
  storage.failPuts = false;
  await first.close();
  const next = await open(storage);
  await next.remember("Likes oolong");
  assert.deepEqual((await next.list()).map((r) => r.text).sort(), ["Likes green tea", "Likes oolong"]);
  await next.close();
});

/** Run writer-child.mjs; resolves with its parsed output lines (and the child, for kill). */
function child(dir, env) {
  const p = spawn(process.execPath, [CHILD], { env: { ...process.env, ENGRAM_WRITER_CHILD: dir, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines = [];
  let buf = "";
  let err = "";
  const waiters = [];
  p.stdout.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      lines.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  p.stderr.on("data", (d) => (err += d));
  const done = new Promise((resolve) => p.on("exit", (code, signal) => resolve({ code, signal, err })));
  const until = async (pred) => {
    while (!lines.some(pred)) {
      if (p.exitCode !== null) throw new Error(`writer exited ${p.exitCode}: ${err}`);
      await new Promise((r) => waiters.push(r) && setTimeout(r, 50));
    }
  };
  return { p, lines, done, until };
}
const ackedOf = (lines) => lines.filter((l) => l.acked).map((l) => ({ text: l.acked, id: l.id }));

/** Two writer processes on one directory, `n` writes each, waiting for each other: every acknowledged write survives. */
async function twoProcessesTakeTurns(n, env = {}) {
  const dir = await tempDir();
  const opts = { ENGRAM_WRITER_N: String(n), ENGRAM_WRITER_WAIT: "1", ...env };
  const [x, y] = [child(dir, { ...opts, ENGRAM_WRITER_NAME: "x" }), child(dir, { ...opts, ENGRAM_WRITER_NAME: "y" })];
  const ends = await Promise.all([x.done, y.done]);
  for (const e of ends) assert.equal(e.code, 0, e.err);
  const acked = [...ackedOf(x.lines), ...ackedOf(y.lines)];
  assert.equal(acked.length, 2 * n, "both processes finished their writes");
  await assertEveryAckedWriteSurvives(new NodeFileStorage(dir), acked);
  const waited = [...x.lines, ...y.lines].filter((l) => l.closed).map((l) => l.refused);
  assert.ok(waited.some((r) => r > 0), `one process waited for the other (refused: ${waited.join(", ")})`);
  return waited;
}

test("two processes on one directory take turns: every acknowledged write of both survives", async () => {
  const waited = await twoProcessesTakeTurns(200);
  console.log(`# two processes: writes refused while the other held the store: ${waited.join(", ")}`);
});

test("where the runtime has Web Locks (Node 24.5 and later: one process only), two processes on one directory still take turns through the lock file", async () => {
  await twoProcessesTakeTurns(100, { ENGRAM_WRITER_WEB_LOCKS: "1" });
});

test("a lock left by a writer killed with kill -9 is stale: the next open takes it over and loses no acknowledged write", async () => {
  const dir = await tempDir();
  const w = child(dir, { ENGRAM_WRITER_NAME: "killed", ENGRAM_WRITER_N: "30", ENGRAM_WRITER_HANG: "1" });
  await w.until((l) => l.hanging);
  // Alive, it holds the store.
  const blocked = await open(new NodeFileStorage(dir));
  await assert.rejects(blocked.remember("while the other process runs"), assertLocked);
  await blocked.close();
  w.p.kill("SIGKILL");
  assert.equal((await w.done).signal, "SIGKILL");
  await assertEveryAckedWriteSurvives(new NodeFileStorage(dir), ackedOf(w.lines));
});

test("a lock naming another host and no longer refreshed is stale (a store moved between machines), and a copied directory is never locked by the original's holder", async () => {
  const dir = await tempDir();
  const w = child(dir, { ENGRAM_WRITER_NAME: "elsewhere", ENGRAM_WRITER_N: "5", ENGRAM_WRITER_HANG: "1" });
  try {
    await w.until((l) => l.hanging);
    // A copy of the directory, taken while its writer runs, is a store of its own.
    const copy = await tempDir();
    await cp(dir, copy, { recursive: true });
    const c = await open(new NodeFileStorage(copy));
    await c.remember("written to the copy");
    assert.equal(c.count(), 6);
    await c.close();
    // The same lock, as another machine would have written it (a live pid there means nothing here).
    const [lockName] = (await readdir(dir)).filter((n) => n.endsWith(".lock"));
    assert.ok(lockName, "the writer holds a lock file");
    const held = JSON.parse(await readFile(join(dir, lockName), "utf8"));
    assert.equal(held.pid, w.p.pid);
    const lockFile = join(dir, lockName);
    await writeFile(lockFile, JSON.stringify({ ...held, host: `not-${held.host}` }));
    // Refreshed recently, it may be a live writer on shared storage: still respected.
    const d = await open(new NodeFileStorage(dir));
    await assert.rejects(d.remember("not yet"), assertLocked);
    const old = new Date(Date.now() - 5 * 60_000);
    await utimes(lockFile, old, old);
    await d.remember("taken over");
    assert.equal(d.count(), 6);
    await d.close();
  } finally {
    w.p.kill("SIGKILL");
    await w.done;
  }
});

test("every open gets a replica id of its own, never stored with the data", async () => {
  const storage = new MemoryStorage();
  const ids = [];
  for (let i = 0; i < 3; i++) {
    const m = await open(storage);
    await m.remember(`fact ${i} from open ${i}`);
    ids.push(m.replicaId);
    await m.close();
  }
  for (const id of ids) assert.ok(Number.isSafeInteger(id) && id > 0 && id < 2 ** 48, `a replica id below 2^48: ${id}`);
  assert.equal(new Set(ids).size, 3, "three opens, three replica ids");
  assert.deepEqual((await storage.list("")).filter((k) => k.endsWith("/replica")), [], "no replica key in storage");
});
