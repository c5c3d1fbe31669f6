// Key rotation (Engram.rekey): every stored value sealed again with the new key; stopped
// at any point — after each single write of the rotation, and by kill -9 of a real
// process — the store opens with the old or the new key and loses nothing; what sync
// sends is sealed with the new key, and devices read the origin's older texts with
// encryption.previousKeys.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Engram, MemoryStorage, NodeFileStorage } from "../dist/entrypoints/node.js";
import { startOrigin, token } from "./origin.mjs";

const key = (seed) => new Uint8Array(32).map((_, i) => (i * 13 + seed) & 0xff);
const [K1, K2] = [key(1), key(2)];
const base = { embedder: false, tokenizer: false, compactEvery: 5 };
const open = (storage, k, extra = {}) => Engram.open({ user: "rotor", storage, ...base, encryption: { key: k }, ...extra });
const texts = async (e) => (await e.list()).map((r) => r.text).sort();

/** A store of `n` memories, a session and a document, encrypted with K1, in `storage`. */
async function filled(storage, n = 12) {
  const e = await open(storage, K1);
  for (let i = 0; i < n; i++) await e.remember(`sealed fact ${i} about the lighthouse`);
  await e.session("s1").set("mood", "calm");
  await e.documents.put({ id: "log", text: "The keeper's log of the lighthouse. ".repeat(30) });
  const want = await texts(e);
  await e.close();
  return want;
}

/** `inner` whose puts and deletes stop (as a crash would) after `budget` of them. */
function failingAfter(inner, budget) {
  let done = 0;
  const spend = () => {
    if (done >= budget) throw new Error("stopped here (as if the process died)");
    done++;
  };
  return {
    get: (k) => inner.get(k),
    list: (p) => inner.list(p),
    put: async (k, v) => (spend(), inner.put(k, v)),
    delete: async (k) => (spend(), inner.delete(k)),
    get writes() { return done; },
  };
}

async function copyOf(storage) {
  const out = new MemoryStorage();
  for (const k of await storage.list("")) await out.put(k, await storage.get(k));
  return out;
}

test("after rekey the store opens with the new key only, holds everything, and recalls", async () => {
  const storage = new MemoryStorage();
  const want = await filled(storage);
  let e = await open(storage, K1);
  await e.rekey(K2);
  await e.remember("written after the rotation");
  await e.close();
  await assert.rejects(open(storage, K1), (err) => err.code === "ENCRYPTION_KEY", "the old key no longer opens it");
  e = await open(storage, K2);
  assert.deepEqual(e.openReport.corrupt, []);
  assert.equal(e.openReport.rekeyFinished, false);
  assert.deepEqual(await texts(e), [...want, "written after the rotation"].sort());
  assert.equal((await e.recall("lighthouse fact 7")).hits[0]?.record.text, "sealed fact 7 about the lighthouse");
  assert.equal(JSON.parse((await e.session("s1").state()).mood), "calm");
  await e.close();
});

test("stopped after any single write of the rotation, the store opens with the old or the new key and loses nothing", async () => {
  const seed = new MemoryStorage();
  const want = await filled(seed);
  // How many writes a whole rotation makes.
  const probe = failingAfter(await copyOf(seed), Infinity);
  await (await open(probe, K1)).rekey(K2);
  const total = probe.writes;
  assert.ok(total > 10, `a rotation writes every value: ${total}`);
  const opened = { old: 0, new: 0, both: 0 };
  for (let budget = 0; budget < total; budget++) {
    const storage = await copyOf(seed);
    const e = await open(failingAfter(storage, budget), K1);
    await assert.rejects(e.rekey(K2), /stopped here/);
    // The instance is abandoned as a dead process would leave it; a new one opens.
    const tried = {};
    for (const [name, k] of [["old", K1], ["new", K2]]) {
      const copy = await copyOf(storage);
      try {
        const again = await open(copy, k);
        assert.deepEqual(await texts(again), want, `stopped after ${budget} writes, opened with the ${name} key`);
        tried[name] = again.openReport.rekeyFinished;
        await again.close();
      } catch (err) {
        assert.equal(err.code, "ENCRYPTION_KEY", `stopped after ${budget} writes, the ${name} key: ${err.message}`);
      }
    }
    assert.ok("old" in tried || "new" in tried, `stopped after ${budget} writes: neither key opens the store`);
    if ("old" in tried && "new" in tried) opened.both++;
    else if ("old" in tried) opened.old++;
    else opened.new++;
  }
  // Before the note (write 0) only the old key; while it is there both, and each open finishes the rotation.
  assert.ok(opened.old >= 1 && opened.both >= total - 2, JSON.stringify({ total, ...opened }));
});

