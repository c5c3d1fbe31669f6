// The worker syncing with a real origin (target/release/engram-origin over SecantusDB on
// 127.0.0.1) in the background (Durable Object alarms): the outbox survives a restart while
// the origin is unreachable, changes from another device are pulled without being asked,
// and forgetting a user reaches the worker's store from elsewhere and the origin from the worker.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ROOT, SECRET, allTexts, client, eventually, freePort, startWorker, token } from "./harness.mjs";

const ORIGIN_BIN = join(ROOT, "target/release/engram-origin");
const persistTo = mkdtempSync(join(tmpdir(), "engram-worker-sync-"));
let mongoPid;
let origin;
let originUrl;
let w;

async function startOrigin() {
  const logFile = join(persistTo, "origin.log");
  const env = { ...process.env, ENGRAM_SECRET: SECRET, ENGRAM_BIND: "127.0.0.1:0", ENGRAM_DB: `engram_worker_${process.pid}` };
  const child = spawn("bash", ["-c", `exec "${ORIGIN_BIN}" 2> "${logFile}"`], { env, detached: true, stdio: "ignore" });
  const addr = await eventually(() => {
    if (!existsSync(logFile)) return undefined;
    return /"addr":"([^"]+)"/.exec(readFileSync(logFile, "utf8"))?.[1];
  }, 20_000, 100);
  if (!addr) throw new Error(`the origin did not start: ${existsSync(logFile) ? readFileSync(logFile, "utf8") : "(no log)"}`);
  return { child, url: `http://${addr}`, log: () => readFileSync(logFile, "utf8") };
}

/** SIGTERM a process group, wait for its leader to exit (SIGKILL after 5 s). */
async function stopGroup(pid) {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    return;
  }
  if (!(await eventually(() => !alive(), 5000, 50))) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** The texts the origin holds for a user (its own view, built from accepted ops). */
async function originTexts(tenant, user) {
  const res = await fetch(`${originUrl}/v1/memories?limit=500`, { headers: { authorization: `Bearer ${token(tenant, user)}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).memories.map((m) => m.text).sort();
}

before(async () => {
  assert.ok(existsSync(ORIGIN_BIN), `${ORIGIN_BIN} is built (cargo build --release -p engram-origin)`);
  if (!process.env.MONGODB_URI) {
    const port = process.env.ENGRAM_MONGO_PORT ?? "27141";
    mongoPid = Number(execFileSync("bash", [join(ROOT, "scripts/mongo.sh")], { env: { ...process.env, ENGRAM_MONGO_PORT: port }, encoding: "utf8" }).trim());
    process.env.MONGODB_URI = `mongodb://127.0.0.1:${port}/`;
  }
  origin = await startOrigin();
  originUrl = origin.url;
});

after(async () => {
  if (process.env.ENGRAM_WORKER_LOG && w) (await import("node:fs")).writeFileSync(process.env.ENGRAM_WORKER_LOG, w.log());
  await w?.stop();
  if (origin) await stopGroup(origin.child.pid);
  if (mongoPid) await stopGroup(mongoPid);
  rmSync(persistTo, { recursive: true, force: true });
});

const dave = () => client(w.url, token("acme", "dave"));
const fast = { ENGRAM_SYNC_DEBOUNCE_MS: "100", ENGRAM_SYNC_INTERVAL_MS: "1000" };

test("writes made while the origin is unreachable stay in the outbox across a restart, then sync in the background", async () => {
  const closed = await freePort(); // nothing listens here
  w = await startWorker({ persistTo, vars: { ...fast, ENGRAM_ORIGIN: `http://127.0.0.1:${closed}` } });
  const texts = ["Dave keeps bees on the roof", "Dave's bike is a green Brompton", "Dave is learning the cello"];
  for (const t of texts) assert.equal((await dave().remember(t)).status, 201);
  const failed = await eventually(() => /"op":"sync".*"code":"SYNC_NETWORK"/.test(w.log()), 10_000);
  assert.ok(failed, `the background sync tried and failed:\n${w.log().slice(-2000)}`);
  const st = await dave().status();
  assert.equal(st.body.pendingSync, 3, JSON.stringify(st.body));
  assert.notEqual(st.body.syncAlarm, null, "a retry is scheduled");
  const now = await dave().sync();
  assert.equal(now.status, 503);
  assert.equal(now.body.error.code, "SYNC_NETWORK");
  await w.stop();

  w = await startWorker({ persistTo, vars: { ...fast, ENGRAM_ORIGIN: originUrl } });
  // No request to the worker: the persisted alarm wakes the user's object and pushes the outbox.
  const synced = await eventually(async () => (await originTexts("acme", "dave")).length === 3, 30_000, 250);
  assert.ok(synced, `the origin got the outbox: ${JSON.stringify(await originTexts("acme", "dave"))}\n${w.log().slice(-2000)}`);
  assert.deepEqual(await originTexts("acme", "dave"), [...texts].sort());
  assert.equal((await dave().status()).body.pendingSync, 0);
});

test("a change from another device is pulled in the background, and its forget-user empties the worker's store", async () => {
  const { Engram, MemoryStorage } = await import(join(ROOT, "pkg/dist/entrypoints/node.js"));
  const laptop = await Engram.open({ user: "dave", tenant: "acme", storage: new MemoryStorage(), sync: { url: originUrl, token: token("acme", "dave"), background: false } });
  try {
    await laptop.sync();
    assert.equal((await laptop.list()).length, 3, "the laptop sees what the worker pushed");
    await laptop.remember("Dave's passport must be renewed in March");
    await laptop.sync();
    const pulled = await eventually(async () => (await allTexts(dave())).includes("Dave's passport must be renewed in March"), 20_000, 250);
    assert.ok(pulled, `the worker pulled the laptop's memory by itself:\n${w.log().slice(-1500)}`);
    assert.equal((await allTexts(dave())).length, 4);

    await laptop.forgetUser();
    await laptop.sync();
    const gone = await eventually(async () => (await dave().status()).body.count === 0, 20_000, 250);
    assert.ok(gone, `forget-user reached the worker: ${JSON.stringify((await dave().status()).body)}`);
    assert.deepEqual(await allTexts(dave()), []);
    // A write after the forget is new and syncs again.
    assert.equal((await dave().remember("Dave started over with a new notebook")).status, 201);
    const r = await dave().sync();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(await originTexts("acme", "dave"), ["Dave started over with a new notebook"]);
  } finally {
    await laptop.close();
  }
});

test("forget-user on the worker reaches the origin; other users stay whole", async () => {
  const erin = client(w.url, token("acme", "erin"));
  const frank = client(w.url, token("acme", "frank"));
  assert.equal((await erin.remember("Erin runs the Lisbon office")).status, 201);
  assert.equal((await frank.remember("Frank prefers aisle seats")).status, 201);
  const r1 = await erin.sync();
  assert.equal(r1.status, 200, JSON.stringify(r1.body)); // (the background sync may have pushed it already)
  await frank.sync();
  assert.deepEqual(await originTexts("acme", "erin"), ["Erin runs the Lisbon office"]);
  assert.equal((await erin.forgetUser()).status, 200);
  const r2 = await erin.sync();
  assert.equal(r2.status, 200);
  assert.deepEqual(await originTexts("acme", "erin"), []);
  assert.deepEqual(await originTexts("acme", "frank"), ["Frank prefers aisle seats"]);
  assert.deepEqual(await allTexts(frank), ["Frank prefers aisle seats"]);
  // The origin's log carries no memory text either.
  assert.ok(!origin.log().includes("Lisbon"));
});
