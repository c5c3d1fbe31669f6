// A database the browser deletes is reported, never opened silently empty.
//
// Chromium writes a LevelDB log record's 7-byte header and its payload in two writes. A
// SIGKILL between them (crash.test.mjs's kill trials meet it about once in a hundred kills
// under load) leaves a header with no payload at the end of the log. The next start reads
// that torn tail as the end of the log, as LevelDB should, and then appends its own records
// after it; the start after that reads a record that fails its checksum, logs "IndexedDB
// recovering from a corrupted (and deleted) database" and deletes the origin's whole
// IndexedDB, acknowledged writes and all. engram cannot stop the browser doing that, so
// `IndexedDbStorage` notes each database it opens in the origin private file system (not in
// IndexedDB) and `Engram.open` reports `openReport.storageLost` when a noted database comes
// back new; its second copy of every value, in the same file system, is put back
// (`openReport.storageRestored`). Here the torn header is written into the log of a stopped browser, as the kill
// leaves it, and the same report is checked against a deletion made with the raw API and
// one made on purpose with `IndexedDbStorage.destroy`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { harnessPage, openStore, startChromium, useFixture } from "./fixture-profile.mjs";

const fixture = useFixture("discarded");
const { skip } = fixture;
const profile = (tag) => fixture.profile(tag);

/** A new page of the fixture on `b`, the store `db` opened on it; its open report and memories. */
async function reopen(b, db, options = {}) {
  const page = await harnessPage(b.context, fixture.site.url);
  const { report } = await openStore(page, db, 100, options);
  const texts = (await page.evaluate(() => window.harness.list())).map((r) => r.text).sort();
  return { page, report, texts };
}

async function remember(page, texts) {
  for (const text of texts) assert.equal((await page.evaluate((t) => window.harness.remember(t), text)).action, "inserted");
}

/** The log file Chromium's IndexedDB LevelDB appends to, for the fixture's origin. */
function leveldbLog(profileDir) {
  const idb = join(profileDir, "Default", "IndexedDB");
  const dir = readdirSync(idb).find((d) => /^http_127\.0\.0\.1_\d+\.indexeddb\.leveldb$/.test(d));
  assert.ok(dir, `the profile holds the origin's IndexedDB LevelDB (${readdirSync(idb)})`);
  const logs = readdirSync(join(idb, dir)).filter((f) => /^\d+\.log$/.test(f)).sort();
  assert.ok(logs.length, "the LevelDB has a log file");
  return join(idb, dir, logs.at(-1));
}

const NOTES = ["Prefers green tea in the morning", "Is training for a marathon in April", "Works on the billing service"];

test("a store Chromium deletes after a torn log record opens reporting storageLost, with every note back from the second copy", { skip, timeout: 120_000 }, async (t) => {
  const dir = profile("torn");
  const db = "engram-discarded-torn";
  let b = await startChromium(dir);
  try {
    let { page, report, texts } = await reopen(b, db);
    assert.equal(report.storageLost, false, "a new database is not a lost one");
    assert.deepEqual(texts, []);
    await remember(page, NOTES);
    await page.evaluate(() => window.harness.close());
    await b.close();

    // What the kill leaves: a record's header (masked crc, length 225, type FULL) and no payload.
    const log = leveldbLog(dir);
    const size = statSync(log).size;
    assert.ok(size % 32768 <= 32768 - 7, "the header fits in the log's current block");
    appendFileSync(log, Buffer.from([0x5a, 0x17, 0xc3, 0x9e, 225, 0, 1]));

    b = await startChromium(dir);
    ({ page, report, texts } = await reopen(b, db));
    assert.deepEqual(texts, [...NOTES].sort(), "the torn tail is read as the log's end: every note is there");
    assert.equal(report.storageLost, false);
    await remember(page, ["Moved to Lisbon in May"]);
    await page.evaluate(() => window.harness.close());
    await b.close();
    const appended = statSync(log).size;

    b = await startChromium(dir);
    ({ report, texts } = await reopen(b, db));
    if (await b.deletedCorruptDatabase(0)) {
      assert.equal(report.storageLost, true, "Chromium deleted the database and the SDK did not say so");
      assert.ok(report.storageRestored > 0, `the second copy was put back: ${JSON.stringify(report)}`);
      assert.deepEqual(texts, [...NOTES, "Moved to Lisbon in May"].sort(), "every acknowledged note is back from the second copy");
      t.diagnostic(`Chromium deleted the database as corrupt (the torn header at byte ${size} of its log, the next start's records after it up to byte ${appended}); the SDK reported storageLost and put back ${report.storageRestored} values`);
    } else {
      // A Chromium that no longer deletes: nothing lost, and nothing of the report tested here.
      assert.deepEqual(texts, [...NOTES, "Moved to Lisbon in May"].sort());
      assert.equal(report.storageLost, false);
      t.skip("this Chromium kept the database past the torn header (update the README's Storage note)");
    }
  } finally {
    await b.kill().catch(() => undefined);
  }
});

test("a database deleted behind engram's back is reported lost once and put back; one deleted with IndexedDbStorage.destroy is not", { skip, timeout: 60_000 }, async () => {
  const db = "engram-discarded-raw";
  const b = await startChromium(profile("raw"));
  try {
    let { page, report } = await reopen(b, db);
    assert.equal(report.storageLost, false);
    await remember(page, NOTES.slice(0, 2));
    await page.evaluate(() => window.harness.close());
    await page.evaluate((name) => window.harness.deleteRaw(name), db);
    await page.close();

    let texts;
    ({ page, report, texts } = await reopen(b, db));
    assert.equal(report.storageLost, true, "the raw deletion is reported");
    assert.ok(report.storageRestored > 0, JSON.stringify(report));
    assert.deepEqual(texts, NOTES.slice(0, 2).sort(), "and what it held is back from the second copy");
    await remember(page, NOTES.slice(2));
    await page.evaluate(() => window.harness.close());
    await page.close();

    ({ page, report, texts } = await reopen(b, db));
    assert.equal(report.storageLost, false, "the next open finds the database it recreated: nothing more was lost");
    assert.equal(report.storageRestored, 0);
    assert.deepEqual(texts, [...NOTES].sort());
    await page.evaluate(() => window.harness.close());
    await page.evaluate((name) => window.harness.destroy(name), db);
    await page.close();

    ({ report, texts } = await reopen(b, db));
    assert.equal(report.storageLost, false, "a deletion through IndexedDbStorage.destroy is meant, not lost");
    assert.equal(report.storageRestored, 0, "and its second copy went with it");
    assert.deepEqual(texts, []);
  } finally {
    await b.kill().catch(() => undefined);
  }
});

test("without the second copy (secondCopy: false) a deleted database is still reported lost, and opens empty", { skip, timeout: 60_000 }, async () => {
  const db = "engram-discarded-nocopy";
  const b = await startChromium(profile("nocopy"));
  try {
    let { page, report } = await reopen(b, db, { secondCopy: false });
    await remember(page, NOTES.slice(0, 2));
    await page.evaluate(() => window.harness.close());
    await page.evaluate((name) => window.harness.deleteRaw(name), db);
    await page.close();
    let texts;
    ({ page, report, texts } = await reopen(b, db, { secondCopy: false }));
    assert.equal(report.storageLost, true, "the deletion is reported");
    assert.equal(report.storageRestored, 0);
    assert.deepEqual(texts, [], "there is no copy to put back");
    await page.evaluate(() => window.harness.close());
  } finally {
    await b.kill().catch(() => undefined);
  }
});
