// Crash consistency in the browser: a page streams remember() calls into IndexedDB and is
// ended abruptly mid-stream — its renderer crashed (CDP Page.crash), the tab closed without
// unload handlers, or the whole Chromium process group killed with SIGKILL — at a seeded
// random point. A new page on the same profile and origin then reopens the store: every
// acknowledged write is there (same id, same text), at most the one write in flight appears
// besides them, the open reports nothing corrupt, and writing goes on. The browser runs on
// an on-disk profile (not an off-the-record context), so what a reopen finds is in the
// profile's IndexedDB, which a final clean restart of the browser confirms.
//
// The page (fixtures/crash.html) loads the SDK as built in pkg/dist, unbundled, through an
// import map. Each write is acknowledged to this process through an exposed function and the
// page waits for that round trip before it starts the next, so at most one write is ever in
// flight and "acknowledged" here means "its promise resolved in the page".
//
// One deletion is the browser's own, and is recovered from, not tolerated: Chromium writes a
// LevelDB log record's header and its payload in two writes, so a SIGKILL between them
// leaves a header with no payload; the next start ignores that torn tail and appends after
// it, and the start after that finds a record that fails its checksum, logs "IndexedDB
// recovering from a corrupted (and deleted) database" and deletes the origin's whole
// IndexedDB (Chromium 156, in 8 of 95 runs of this test beside a cargo build; the bytes are
// described in discarded.test.mjs, which provokes it on purpose). When this Chromium logged
// that line, the SDK must say so (`openReport.storageLost`) and put its second copy (in the
// origin private file system) back (`openReport.storageRestored`): the acknowledged writes
// are all there, as after any other stop. Any loss fails.
//
// ENGRAM_CRASH_SEED (default 20261201) and ENGRAM_CRASH_TRIALS (default 5 per method).
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { harnessPage as pageAt, openStore, PREFIX, startChromium, useFixture, within } from "./fixture-profile.mjs";

const fixture = useFixture("crash");
const { skip } = fixture;
const harnessPage = (context) => pageAt(context, fixture.site.url);
const SEED = Number(process.env.ENGRAM_CRASH_SEED ?? 20261201);
const TRIALS = Number(process.env.ENGRAM_CRASH_TRIALS ?? 5);
const totals = [];
after(() => {
  if (totals.length) {
    const sum = (k) => totals.reduce((a, t) => a + t[k], 0);
    console.log(
      `crash consistency (seed ${SEED}): ${totals.length} methods × ${TRIALS} trials; ${sum("acked")} writes acknowledged, ` +
        `${sum("foundAcked")} of them found after reopen, ${sum("lost")} lost; ${sum("extras")} unacknowledged in-flight writes found, ${sum("inflightLost")} lost; ` +
        `${sum("browserDeleted")} databases deleted by Chromium as corrupt, each reported by the SDK and put back from its second copy (${sum("restoredValues")} values)`,
    );
  }
});

/** mulberry32: a small seeded PRNG, so a failing stop point can be replayed. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "amber falcon river stone cloud maple harbor violet lantern copper meadow glacier thunder orchid " +
  "velvet cedar prairie comet saffron willow granite ember tundra coral marble breeze canyon juniper " +
  "quartz lagoon pepper walnut cobalt thistle ivory sparrow basalt mango indigo fjord poplar jasmine"
).split(" ");

/** Distinct, ordinary sentences (no digits runs a PII scrubber could take for a number). */
function texts(method, n, rand) {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  return Array.from({ length: n }, (_, i) => `The ${method} note ${i} says ${pick()} ${pick()} meets ${pick()} near the ${pick()} ${pick()}.`);
}

// ---------------------------------------------------------------------------- trials

const STOPS = {
  /** The renderer process crashes (CDP Page.crash): no unload, no JS, the tab is gone. */
  async crash(b, page, cdp) {
    const crashed = new Promise((r) => page.once("crash", r));
    cdp.send("Page.crash").catch(() => undefined);
    await within(crashed, 10_000, "Page.crash");
    await page.close().catch(() => undefined);
    return b;
  },
  /** The tab is closed without beforeunload. */
  async close(b, page) {
    await page.close({ runBeforeUnload: false });
    return b;
  },
  /** The browser's whole process group is killed (SIGKILL) and started again on its profile. */
  async kill(b, _page, _cdp, profile) {
    await b.kill();
    return startChromium(profile);
  },
};

