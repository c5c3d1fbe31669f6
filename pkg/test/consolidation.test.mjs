// Consolidation through the SDK: the `consolidation` option given to the core on every
// open, ending a session writes its episode (persisted like every write), invalid settings
// are typed errors, and with an extractor the episode is rewritten abstractively in the
// background against a local chat endpoint (see helpers.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, MemoryStorage, OpenAiExtractor, EngramInputError, parseEpisode } from "../dist/entrypoints/node.js";
import { chatServer, clock, hashEmbedder, until } from "./helpers.mjs";

const EPISODES = { episodes: { budgetTokens: 200, minImportance: 0.4 } };
const TURNS = [
  ["user", "I'm Ana, I work at Globex in Lisbon."],
  ["assistant", "Nice to meet you, Ana."],
  ["user", "We decided to ship the billing service on Friday."],
  ["user", "Remind me to write the migration notes."],
];

async function chat(mem, session = "s1") {
  const s = mem.session(session);
  const ids = [];
  for (const [role, text] of TURNS) ids.push(await s.append(role, text));
  return { s, ids };
}

const episodes = (mem) => mem.list({ kinds: ["episode"] });

test("ending a session with episodes on writes one episode citing its turns", async () => {
  const mem = await Engram.open({ user: "ana", embedder: hashEmbedder(), now: clock().now, consolidation: EPISODES });
  const events = [];
  mem.on((e) => events.push(e));
  try {
    const { s, ids } = await chat(mem);
    const out = await s.end();
    assert.equal(typeof out.episode, "string");
    assert.equal(out.deleted, 0);
    const [ep, ...more] = await episodes(mem);
    assert.equal(more.length, 0);
    assert.equal(ep.id, out.episode);
    assert.equal(ep.kind, "episode");
    assert.equal(ep.source, "rule-extracted");
    assert.match(ep.text, /ship the billing service on Friday/);
    assert.ok(ep.tags.includes("episode"));
    const cites = ep.tags.filter((t) => t.startsWith("turn:")).map((t) => t.slice(5));
    assert.ok(cites.length >= 2 && cites.every((c) => ids.includes(c)), `cites ${cites} are turns of the session`);
    assert.deepEqual(events.at(-1), { type: "episode", ids: [out.episode] });
    // Ending it again with nothing new writes nothing.
    assert.equal((await s.end()).episode, null);
  } finally {
    await mem.close();
  }
});

test("without the option, ending a session writes no episode", async () => {
  const mem = await Engram.open({ user: "ana", embedder: hashEmbedder(), now: clock().now });
  try {
    const { s } = await chat(mem);
    assert.equal((await s.end()).episode, null);
    assert.equal((await episodes(mem)).length, 0);
  } finally {
    await mem.close();
  }
});

test("ending a session clears its state and keeps the user's memories", async () => {
  const mem = await Engram.open({ user: "ana", embedder: hashEmbedder(), now: clock().now, consolidation: EPISODES });
  try {
    await mem.remember({ text: "Prefers dark roast coffee" });
    const s = mem.session("s1");
    await s.append("user", "We decided to ship on Friday.");
    await s.set("step", 3);
    const { id } = await mem.remember({ text: "The draft is in the blue folder", sensitivity: "session" });
    // Written in the user's scope (the SDK's remember has no session), so not the session's to delete.
    const out = await s.end();
    assert.equal(typeof out.episode, "string");
    assert.equal(await s.get("step"), undefined, "the session's state went");
    assert.ok((await mem.list()).some((r) => r.text === "Prefers dark roast coffee"));
    assert.ok((await mem.list()).some((r) => r.id === id));
  } finally {
    await mem.close();
  }
});

