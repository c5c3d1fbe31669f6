// The demo app's layout at a phone's size (390×844) and a desktop's (1280×800): the chat
// column is readable, the memory panel visible or one tap away, the newest turn in view,
// the model settings folded until asked for. Screenshots in target/screenshots/layout-*.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chat, installEngram, launch, openPage, screenshots, serveBuild, settled } from "./helpers.mjs";

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

const box = (page, sel) => page.$eval(sel, (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height, bottom: r.bottom, right: r.right }; });
const inViewport = (b, vp) => b.w > 0 && b.h > 0 && b.y >= 0 && b.bottom <= vp.height + 0.5 && b.x >= 0 && b.right <= vp.width + 0.5;

for (const [name, viewport, phone] of [["phone", { width: 390, height: 844 }, true], ["desktop", { width: 1280, height: 800 }, false]]) {
  test(`${name} ${viewport.width}×${viewport.height}: readable chat, reachable panel, newest turn in view, settings folded`, async () => {
    const context = await browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
    const page = await openPage(context, `${site.url}?user=layout-${name}`);
    mkdirSync(screenshots, { recursive: true });

    // Settings folded away until wanted: a closed <details>, its fields not displayed.
    assert.equal(await page.$eval("#settings", (d) => d.tagName === "DETAILS" && !d.open), true);
    assert.equal(await page.isVisible("#base-url"), false, "the model fields are hidden until the settings are opened");

    for (const t of ["My name is Zhang San and I prefer Python.", "I switched from Python to Go.", "I live in Berlin with two cats.", "What language do I use now?"]) await chat(page, t);
    await settled(page);

    const chatBox = await box(page, "#chat");
    if (phone) assert.ok(chatBox.w >= 300, `the chat column is ${chatBox.w} px wide on the phone`);
    else assert.ok(chatBox.w >= 600, `the chat column is ${chatBox.w} px wide on the desktop`);
    assert.ok(chatBox.right <= viewport.width + 0.5, "the chat column fits the screen (no sideways scrolling)");
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no horizontal overflow");

    const last = await box(page, "#log li:last-child");
    assert.ok(inViewport(last, viewport) || (last.h > viewport.height && last.y < viewport.height && last.bottom > 0), `the newest turn is in view: ${JSON.stringify(last)}`);
    const composer = await box(page, "#composer");
    assert.ok(inViewport(composer, viewport), `the composer is in view: ${JSON.stringify(composer)}`);
    await page.screenshot({ path: join(screenshots, `layout-${name}-chat.png`) });

    // The panel: visible beside the chat on the desktop; one tap on "Memory" on the phone.
    const panelVisible = async () => inViewport(await box(page, "#panel h2"), viewport);
    if (phone) {
      assert.equal(await panelVisible(), false, "the phone gives the screen to the chat");
      await page.tap("#to-panel");
      await page.waitForFunction(() => { const r = document.querySelector("#panel h2").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }, null, { timeout: 5000 });
      assert.ok(await panelVisible(), "one tap brings the memory panel into view");
      assert.ok((await box(page, "#panel")).w >= 300, "the panel is as wide as the screen allows");
      await page.screenshot({ path: join(screenshots, `layout-${name}-panel.png`) });
      await page.tap("#to-chat");
      await page.waitForFunction(() => document.querySelector("#composer").getBoundingClientRect().bottom <= innerHeight, null, { timeout: 5000 });
    } else {
      assert.ok(await panelVisible(), "the panel is beside the chat");
      assert.equal(await page.isVisible("#to-panel"), false, "no jump link on the desktop");
    }
    assert.ok((await page.$$eval("#memories li.memory", (l) => l.length)) > 0, "the panel lists memories");
    // Why recalled: every column in view (the score too), each header on one line, whole.
    const why = await page.$eval("table.why", (t) => ({ width: t.getBoundingClientRect().width, room: t.parentElement.clientWidth, heads: [...t.querySelectorAll("th")].map((h) => { const r = document.createRange(); r.selectNodeContents(h); return { text: h.textContent, lines: new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size }; }) }));
    assert.ok(why.width <= why.room + 0.5, `the why-recalled table fits its ${why.room} px: ${why.width} px`);
    for (const h of why.heads) assert.equal(h.lines, 1, `the header "${h.text}" is broken over ${h.lines} lines`);

    // Opening the settings shows the fields and still leaves the composer on screen.
    await page.click("#settings summary");
    assert.equal(await page.isVisible("#base-url"), true);
    assert.ok(inViewport(await box(page, "#composer"), viewport), "the composer stays in view with the settings open");
    await page.screenshot({ path: join(screenshots, `layout-${name}-settings.png`) });

    assert.deepEqual(page.errors, []);
    await context.close();
  });
}