/**
 * Stream `all[from..]` from `page` until `stopAfter` acknowledgements, then stop it the
 * `jitter` fraction of two write-times later (so the stop lands anywhere in a write: the
 * embedding, the core, the op-log transaction, a compaction). Returns the browser to go
 * on with and every acknowledgement that reached this process, in order of arrival.
 */
async function streamAndStop({ b, page, method, profile, all, from, stopAfter, jitter, unreportedEvery = 0 }) {
  const cdp = method === "crash" ? await b.context.newCDPSession(page) : undefined;
  const acked = [];
  const stamps = [];
  let failure;
  const reached = new Promise((resolve) => {
    page.onAck = (a) => {
      if (a.error || a.done) failure ??= a.error ?? "the stream ended before the stop point";
      else {
        acked.push(a);
        stamps.push(performance.now());
      }
      if (failure || acked.length === stopAfter) resolve();
    };
  });
  await page.evaluate(({ all, from, unreportedEvery }) => window.harness.stream(all, from, { unreportedEvery }), { all, from, unreportedEvery });
  await within(reached, 60_000, `${stopAfter} acknowledged writes`);
  assert.equal(failure, undefined, `the stream failed before the stop: ${failure}`);
  const per = stamps.length > 1 ? (stamps.at(-1) - stamps[0]) / (stamps.length - 1) : 5;
  const delay = jitter * 2 * per;
  await new Promise((r) => (delay < 1 ? setImmediate(r) : setTimeout(r, delay)));
  // An acknowledgement on its way while the page dies counts only if it arrives: the page
  // does not start write i+1 before ack i has come back, so one write at most is unknown.
  page.onAck = (a) => (a.error ? (failure ??= a.error) : !a.done && acked.push(a));
  const stoppedAt = acked.length;
  b = await STOPS[method](b, page, cdp, profile);
  assert.equal(failure, undefined, `the stream failed: ${failure}`);
  return { b, acked, delay, stoppedAt, per };
}

/** What a reopen found against the ledger of durable writes (id → text). */
function verify(ledger, found, inflightText) {
  const byId = new Map(found.map((r) => [r.id, r.text]));
  const missing = [...ledger].filter(([id, text]) => byId.get(id) !== text);
  const extras = found.filter((r) => !ledger.has(r.id));
  const problems = [];
  if (missing.length) {
    problems.push(
      `${missing.length} of ${ledger.size} acknowledged writes missing after reopen (store holds ${found.length}): ` +
        missing.slice(0, 5).map(([id, text]) => `${id} ${JSON.stringify(text)} -> ${JSON.stringify(byId.get(id) ?? null)}`).join("; "),
    );
  }
  if (extras.length > 1) problems.push(`${extras.length} unacknowledged writes appeared, at most the one in flight may: ${JSON.stringify(extras.slice(0, 5))}`);
  else if (extras.length === 1 && extras[0].text !== inflightText) {
    problems.push(`the unacknowledged write found is not the one in flight: ${JSON.stringify(extras[0])}, in flight ${JSON.stringify(inflightText)}`);
  }
  return { byId, missing, extras, problems };
}

/**
 * The browser's own deletion: this Chromium logged deleting a corrupt IndexedDB database
 * during this reopen (past the `before` it had logged already). The SDK must report it
 * (`storageLost`) and have put the second copy back (`storageRestored`), and the strict
 * checks that follow hold as after any other stop: every acknowledged write is there.
 * A reopen that finds the store empty while writes were durable fails, reported or not.
 */
async function deletedByBrowser(b, before, report, found, ledger, stats, t, when) {
  if (!report.storageLost) {
    assert.ok(!(found.length === 0 && ledger.size > 0 && (await b.deletedCorruptDatabase(before))), `${when}: Chromium deleted the database as corrupt and the SDK opened it silently empty`);
    return;
  }
  assert.ok(await b.deletedCorruptDatabase(before), `${when}: the SDK reported a lost store, but Chromium logged no deletion`);
  assert.ok(report.storageRestored > 0, `${when}: Chromium deleted the database and nothing was put back from the second copy`);
  t.diagnostic(`${when}: Chromium deleted the origin's IndexedDB as corrupt (its log says so); the SDK reported storageLost and put back ${report.storageRestored} values from its second copy`);
  stats.browserDeleted++;
  stats.restoredValues += report.storageRestored;
}