test("the episode persists across reopen, and settings are given again on every open", async () => {
  const storage = new MemoryStorage();
  const c = clock();
  const open = (consolidation) => Engram.open({ user: "ana", storage, embedder: hashEmbedder(), now: c.now, consolidation, compactEvery: 2 });
  let mem = await open(EPISODES);
  const { s } = await chat(mem);
  const { episode } = await s.end();
  await mem.close();

  // Reopened from its snapshot and log: the episode is there; settings are not in the snapshot.
  mem = await open(undefined);
  try {
    const [ep] = await episodes(mem);
    assert.equal(ep.id, episode);
    await mem.session("s2").append("user", "We decided to move the standup to 10am.");
    assert.equal((await mem.session("s2").end()).episode, null, "opened without consolidation: no episode");
  } finally {
    await mem.close();
  }
  mem = await open(EPISODES);
  try {
    await mem.session("s3").append("user", "We decided to rename the project to Atlas.");
    assert.equal(typeof (await mem.session("s3").end()).episode, "string", "opened with it again: episodes");
    assert.equal((await episodes(mem)).length, 2);
  } finally {
    await mem.close();
  }
});

test("compression from the option folds old turns into the session's summary", async () => {
  const c = clock();
  const mem = await Engram.open({
    user: "ana",
    embedder: hashEmbedder(),
    now: c.now,
    config: { recentTurns: 2 },
    consolidation: { compression: { thresholdTokens: 10, folded: "keep" } },
  });
  try {
    const s = mem.session("s1");
    for (const t of ["I live in Lisbon and work at Globex.", "Noted.", "The weather is grey today, nothing much else.", "Sure.", "ok"]) {
      c.advance(1);
      await s.append("user", t);
    }
    const ctx = await mem.buildContext("what is the weather like", { session: "s1", budget: 900 });
    assert.match(ctx.text, /weather is grey/);
    assert.match(ctx.text, /\[key events\]/, "where Ana lives stayed as a key event");
  } finally {
    await mem.close();
  }
});

test("invalid consolidation settings refuse the open with INVALID_INPUT naming the field", async () => {
  for (const [consolidation, field] of [
    [{ episodes: { budgetTokens: 2 } }, /episodes\.budgetTokens/],
    [{ compression: { keyImportance: 1.5 } }, /keyImportance/],
    [{ compression: { thresholdTokens: "many" } }, /consolidation/],
    [{ compression: { folded: "shred" } }, /consolidation/],
  ]) {
    await assert.rejects(Engram.open({ user: "ana", embedder: false, consolidation }), (e) => {
      assert.ok(e instanceof EngramInputError, `${e}`);
      assert.equal(e.code, "INVALID_INPUT");
      assert.match(e.message, field);
      return true;
    });
  }
});

test("an episode summary answer must be exactly { summary } of 1..2000 characters", () => {
  assert.equal(parseEpisode('```json\n{"summary": " Ana decided X. "}\n```'), "Ana decided X.");
  assert.equal(parseEpisode({ summary: "Ana decided X." }), "Ana decided X.");
  for (const bad of ["not json", "[]", '{"summary": ""}', '{"summary": 3}', '{"summary": "x", "kind": "instruction"}', JSON.stringify({ summary: "x".repeat(2001) })]) {
    assert.throws(() => parseEpisode(bad), (e) => e.code === "EXTRACTION_REJECTED", bad);
  }
});

function abstractive(srv, c, extra = {}) {
  return Engram.open({
    user: "ana",
    embedder: hashEmbedder(),
    now: c.now,
    consolidation: EPISODES,
    extractor: new OpenAiExtractor({ baseUrl: srv.url, model: "gpt-test" }),
    ...extra,
  });
}

test("with an extractor, end returns before the summary arrives; the episode then becomes abstractive, PII redacted, cites kept", async () => {
  const srv = await chatServer();
  const c = clock();
  const mem = await abstractive(srv, c);
  const events = [];
  mem.on((e) => events.push(e));
  try {
    const { s } = await chat(mem);
    srv.hold = true;
    srv.answers.push([200, { summary: "Ana (Globex, Lisbon) decided to ship billing on Friday; open: migration notes. Contact ana@example.com." }]);
    const { episode } = await s.end();
    await until(() => srv.requests.length === 1);
    assert.equal(srv.held.length, 1, "the request is still pending after end() returned");
    const [extractive] = await episodes(mem);
    assert.equal(extractive.source, "rule-extracted");

    const req = srv.requests[0].body;
    assert.deepEqual(req.response_format, { type: "json_object" });
    assert.match(req.messages[0].content, /"summary"/, "the schema is in the prompt");
    assert.match(req.messages[1].content, /ship the billing service on Friday/);

    c.advance(10);
    srv.release();
    await mem.idle();
    const [ep, ...more] = await episodes(mem);
    assert.equal(more.length, 0);
    assert.equal(ep.id, episode);
    assert.equal(ep.source, "llm-extracted");
    assert.equal(ep.text, "Ana (Globex, Lisbon) decided to ship billing on Friday; open: migration notes. Contact [EMAIL].");
    assert.deepEqual(ep.tags, extractive.tags, "the turns it cites are kept");
    assert.equal(srv.requests.length, 1, "one request per episode");
    assert.deepEqual(events.at(-1), { type: "episode", ids: [episode] });
    assert.ok(!events.some((e) => e.type === "error"));
  } finally {
    await mem.close();
    await srv.close();
  }
});

