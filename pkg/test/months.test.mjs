// Recall over months through the SDK, the real wasm in Node: a clock that moves the way a
// chat app's does, and questions about what was said long ago or on a named day.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram } from "../dist/entrypoints/node.js";
import { clock } from "./helpers.mjs";

const DAY = 86_400_000;

test("a best match said ten months ago keeps its place above fresh weaker matches, in recall and in a tight context", async () => {
  const c = clock();
  const mem = await Engram.open({ user: "alice", now: c.now, embedder: false });
  await mem.tokenizerReady();
  const old = await mem.remember("We adopted a cat named Miso from the shelter");
  c.advance(300 * DAY);
  const fresh = ["A cat video made me laugh", "The neighbour's cat was loud again", "Bought cat food on sale", "Drew a cat for the kids", "A cat sat on the car", "Read about cat breeds", "Fed a stray cat", "Cat hair on my coat"];
  for (const text of fresh) {
    await mem.remember(text);
    c.advance(60_000 * 60);
  }
  const { hits } = await mem.recall("what is the name of the cat we adopted from the shelter?", { k: 9 });
  const at = hits.findIndex((h) => h.record.id === old.id);
  const shown = hits.map((h) => `${h.record.text} (${h.parts.lexical[0]})`).join(" | ");
  assert.equal(hits[at].parts.lexical[0], 1, "it is still the best match by words");
  assert.ok(hits[at].parts.decay < 0.01 && Math.abs(hits[at].parts.weight - 0.15) < 1e-6, JSON.stringify(hits[at].parts));
  // Fresh lines matching only "cat" tie for second; those pass it, no fresh line ranked
  // sixth or lower does — before the ranking floor it came after all eight.
  assert.ok(hits.slice(0, at).every((h) => h.parts.lexical[0] <= 5), shown);
  assert.ok(hits.slice(at + 1).every((h) => h.parts.lexical[0] >= 6) && at < hits.length - 1, shown);
  // A context too small for every hit drops those weaker fresh lines, not the old best match.
  const ctx = await mem.buildContext("what is the name of the cat we adopted from the shelter?", { budget: 190, k: 9 });
  assert.match(ctx.text, /Miso/, ctx.text);
  const weaker = new Set(hits.slice(at + 1).map((h) => h.record.id));
  assert.ok(ctx.dropped.length > 0 && ctx.dropped.every((id) => weaker.has(id)), JSON.stringify(ctx.dropped));
  await mem.close();
});

test("a question naming yesterday, last week or two months ago recalls what was said then", async () => {
  const c = clock();
  const mem = await Engram.open({ user: "bo", now: c.now, embedder: false });
  const said = async (when, text) => {
    c.t = when;
    return (await mem.remember(text)).id;
  };
  const june = await said(Date.UTC(2026, 5, 12, 18), "Bo: We booked the flights to Lisbon");
  await said(Date.UTC(2026, 6, 29, 20), "Bo: The dentist said my teeth are fine"); // the week before last
  const lastWeek = await said(Date.UTC(2026, 7, 5, 20), "Bo: The plumber fixed the kitchen sink");
  const yesterday = await said(Date.UTC(2026, 7, 9, 21), "Bo: My sister is moving to Berlin");
  await said(Date.UTC(2026, 7, 10, 8), "Bo: Coffee first, then the gym");
  c.t = Date.UTC(2026, 7, 10, 12); // Monday 10 August
  const first = async (q) => (await mem.recall(q, { force: true })).hits[0];
  const y = await first("what did we talk about yesterday?");
  assert.equal(y.record.id, yesterday, "no shared word needed");
  assert.equal(y.parts.date, 1);
  // Monday 3 – Sunday 9 August: the plumber (Wednesday) is nearest its middle.
  const week = (await mem.recall("what did I say last week?", { force: true })).hits;
  assert.equal(week[0].record.id, lastWeek, JSON.stringify(week.map((h) => h.record.text)));
  assert.ok(week.some((h) => h.record.id === yesterday) && week.every((h) => !/dentist|Lisbon/.test(h.record.text)), JSON.stringify(week.map((h) => h.record.text)));
  assert.equal((await first("what did I tell you two months ago?")).record.id, june);
  assert.equal((await first("上周我说了什么")).record.id, lastWeek);
  const none = (await mem.recall("what did we talk about", { force: true })).hits;
  assert.ok(none.every((h) => h.parts.date === null), "no date named, no date rank");
  await mem.close();
});