for (const method of Object.keys(STOPS)) {
  test(`${method}: ${TRIALS} abrupt stops mid-stream lose no acknowledged IndexedDB write, at most the one in flight`, { skip, timeout: 60_000 + TRIALS * 15_000 }, async (t) => {
    const rand = prng(SEED ^ [...method].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 7));
    const profile = fixture.profile(method);
    const db = `engram-crash-${method}`;
    const all = texts(method, 60 * (TRIALS + 2), rand);
    /** Every write known durable: acknowledged, or found after a reopen. id → text. */
    const ledger = new Map();
    const stats = { method, acked: 0, foundAcked: 0, lost: 0, extras: 0, inflightLost: 0, browserDeleted: 0, restoredValues: 0 };
    totals.push(stats);
    const t0 = Date.now();
    let b = await startChromium(profile);
    let next = 0;
    try {
      let page = await harnessPage(b.context);
      await openStore(page, db, 100);
      for (let trial = 0; trial < TRIALS; trial++) {
        const stopAfter = 1 + Math.floor(rand() * 40);
        const from = next;
        const browserBefore = b;
        const run = await streamAndStop({ b, page, method, profile, all, from, stopAfter, jitter: rand() });
        b = run.b;
        const { acked } = run;
        for (const [n, a] of acked.entries()) {
          assert.equal(a.i, from + n, "acknowledgements arrive in order");
          assert.equal(a.action, "inserted", `write ${a.i} was ${a.action}, not inserted (texts must be distinct)`);
          assert.ok(!ledger.has(a.id), `write ${a.i}: id ${a.id} handed out twice`);
          ledger.set(a.id, a.text);
        }
        stats.acked += acked.length;
        const inflight = from + acked.length;

        // Reopen on a new page of the same profile and origin.
        const compactEvery = [3, 7, 100][Math.floor(rand() * 3)];
        // A browser started again by the stop may log its deletion before this page opens.
        const deletionsBefore = b === browserBefore ? b.deletions() : 0;
        page = await harnessPage(b.context);
        const { report } = await openStore(page, db, compactEvery);
        const found = await page.evaluate(() => window.harness.list());
        await deletedByBrowser(b, deletionsBefore, report, found, ledger, stats, t, `trial ${trial}`);
        {
          const { byId, extras, problems } = verify(ledger, found, all[inflight]);
          const foundAcked = acked.filter((a) => byId.get(a.id) === a.text).length;
          stats.foundAcked += foundAcked;
          stats.lost += acked.length - foundAcked;
          stats.extras += extras.length;
          stats.inflightLost += extras.length ? 0 : 1;
          t.diagnostic(
            `trial ${trial}: ${method} ${run.delay.toFixed(1)} ms after ack ${stopAfter} (~${run.per.toFixed(1)} ms a write; ${run.stoppedAt} acks had arrived): ` +
              `${acked.length} acknowledged, ${foundAcked} of them found; in-flight write ${extras.length ? "found" : "not found"}; ` +
              `store holds ${found.length} (${ledger.size} durable before${extras.length ? ` + ${extras.length} in flight` : ""}); open ${JSON.stringify(report)}; next compactEvery ${compactEvery}`,
          );
          assert.deepEqual(problems, [], `trial ${trial} (${method}; acknowledged this trial ${acked.length}, in total ${ledger.size})`);
          assert.deepEqual(report.corrupt, [], `trial ${trial}: the reopened store reports corrupt keys`);
          assert.notEqual(report.snapshot, "previous", `trial ${trial}: the current snapshot was unusable`);
          for (const e of extras) ledger.set(e.id, e.text);
          assert.equal(found.length, ledger.size, "nothing else is in the store");

          // The data is in the page's IndexedDB, read without the SDK.
          const raw = await page.evaluate(({ db, prefix }) => window.harness.raw(db, prefix), { db, prefix: PREFIX });
          assert.ok(raw.names.includes(db), `indexedDB.databases() lists ${db}: ${raw.names}`);
          assert.ok(raw.keys > 0 && raw.ops + raw.snapshots > 0, `the raw database holds the store's keys: ${JSON.stringify(raw)}`);
        }

        // Writing goes on after the reopen.
        next = inflight + 1;
        const w = await page.evaluate((text) => window.harness.remember(text), all[next]);
        assert.equal(w.action, "inserted");
        assert.ok(!ledger.has(w.id), `the write after reopen got a fresh id (${w.id})`);
        ledger.set(w.id, all[next]);
        next++;
        assert.deepEqual(page.errors, [], "the reopened page logged no errors");
      }

      // A clean restart of the browser on the same profile: everything durable is on disk.
      await page.evaluate(() => window.harness.close());
      await b.close();
      const idbDir = join(profile, "Default", "IndexedDB");
      assert.ok(existsSync(idbDir) && readdirSync(idbDir).some((d) => d.startsWith("http_127.0.0.1_")), `the profile holds the origin's IndexedDB on disk (${idbDir})`);
      b = await startChromium(profile);
      page = await harnessPage(b.context);
      const { report } = await openStore(page, db, 100);
      assert.deepEqual(report.corrupt, []);
      const found = await page.evaluate(() => window.harness.list());
      await deletedByBrowser(b, 0, report, found, ledger, stats, t, "after a clean browser restart");
      assert.deepEqual(verify(ledger, found, undefined).problems, [], "after a clean browser restart");
      assert.equal(found.length, ledger.size, `after a browser restart the store holds exactly the ${ledger.size} durable writes`);
      assert.deepEqual(page.errors, []);
      t.diagnostic(
        `${method}: ${stats.acked} acknowledged, ${stats.foundAcked} found, ${stats.lost} lost; in-flight write found in ${stats.extras} of ${TRIALS}; ` +
          `${ledger.size} memories after a clean restart; ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    } finally {
      await b.kill().catch(() => undefined);
    }
  });
}

// The checks above can fail: the same trial against a storage that acknowledges before it
// commits, and against a page that withholds acknowledgements, is caught and counted.
test("control: a write-behind store and unreported writes are caught by the same checks", { skip, timeout: 60_000 }, async (t) => {
  const profile = fixture.profile("control");
  const all = texts("control", 200, prng(SEED));
  let b = await startChromium(profile);
  try {
    // Write-behind by 400 ms: the renderer crash takes the last acknowledged writes with it.
    let page = await harnessPage(b.context);
    await openStore(page, "engram-crash-control-wb", 100, { writeBehindMs: 400 });
    let run = await streamAndStop({ b, page, method: "crash", profile, all, from: 0, stopAfter: 20, jitter: 0 });
    let ledger = new Map(run.acked.map((a) => [a.id, a.text]));
    page = await harnessPage(run.b.context);
    await openStore(page, "engram-crash-control-wb", 100);
    let v = verify(ledger, await page.evaluate(() => window.harness.list()), all[run.acked.length]);
    t.diagnostic(`write-behind: ${run.acked.length} acknowledged, ${v.missing.length} reported missing`);
    assert.ok(v.missing.length > 0 && /acknowledged writes missing after reopen/.test(v.problems[0]), JSON.stringify(v.problems));
    await page.close();

    // Every third acknowledgement withheld: the store holds writes nobody was told of.
    page = await harnessPage(b.context);
    await openStore(page, "engram-crash-control-quiet", 100);
    run = await streamAndStop({ b, page, method: "close", profile, all, from: 100, stopAfter: 12, jitter: 0, unreportedEvery: 3 });
    ledger = new Map(run.acked.map((a) => [a.id, a.text]));
    page = await harnessPage(b.context);
    await openStore(page, "engram-crash-control-quiet", 100);
    v = verify(ledger, await page.evaluate(() => window.harness.list()), undefined);
    t.diagnostic(`withheld acks: ${run.acked.length} acknowledged, ${v.extras.length} unacknowledged found`);
    assert.ok(v.extras.length > 1 && v.problems.some((p) => /unacknowledged writes appeared/.test(p)), JSON.stringify(v.problems));
  } finally {
    await b.kill().catch(() => undefined);
  }
});