test("the abstractive episode persists across reopen and a second end of an unchanged session asks nothing", async () => {
  const srv = await chatServer();
  const storage = new MemoryStorage();
  const c = clock();
  let mem = await abstractive(srv, c, { storage });
  const { s } = await chat(mem);
  srv.answers.push([200, { summary: "Ana decided to ship billing on Friday." }]);
  await s.end();
  await mem.idle();
  assert.equal((await s.end()).episode, null);
  await mem.idle();
  assert.equal(srv.requests.length, 1);
  await mem.close();
  mem = await abstractive(srv, c, { storage });
  try {
    const [ep] = await episodes(mem);
    assert.equal(ep.text, "Ana decided to ship billing on Friday.");
    assert.equal(ep.source, "llm-extracted");
  } finally {
    await mem.close();
    await srv.close();
  }
});

test("a summary answered with garbage, 500 or an unknown field leaves the extractive episode and reports an error event", async () => {
  for (const [answer, code] of [
    [[200, "this is not json"], "EXTRACTION_REJECTED"],
    [[500, { error: "overloaded" }], "EXTRACTOR_HTTP"],
    [[200, { summary: "Ana decided.", kind: "instruction" }], "EXTRACTION_REJECTED"],
    [[200, { summary: "" }], "EXTRACTION_REJECTED"],
  ]) {
    const srv = await chatServer();
    const mem = await abstractive(srv, clock());
    const errors = [];
    mem.on((e) => e.type === "error" && errors.push(e));
    try {
      const { s } = await chat(mem);
      srv.answers.push(answer);
      const { episode } = await s.end();
      const [before] = await episodes(mem);
      await mem.idle();
      const [after, ...more] = await episodes(mem);
      assert.equal(more.length, 0);
      assert.equal(after.id, episode);
      assert.equal(after.text, before.text, `${JSON.stringify(answer)}: extractive text kept`);
      assert.equal(after.source, "rule-extracted");
      assert.equal(srv.requests.length, 1);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].task, "episode");
      assert.equal(errors[0].error.code, code);
    } finally {
      await mem.close();
      await srv.close();
    }
  }
});

test("a summary that arrives after the session went on is not applied over the newer episode", async () => {
  const srv = await chatServer();
  const c = clock();
  const mem = await abstractive(srv, c);
  const errors = [];
  mem.on((e) => e.type === "error" && errors.push(e));
  try {
    const { s } = await chat(mem);
    srv.hold = true;
    srv.answers.push([200, { summary: "A stale summary." }], [200, { summary: "The fresh summary: Atlas." }]);
    await s.end();
    await until(() => srv.held.length === 1);
    c.advance(10);
    await s.append("user", "We decided to rename the project to Atlas.");
    await s.end();
    await until(() => srv.held.length === 2);
    srv.release();
    await mem.idle();
    const [ep] = await episodes(mem);
    assert.equal(ep.text, "The fresh summary: Atlas.");
    assert.equal(errors.length, 1);
    assert.match(errors[0].error.message, /changed since it was summarised/);
  } finally {
    await mem.close();
    await srv.close();
  }
});

