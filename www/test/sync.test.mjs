// Two browser contexts as two devices of one user, syncing through the real engram-origin
// binary over SecantusDB (a MongoDB-wire server). The page calls the origin directly, cross
// origin: the origin allows the app's origin (ENGRAM_CORS_ORIGINS) and no other.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chat, gotoReady, installEngram, launch, memoryTexts, openPage, root, serveBuild, settled, shot } from "./helpers.mjs";

const BIN = join(root, "target/release/engram-origin");
const missing = existsSync(BIN) ? false : `${BIN} is not built (cargo build --release -p engram-origin)`;
let browser, site, origin, mongoPid, token;

before(async () => {
  if (missing) return;
  installEngram();
  if (!process.env.MONGODB_URI) {
    const port = process.env.ENGRAM_MONGO_PORT ?? "27131";
    mongoPid = Number(execFileSync("bash", [join(root, "scripts/mongo.sh")], { env: { ...process.env, ENGRAM_MONGO_PORT: port }, encoding: "utf8" }).trim());
    process.env.MONGODB_URI = `mongodb://127.0.0.1:${port}/`;
  }
  site = await serveBuild({ rebuild: !process.env.ENGRAM_WWW_BUILT });
  const o = await import(join(root, "pkg/test/origin.mjs"));
  origin = await o.startOrigin({ ENGRAM_CORS_ORIGINS: new URL(site.url).origin });
  token = o.token;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
  await origin?.kill();
  if (mongoPid) process.kill(mongoPid);
});

async function device(user) {
  const context = await browser.newContext();
  const page = await openPage(context, `${site.url}?user=${user}`);
  await page.click("#settings summary");
  await page.fill("#sync-url", origin.url);
  await page.fill("#sync-token", token(user));
  await page.click("#save-settings"); // reloads with sync on
  await page.waitForLoadState("load");
  await page.waitForFunction(() => window.__engram?.ready === true && window.__engram.sync !== undefined, null, { timeout: 90_000 });
  return { context, page };
}

test("two devices of one user converge through the origin; another user sees nothing", { skip: missing }, async () => {
  const phone = await device("sync-user");
  const laptop = await device("sync-user");
  const other = await device("other-user");

  await chat(phone.page, "I work at ByteDance in Shanghai.");
  // A sync that ends after the click, with nothing left to send (a background sync that ran
  // before the turn was written also left `pending` at 0: closing the page then lost the turn).
  const before = await phone.page.evaluate(() => window.__engram.sync.syncs);
  await phone.page.click("#sync-now");
  await phone.page.waitForFunction((n) => window.__engram.sync.pending === 0 && window.__engram.sync.syncs > n, before, { timeout: 30_000 });
  assert.equal(await phone.page.evaluate(() => window.__engram.mem.pendingSync()), 0, "every batch reached the origin");

  await laptop.page.click("#sync-now");
  await laptop.page.waitForFunction(() => [...document.querySelectorAll("#memories li .text")].some((e) => e.textContent === "User works at ByteDance"), null, { timeout: 30_000 });
  assert.match(await laptop.page.textContent("#sync-status"), /^sync: ok .* · 0 pending$/);
  await shot(laptop.page, "www-synced-device");

  // The laptop forgets the memory; the phone loses it at its next sync.
  await laptop.page.click('#memories li.memory:has-text("User works at ByteDance") button.forget');
  await laptop.page.waitForFunction(() => ![...document.querySelectorAll("#memories li .text")].some((e) => e.textContent === "User works at ByteDance"));
  await laptop.page.click("#sync-now");
  await laptop.page.waitForFunction(() => window.__engram.sync.pending === 0);
  await phone.page.click("#sync-now");
  await phone.page.waitForFunction(() => ![...document.querySelectorAll("#memories li .text")].some((e) => e.textContent === "User works at ByteDance"), null, { timeout: 30_000 });

  await other.page.click("#sync-now");
  await other.page.waitForFunction(() => window.__engram.sync.syncs > 0);
  await settled(other.page);
  assert.deepEqual(await memoryTexts(other.page), []);

  // At the origin: the turn as written, and the forgotten memory as a tombstone without its text.
  const { status, body } = await origin.get("/v1/memories?history=true", "sync-user");
  assert.equal(status, 200);
  assert.ok(body.memories.some((m) => m.kind === "message" && m.text === "I work at ByteDance in Shanghai."), JSON.stringify(body));
  const gone = body.memories.filter((m) => m.source === "rule-extracted");
  assert.equal(gone.length, 1);
  assert.equal(gone[0].deleted, true);
  assert.equal(gone[0].text, undefined);
  assert.deepEqual((await origin.get("/v1/memories?history=true", "other-user")).body.memories, []);

  for (const d of [phone, laptop, other]) {
    assert.deepEqual(d.page.errors, []);
    await d.context.close();
  }
});

test("a device whose store the browser deleted says so and pulls its memories back from the origin", { skip: missing }, async () => {
  const phone = await device("lost-user");
  await chat(phone.page, "I work at ByteDance in Shanghai.");
  // A sync that ends after the click, with nothing left to send (a background sync that ran
  // before the turn was written also left `pending` at 0: closing the page then lost the turn).
  const before = await phone.page.evaluate(() => window.__engram.sync.syncs);
  await phone.page.click("#sync-now");
  await phone.page.waitForFunction((n) => window.__engram.sync.pending === 0 && window.__engram.sync.syncs > n, before, { timeout: 30_000 });
  assert.equal(await phone.page.evaluate(() => window.__engram.mem.pendingSync()), 0, "every batch reached the origin");
  assert.ok((await memoryTexts(phone.page)).includes("User works at ByteDance"));
  assert.doesNotMatch(await phone.page.textContent("#status"), /deleted/);
  assert.deepEqual(phone.page.errors, []);

  // The app's database deleted as the browser deletes a corrupt one: from outside engram, on
  // a page of the same origin that does not run the app (the app's page holds it open).
  await phone.page.close();
  const outside = await phone.context.newPage();
  await outside.goto(new URL("/sw.js", site.url).href); // a script shown as text (unknown paths get the app)
  await outside.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const r = indexedDB.deleteDatabase("engram-www");
        r.onsuccess = resolve;
        r.onerror = () => reject(r.error);
        setTimeout(() => reject(new Error("engram-www still open after 20 s")), 20_000);
      }),
  );
  await outside.close();

  const again = await openPage(phone.context, `${site.url}?user=lost-user`);
  assert.equal(await again.evaluate(() => window.__engram.mem.openReport.storageLost), true);
  assert.match(await again.textContent("#status"), /the browser deleted this device's memories, pulling them back from the origin/);
  await again.waitForFunction(() => [...document.querySelectorAll("#memories li .text")].some((e) => e.textContent === "User works at ByteDance"), null, { timeout: 30_000 });
  await shot(again, "www-store-deleted-pulled-back");
  assert.deepEqual(again.errors, []);
  await phone.context.close();
});