test("kill -9 of a process in the middle of a rotation leaves a store that opens with one of the keys, nothing lost", async () => {
  const child = fileURLToPath(new URL("./rekey-child.mjs", import.meta.url));
  const outcomes = [];
  for (let trial = 0; trial < 8; trial++) {
    const dir = await mkdtemp(join(tmpdir(), "engram-rekey-"));
    const want = await filled(new NodeFileStorage(dir), 60);
    const p = spawn(process.execPath, [child], { env: { ...process.env, ENGRAM_REKEY_CHILD: dir }, stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise((r) => p.once("exit", r));
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    await new Promise((resolve) => {
      const t = setInterval(() => {
        if (out.includes("ready")) {
          clearInterval(t);
          // Somewhere between the start of the rotation and well after it.
          setTimeout(() => { p.kill("SIGKILL"); resolve(); }, trial * 4);
        }
      }, 1);
    });
    await exited;
    let e;
    try {
      e = await open(new NodeFileStorage(dir), K2);
      outcomes.push(out.includes("done") ? "new key (done)" : e.openReport.rekeyFinished ? "new key, finished at open" : "new key");
    } catch (err) {
      assert.equal(err.code, "ENCRYPTION_KEY", err.message);
      e = await open(new NodeFileStorage(dir), K1);
      outcomes.push("old key");
    }
    assert.deepEqual(await texts(e), want, `trial ${trial}: ${outcomes.at(-1)}`);
    await e.close();
  }
  assert.equal(outcomes.length, 8, outcomes.join(", "));
  console.log(`kill -9 trials: ${outcomes.join(", ")}`);
});

test("after a rotation, sync sends with the new key; a device reads older texts through previousKeys, and another rotates and catches up", async () => {
  const o = await startOrigin();
  try {
    const sync = { url: o.url, token: token("rotor"), background: false };
    const phone = await open(new MemoryStorage(), K1, { sync });
    const tabletStore = new MemoryStorage();
    let tablet = await open(tabletStore, K1, { sync });
    for (let i = 0; i < 3; i++) await phone.remember(`before the rotation ${i}`);
    await phone.sync();
    await tablet.sync();
    assert.equal((await tablet.list()).length, 3);

    await phone.rekey(K2);
    for (let i = 0; i < 2; i++) await phone.remember(`after the rotation ${i}`);
    await phone.sync();

    // A new device with the new key and the old one as a previous key reads all five.
    const laptop = await open(new MemoryStorage(), K2, { sync, encryption: { key: K2, previousKeys: [K1] } });
    await laptop.sync();
    assert.equal((await laptop.list()).length, 5);
    // With the new key alone, the texts sealed before the rotation do not open.
    const bare = await open(new MemoryStorage(), K2, { sync });
    await assert.rejects(bare.sync(), (err) => err.code === "ENCRYPTION_KEY");
    // The tablet still has the old key: the new texts do not open until it rotates too.
    await assert.rejects(tablet.sync(), (err) => err.code === "ENCRYPTION_KEY");
    await tablet.rekey(K2);
    await tablet.sync();
    assert.equal((await tablet.list()).length, 5);
    await tablet.close();
    tablet = await open(tabletStore, K2, { sync });
    assert.equal((await tablet.list()).length, 5, "the tablet's store is under the new key");
    for (const e of [phone, laptop, bare, tablet]) await e.close();
  } finally {
    await o.kill();
  }
});

test("rekey refuses a plaintext store, a bad key and a key whose bytes cannot be had, and changes nothing", async () => {
  const plain = await Engram.open({ user: "rotor", storage: new MemoryStorage(), ...base });
  await assert.rejects(plain.rekey(K2), (err) => err.code === "ENCRYPTION_KEY");
  await plain.close();
  const storage = new MemoryStorage();
  const want = await filled(storage, 3);
  const e = await open(storage, K1);
  await assert.rejects(e.rekey(new Uint8Array(7)), (err) => err.code === "INVALID_INPUT");
  await assert.rejects(e.rekey("not a key"), (err) => err.code === "INVALID_INPUT");
  const hidden = await crypto.subtle.importKey("raw", K2, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
  await assert.rejects(e.rekey(hidden), (err) => err.code === "INVALID_INPUT" && /bytes/.test(err.message));
  await e.close();
  const again = await open(storage, K1);
  assert.deepEqual(await texts(again), want);
  await again.close();
});