test("consolidate() writes the episodes of sessions idle past their TTL", async () => {
  const c = clock();
  const mem = await Engram.open({ user: "ana", embedder: hashEmbedder(), now: c.now, consolidation: EPISODES, config: { sessionTtlMs: 60_000 } });
  try {
    await chat(mem, "old");
    assert.deepEqual(await mem.consolidate(), [], "not idle yet");
    c.advance(61_000);
    const ids = await mem.consolidate();
    assert.equal(ids.length, 1);
    assert.deepEqual((await episodes(mem)).map((r) => r.id), ids);
    assert.deepEqual(await mem.consolidate(), [], "already up to date");
  } finally {
    await mem.close();
  }
});

test("the settings survive the rebuild after a wasm trap", async () => {
  const mem = await Engram.open({ user: "ana", embedder: hashEmbedder(), now: clock().now, consolidation: EPISODES });
  try {
    const { s } = await chat(mem);
    await assert.rejects(mem._trapForTests(), (e) => e.code === "WASM_TRAP");
    await mem.idle();
    assert.equal(typeof (await s.end()).episode, "string", "the rebuilt core still writes episodes");
  } finally {
    await mem.close();
  }
});

test("an extractor without summarize leaves episodes extractive and is never asked", async () => {
  let asked = 0;
  const extractor = { id: "ops-only", async propose() { asked++; return { operations: [{ op: "NOOP" }] }; } };
  const mem = await Engram.open({ user: "ana", embedder: hashEmbedder(), now: clock().now, consolidation: EPISODES, extractor });
  try {
    const { s } = await chat(mem);
    await s.end();
    await mem.idle();
    const [ep] = await episodes(mem);
    assert.equal(ep.source, "rule-extracted");
    assert.equal(asked, 0);
  } finally {
    await mem.close();
  }
});

// A session idle past its TTL is summarised by the core when its next turn arrives; the
// commit names that episode, and the SDK rewrites it as it rewrites the episode of `end()`.
const TTL = { sessionTtlMs: 60_000 };
const PAUSE = 61_000;

test("a turn after the session idled past its TTL returns before the summary, which then rewrites the earlier part's episode in place", async () => {
  const srv = await chatServer();
  const c = clock();
  const mem = await abstractive(srv, c, { config: TTL });
  const events = [];
  mem.on((e) => events.push(e));
  try {
    const { s, ids } = await chat(mem);
    assert.equal(srv.requests.length, 0, "no episode within the TTL, nothing asked");
    c.advance(PAUSE);
    srv.hold = true;
    srv.answers.push([200, { summary: "Ana (Globex, Lisbon) decided to ship billing on Friday; open: migration notes." }]);
    const back = await s.append("user", "I'm back: we moved the launch to Monday.");
    await until(() => srv.requests.length === 1);
    assert.equal(srv.held.length, 1, "append returned while the summary request is pending");
    const [extractive, ...others] = await episodes(mem);
    assert.equal(others.length, 0);
    assert.equal(extractive.source, "rule-extracted");
    assert.match(extractive.text, /ship the billing service on Friday/);
    assert.doesNotMatch(extractive.text, /Monday/, "the episode is of what was said before the pause");
    assert.deepEqual(events.slice(-2), [{ type: "turn", ids: [back] }, { type: "episode", ids: [extractive.id] }]);

    const sent = JSON.parse(srv.requests[0].body.messages[1].content);
    assert.equal(sent.session, "s1");
    assert.equal(sent.draft_episode, extractive.text);
    assert.deepEqual(sent.turns, TURNS.map(([role, text]) => ({ role, text })), "the turns before the pause, not the new one");

    c.advance(10);
    srv.release();
    await mem.idle();
    const [ep, ...more] = await episodes(mem);
    assert.equal(more.length, 0);
    assert.equal(ep.id, extractive.id);
    assert.equal(ep.source, "llm-extracted");
    assert.equal(ep.kind, "episode");
    assert.equal(ep.text, "Ana (Globex, Lisbon) decided to ship billing on Friday; open: migration notes.");
    assert.deepEqual(ep.tags, extractive.tags, "the turns it cites are kept");
    const cites = ep.tags.filter((t) => t.startsWith("turn:")).map((t) => t.slice(5));
    assert.ok(cites.length >= 2 && cites.every((id) => ids.includes(id)), `cites ${cites} are turns before the pause`);
    assert.deepEqual(events.at(-1), { type: "episode", ids: [ep.id] });
    assert.ok(!events.some((e) => e.type === "error"));
    assert.equal(srv.requests.length, 1, "one request per episode");

    // The session went on: ending it summarises both parts again (the rewrite did not hide the new turn).
    srv.hold = false;
    srv.answers.push([200, { summary: "Ana moved the billing launch from Friday to Monday." }]);
    const { episode } = await s.end();
    assert.equal(episode, ep.id);
    await mem.idle();
    const [ended] = await episodes(mem);
    assert.equal(ended.text, "Ana moved the billing launch from Friday to Monday.");
    assert.ok(ended.tags.includes(`turn:${back}`), `the new turn is cited once the session ended: ${ended.tags}`);
    assert.equal(srv.requests.length, 2);
    assert.match(srv.requests[1].body.messages[1].content, /moved the launch to Monday/);
  } finally {
    await mem.close();
    await srv.close();
  }
});

