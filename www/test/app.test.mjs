// The demo app (production build) in Chromium: offline chat with the exact prompt, a
// streaming OpenAI-compatible endpoint, reload persistence with cached tables, two tabs,
// forget one / everything, export / import, offline after the first load.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chat, gotoReady, installEngram, keptLines, launch, memoryTexts, openPage, serveBuild, settled, shot, startStub, waitReady } from "./helpers.mjs";

let browser, site;
before(async () => {
  installEngram();
  site = await serveBuild();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const url = (user) => `${site.url}?user=${user}`;

test("offline by default: turns are observed, the panel explains recall, and the exact prompt is shown", async () => {
  const context = await browser.newContext();
  const page = await openPage(context, url("offline"));
  assert.match(await page.textContent("#status"), /ready · exact o200k counts · tables downloaded/);
  assert.equal(page.tables.length, 2, "first visit downloads both tables");
  const progress = await page.evaluate(() => window.__engram.progress);
  assert.deepEqual(Object.keys(progress).sort(), ["embedding", "o200k_base"]);
  for (const p of Object.values(progress)) assert.ok(p.done && !p.cached && p.loaded === p.total && p.loaded > 1e6, JSON.stringify(p));
  await chat(page, "My name is Zhang San and I prefer Python.");
  await chat(page, "I switched from Python to Go.");
  await chat(page, "Which programming language should the new service use?");
  await settled(page);
  // Under each user turn, what was kept from it — or that nothing was.
  const kept = await keptLines(page);
  assert.equal(kept.length, 3, kept.join(" | "));
  assert.match(kept[0], /^kept: .*User's name is Zhang San/);
  assert.match(kept[1], /^kept: .*User prefers Go/);
  assert.equal(kept[2], "nothing kept from this message", "a question keeps nothing");
  // The profile the core derives, in the panel.
  const profile = await page.textContent("#profile");
  assert.match(profile, /Name\s*Zhang San/);
  assert.match(profile, /Language\s*en/);
  assert.match(profile, /User prefers Go/);
  assert.doesNotMatch(profile, /User prefers Python/, "the superseded value is not the profile's");
  assert.doesNotMatch(profile, /null/, "a user without rules sees no stray text");

  const prompt = JSON.parse(await page.getAttribute("#log li.prompt:last-child pre", "data-body"));
  assert.equal(await page.textContent("#log li.prompt:last-child pre"), prompt.messages.map((x) => `── ${x.role} ──\n${x.content}`).join("\n"));
  assert.equal(prompt.messages[0].role, "system");
  assert.match(prompt.messages[0].content, /<memory-data trust="untrusted">[\s\S]*"User prefers Go"[\s\S]*<\/memory-data>/);
  assert.doesNotMatch(prompt.messages[0].content.split("[recent turns]")[0], /User prefers Python/, "the superseded value is not recalled");
  assert.deepEqual(prompt.messages[1], { role: "user", content: "Which programming language should the new service use?" });
  const meta = await page.textContent("#log li.prompt:last-child .meta");
  const m = meta.match(/\((\d+) tokens, exact o200k; memory context (\d+)\/900\)/);
  assert.ok(m, meta);
  // The app's count is the SDK's exact count of what it shows.
  const recount = await page.evaluate((p) => window.__engram.mem.countTokens(p.messages.map((x) => x.content).join("\n")), prompt);
  assert.deepEqual(recount, { tokens: Number(m[1]), exact: true });

  const texts = await memoryTexts(page);
  assert.ok(texts.includes("User prefers Go") && texts.includes("User's name is Zhang San"), texts.join(" | "));
  assert.ok(!texts.includes("User prefers Python"));
  const facts = await page.textContent('#memories li.memory:has-text("User prefers Go") .facts');
  assert.match(facts, /^preference · importance 0\.85 · weight 0\.8\d · \d+ s ago · rule-extracted/);
  assert.match(await page.textContent("#audit"), /User prefers Python[\s\S]*replaced by “User prefers Go”/);
  const why = await page.$$eval("#why tr.hit", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.equal(why[0][0], "User prefers Go");
  assert.equal(why[0][3], "#1", "recalled through its fact key");
  assert.match(await page.textContent("#ctx-tokens"), /^\d+ tokens \(exact o200k\) · \d+ included/);
  await shot(page, "www-offline-chat");
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("a Chinese chat typed as people type it shows under each turn what was kept, and the questions keep nothing", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await openPage(context, url("zh"));
  await chat(page, "我海鲜过敏 虾蟹都不能碰");
  await chat(page, "养了只乌龟 名字叫慢慢");
  await chat(page, "你会说粤语吗");
  await settled(page);
  const kept = await keptLines(page);
  assert.equal(kept.length, 3, kept.join(" | "));
  assert.match(kept[0], /^kept: .*用户海鲜过敏，虾蟹都不能碰/);
  assert.match(kept[1], /^kept: .*用户养了只乌龟，名字叫慢慢/);
  assert.equal(kept[2], "nothing kept from this message", "a question keeps nothing");
  const texts = await memoryTexts(page);
  assert.ok(texts.includes("用户海鲜过敏，虾蟹都不能碰"), texts.join(" | "));
  // Text with no spaces to break at still fits a phone's width, in the panel too.
  await page.click("#to-panel");
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no horizontal overflow");
  await shot(page, "www-chinese-chat-phone");
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("an English chat typed as people type it, on a phone, keeps what was said about the user and not the request around it", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await openPage(context, url("en-chat"));
  await chat(page, "allergic to penicillin fyi");
  await chat(page, "can you suggest a recipe? no dairy pls, im lactose intolerant");
  await chat(page, "have a great weekend!");
  await settled(page);
  const kept = await keptLines(page);
  assert.equal(kept.length, 3, kept.join(" | "));
  assert.match(kept[0], /^kept: .*User is allergic to penicillin/);
  assert.match(kept[1], /^kept: .*User is lactose intolerant/);
  assert.doesNotMatch(kept[1], /Correction/, "a request is not a correction");
  assert.equal(kept[2], "nothing kept from this message", "a wish keeps nothing");
  const texts = await memoryTexts(page);
  assert.ok(texts.includes("User is allergic to penicillin"), texts.join(" | "));
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no horizontal overflow");
  await shot(page, "www-english-chat-phone");
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("with an OpenAI-compatible endpoint: the context is sent and the answer streams in", async () => {
  const stub = await startStub();
  const context = await browser.newContext();
  try {
    const page = await openPage(context, url("online"));
    await page.click("#settings summary");
    await page.fill("#base-url", stub.url);
    await page.fill("#model", "stub-model");
    await page.fill("#api-key", "sk-test-123");
    await page.click("#save-settings");
    await chat(page, "I prefer Go for backend services.");
    const streamed = [];
    page.on("console", () => undefined);
    const watcher = page.evaluate(
      () =>
        new Promise((resolve) => {
          const seen = [];
          const obs = new MutationObserver(() => {
            const li = document.querySelector("#log li.assistant:last-child");
            const t = li?.querySelector(".body")?.textContent ?? "";
            if (t && seen[seen.length - 1] !== t) seen.push(t);
            if (li?.dataset.done === "true") {
              obs.disconnect();
              resolve(seen);
            }
          });
          obs.observe(document.getElementById("log"), { subtree: true, childList: true, characterData: true, attributes: true });
        }),
    );
    await chat(page, "Which language for the new service?");
    streamed.push(...(await watcher));
    assert.equal(stub.requests.length, 2);
    const req = stub.requests[1];
    assert.equal(req.url, "/v1/chat/completions");
    assert.equal(req.headers.authorization, "Bearer sk-test-123");
    assert.equal(req.body.model, "stub-model");
    assert.equal(req.body.stream, true);
    assert.match(req.body.messages[0].content, /<memory-data trust="untrusted">[\s\S]*Go[\s\S]*<\/memory-data>/);
    assert.equal(await page.textContent("#log li.assistant:last-child .body"), "Go is a good fit for the new service.");
    assert.ok(streamed.length >= 2, `the answer arrived in pieces: ${JSON.stringify(streamed)}`);
    // The assistant's answer is a turn of the session, shown again after a reload.
    await gotoReady(page, url("online"));
    assert.match(await page.textContent("#log"), /Go is a good fit for the new service\./);
    await shot(page, "www-streamed-answer");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await stub.close();
  }
});

test("a reload keeps the memories (IndexedDB) and reads both tables from the cache", async () => {
  const context = await browser.newContext();
  const page = await openPage(context, url("reload"));
  await chat(page, "I work at Alibaba in Hangzhou.");
  await settled(page);
  assert.ok((await memoryTexts(page)).includes("User works at Alibaba"));
  page.tables.length = 0;
  await gotoReady(page, url("reload"));
  await settled(page);
  assert.deepEqual(page.tables, [], "no table was fetched again");
  assert.match(await page.textContent("#status"), /tables from cache/);
  assert.deepEqual(Object.values(await page.evaluate(() => window.__engram.progress)).map((p) => p.cached), [true, true]);
  assert.ok((await memoryTexts(page)).includes("User works at Alibaba"));
  assert.match(await page.textContent("#log"), /I work at Alibaba in Hangzhou\./);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("two tabs of one user writing at once lose nothing, and each shows the other's writes", async () => {
  const context = await browser.newContext();
  const a = await openPage(context, url("tabs"));
  const b = await openPage(context, url("tabs"));
  const write = (page, tab) =>
    page.evaluate(async (t) => {
      const mem = window.__engram.mem;
      // Distinct numbers, so that no note is a near-duplicate of another (that would reinforce, not add).
      const base = "abcd".indexOf(t) * 15;
      await Promise.all(Array.from({ length: 15 }, (_, i) => mem.remember(`note ${base + i}: invoice ${1000 + (base + i) * 37} for client ${t}${i}`)));
      await mem.compact();
    }, tab);
  await Promise.all([write(a, "a"), write(b, "b"), write(a, "c"), write(b, "d")]);
  const c = await openPage(context, url("tabs"));
  await settled(c);
  const notes = (await memoryTexts(c)).filter((t) => t.startsWith("note "));
  assert.equal(notes.length, 60, `a third tab sees all 60 writes, saw ${notes.length}`);
  // Tab a learns of b's writes through the broadcast, without a reload.
  await a.waitForFunction(() => document.querySelectorAll("#memories li.memory").length >= 60, null, { timeout: 10_000 });
  const inA = (await memoryTexts(a)).filter((t) => t.startsWith("note "));
  assert.equal(inA.length, 60);
  // A tab that compacts twice leaves no op keys behind; the other tab must still notice.
  await b.evaluate(async () => {
    const mem = window.__engram.mem;
    await mem.remember("The staging server is called Kestrel");
    await mem.compact();
    await mem.compact();
  });
  await a.evaluate(() => window.__engram.mem.remember("The production database runs PostgreSQL 16"));
  const d = await openPage(context, url("tabs"));
  await settled(d);
  const inD = await memoryTexts(d);
  assert.ok(inD.includes("The staging server is called Kestrel") && inD.includes("The production database runs PostgreSQL 16"), inD.slice(-3).join(" | "));
  assert.equal(inD.filter((t) => t.startsWith("note ")).length, 60);
  await shot(a, "www-two-tabs");
  for (const p of [a, b, c, d]) assert.deepEqual(p.errors, []);
  await context.close();
});

test("forget one memory, then forget everything; both hold after a reload", async () => {
  const context = await browser.newContext();
  const page = await openPage(context, url("forget"));
  await chat(page, "My name is Li Lei.");
  await chat(page, "I work at Tencent.");
  await settled(page);
  assert.ok((await memoryTexts(page)).includes("User works at Tencent"));
  await page.click('#memories li.memory:has-text("User works at Tencent") button.forget');
  await page.waitForFunction(() => ![...document.querySelectorAll("#memories li .text")].some((e) => e.textContent === "User works at Tencent"));
  assert.ok((await memoryTexts(page)).includes("User's name is Li Lei"));
  await gotoReady(page, url("forget"));
  await settled(page);
  assert.ok(!(await memoryTexts(page)).includes("User works at Tencent"));
  assert.ok((await memoryTexts(page)).includes("User's name is Li Lei"));

  await page.click("#forget-all");
  assert.equal(await page.textContent("#forget-all"), "Click again to forget everything");
  assert.ok((await memoryTexts(page)).length > 0, "one click does not forget");
  await page.click("#forget-all");
  await page.waitForFunction(() => document.querySelectorAll("#memories li.memory").length === 0);
  await shot(page, "www-forgotten");
  await gotoReady(page, url("forget"));
  await settled(page);
  assert.deepEqual(await memoryTexts(page), []);
  assert.equal(await page.evaluate(() => window.__engram.mem.count()), 0);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("export, forget, import: the memories come back", async () => {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await openPage(context, url("export"));
  await chat(page, "I prefer Rust for systems work.");
  await settled(page);
  const before = await memoryTexts(page);
  assert.ok(before.length > 0);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const path = await download.path();
  await page.click("#forget-all");
  await page.click("#forget-all");
  await page.waitForFunction(() => document.querySelectorAll("#memories li.memory").length === 0);
  await page.setInputFiles("#import", path);
  await page.waitForFunction((n) => document.querySelectorAll("#memories li.memory").length === n, before.length);
  assert.deepEqual(await memoryTexts(page), before);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("offline after the first load: the app, its tables and its memories load with no network", async () => {
  const context = await browser.newContext();
  const page = await openPage(context, url("no-network"));
  await chat(page, "I live in Shenzhen.");
  await page.waitForFunction(() => window.__engram.shellCached !== undefined);
  assert.equal(await page.evaluate(() => window.__engram.shellCached), true);
  await context.setOffline(true);
  await page.reload();
  await waitReady(page);
  await settled(page);
  assert.match(await page.textContent("#status"), /tables from cache/);
  assert.ok((await memoryTexts(page)).some((t) => /Shenzhen/.test(t)), (await memoryTexts(page)).join(" | "));
  await chat(page, "Where do I live?");
  assert.match(await page.textContent("#log li.prompt:last-child pre"), /Shenzhen/);
  await shot(page, "www-offline-reload");
  assert.deepEqual(page.errors, []);
  await context.close();
});

test("a conflicting value waits in pending review until the user keeps it", async () => {
  const context = await browser.newContext();
  const page = await openPage(context, url("review"));
  await chat(page, "I work at Alibaba.");
  await page.evaluate(() =>
    window.__engram.mem.remember({ text: "User works at Huawei", key: { subject: "user", attribute: "employer" }, onConflict: "flag" }),
  );
  await page.waitForSelector('#reviews li:has-text("User works at Huawei")');
  assert.ok((await memoryTexts(page)).includes("User works at Alibaba"), "the current value stays until the review");
  await shot(page, "www-pending-review");
  await page.click('#reviews li:has-text("User works at Huawei") button:has-text("Keep new")');
  await page.waitForFunction(() => [...document.querySelectorAll("#memories li .text")].some((e) => e.textContent === "User works at Huawei"));
  await settled(page);
  assert.ok(!(await memoryTexts(page)).includes("User works at Alibaba"));
  assert.match(await page.textContent("#reviews"), /No conflicts waiting/);
  assert.match(await page.textContent("#audit"), /User works at Alibaba[\s\S]*replaced by “User works at Huawei”/);
  assert.deepEqual(page.errors, []);
  await context.close();
});