test("a turn after the pause whose summary fails leaves the extractive episode and reports an episode error", async () => {
  for (const [answer, code] of [
    [[500, { error: "overloaded" }], "EXTRACTOR_HTTP"],
    [[200, "not json"], "EXTRACTION_REJECTED"],
  ]) {
    const srv = await chatServer();
    const c = clock();
    const mem = await abstractive(srv, c, { config: TTL });
    const errors = [];
    mem.on((e) => e.type === "error" && errors.push(e));
    try {
      const { s } = await chat(mem);
      c.advance(PAUSE);
      srv.answers.push(answer);
      await s.append("user", "I'm back: we moved the launch to Monday.");
      const [before] = await episodes(mem);
      await mem.idle();
      const [after, ...more] = await episodes(mem);
      assert.equal(more.length, 0);
      assert.equal(after.id, before.id);
      assert.equal(after.text, before.text, `${JSON.stringify(answer)}: extractive text kept`);
      assert.equal(after.source, "rule-extracted");
      assert.equal(srv.requests.length, 1);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].task, "episode");
      assert.equal(errors[0].error.code, code);
    } finally {
      await mem.close();
      await srv.close();
    }
  }
});

test("observe after the pause hands the episode it wrote to the same abstractive rewrite", async () => {
  const asked = [];
  const extractor = {
    id: "in-process",
    async propose() {
      return { operations: [{ op: "NOOP" }] };
    },
    async summarize(req) {
      asked.push(req);
      return { summary: "Ana works at Globex in Lisbon." };
    },
  };
  const c = clock();
  const mem = await Engram.open({ user: "ana", embedder: hashEmbedder(), now: c.now, consolidation: EPISODES, config: TTL, extractor });
  try {
    const first = await mem.observe([{ role: "user", text: "I'm Ana, I work at Globex in Lisbon." }], { session: "s1" });
    assert.equal(first.episode, null, "a new session: no episode");
    c.advance(PAUSE);
    const out = await mem.observe([{ role: "user", text: "We decided to hire two more engineers." }], { session: "s1" });
    assert.equal(typeof out.episode, "string", "observe names the episode of the pause");
    await mem.idle();
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0].turns, [{ role: "user", text: "I'm Ana, I work at Globex in Lisbon." }]);
    const [ep] = await episodes(mem);
    assert.equal(ep.id, out.episode);
    assert.equal(ep.text, "Ana works at Globex in Lisbon.");
    assert.equal(ep.source, "llm-extracted");
  } finally {
    await mem.close();
  }
});

test("turns within the TTL write no episode and ask for no summary", async () => {
  const srv = await chatServer();
  const c = clock();
  const mem = await abstractive(srv, c, { config: TTL });
  try {
    await chat(mem);
    c.advance(59_000);
    const out = await mem.observe([{ role: "user", text: "We decided to hire two more engineers." }], { session: "s1" });
    assert.equal(out.episode, null);
    await mem.idle();
    assert.equal((await episodes(mem)).length, 0);
    assert.ok(srv.requests.every((r) => !/draft_episode/.test(r.body.messages[1].content)), "no summary was asked");
  } finally {
    await mem.close();
    await srv.close();
  }
});
