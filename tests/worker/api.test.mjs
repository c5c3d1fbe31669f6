// The worker's HTTP memory API in real workerd (wrangler dev --local): authentication,
// every endpoint, users kept apart, errors, limits, logs without memory text, 60 concurrent
// writes for one user, and persistence across a restart with --persist-to.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { allTexts, client, startWorker, token } from "./harness.mjs";

const persistTo = mkdtempSync(join(tmpdir(), "engram-worker-api-"));
let w;
const alice = () => client(w.url, token("acme", "alice"));
const bob = () => client(w.url, token("acme", "bob"));

before(async () => {
  w = await startWorker({ persistTo });
});
after(async () => {
  await w?.stop();
  rmSync(persistTo, { recursive: true, force: true });
});

describe("authentication", () => {
  const endpoints = [
    ["POST", "/v1/remember", { text: "x" }],
    ["POST", "/v1/observe", { session: "s", turns: [{ role: "user", text: "x" }] }],
    ["POST", "/v1/recall", { query: "x" }],
    ["POST", "/v1/context", { query: "x", budget: 100 }],
    ["GET", "/v1/memories"],
    ["DELETE", "/v1/memories/abc"],
    ["POST", "/v1/forget", {}],
    ["POST", "/v1/sync", {}],
    ["GET", "/v1/status"],
  ];
  const now = Math.floor(Date.now() / 1000);
  const good = token("acme", "alice");
  const [h, p, s] = good.split(".");
  const bad = {
    missing: undefined,
    garbage: "not-a-token",
    "wrong secret": token("acme", "alice", { secret: "another-secret-another-secret-0000" }),
    expired: token("acme", "alice", { exp: now - 3600 }),
    "alg none": `${Buffer.from('{"alg":"none"}').toString("base64url")}.${p}.`,
    "alg HS512 label": token("acme", "alice", { alg: "HS512" }),
    "tampered claims": `${h}.${Buffer.from(JSON.stringify({ tenant: "acme", sub: "bob", exp: now + 600 })).toString("base64url")}.${s}`,
    "no Bearer prefix": good,
  };

  test("every endpoint refuses missing, forged, expired and garbage tokens with 401 UNAUTHORIZED", async () => {
    let checked = 0;
    for (const [name, tok] of Object.entries(bad)) {
      for (const [method, path, body] of endpoints) {
        const headers = name === "no Bearer prefix" ? { authorization: tok } : {};
        const c = client(w.url, name === "no Bearer prefix" || tok === undefined ? undefined : tok);
        const r = await c.call(method, path, body, headers);
        assert.equal(r.status, 401, `${name} on ${method} ${path}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, "UNAUTHORIZED");
        assert.match(r.body.requestId, /^[0-9a-f-]{36}$/);
        checked++;
      }
    }
    assert.equal(checked, Object.keys(bad).length * endpoints.length);
    // Nothing was written by any refused request.
    const st = await alice().status();
    assert.equal(st.status, 200);
    assert.equal(st.body.count, 0);
  });

  test("a valid token is accepted and /healthz needs none", async () => {
    assert.equal((await client(w.url).call("GET", "/healthz")).status, 200);
    assert.equal((await alice().status()).status, 200);
  });
});

describe("endpoints", () => {
  test("remember, recall, list and forget one", async () => {
    const a = alice();
    const r1 = await a.remember({ text: "Prefers Go for backend services", kind: "preference" });
    assert.equal(r1.status, 201, JSON.stringify(r1.body));
    assert.equal(r1.body.action, "inserted");
    const r2 = await a.remember("Allergic to peanuts");
    assert.equal(r2.status, 201);
    const again = await a.remember("Allergic to peanuts");
    assert.equal(again.status, 200);
    assert.equal(again.body.action, "duplicate");

    const rec = await a.recall("which language for the backend?");
    assert.equal(rec.status, 200, JSON.stringify(rec.body));
    assert.equal(rec.body.route, "retrieve");
    assert.equal(rec.body.hits[0].record.text, "Prefers Go for backend services");
    const small = await a.recall("thanks!");
    assert.equal(small.body.route, "small-talk");
    assert.equal(small.body.hits.length, 0);

    const list = await a.list();
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.memories.map((m) => m.text).sort(), ["Allergic to peanuts", "Prefers Go for backend services"]);
    const prefs = await a.list("?kinds=preference");
    assert.deepEqual(prefs.body.memories.map((m) => m.text), ["Prefers Go for backend services"]);

    const f = await a.forget(r2.body.id);
    assert.equal(f.status, 200);
    assert.deepEqual(f.body, { forgotten: true });
    const f2 = await a.forget("m-no-such-id");
    assert.equal(f2.status, 404);
    assert.equal(f2.body.error.code, "NOT_FOUND");
    assert.deepEqual(await allTexts(a), ["Prefers Go for backend services"]);
  });

  test("a batch of memories is remembered in one request", async () => {
    const r = await bob().remember({ memories: [{ text: "Bob drives a red tractor" }, { text: "Bob's sister lives in Oslo", kind: "fact" }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.outcomes.map((o) => o.action), ["inserted", "inserted"]);
  });

  test("a fact key supersedes the older value", async () => {
    const a = alice();
    const key = { subject: "alice", attribute: "home city" };
    await a.remember({ text: "Lives in Hangzhou", key });
    const r = await a.remember({ text: "Moved to Shenzhen", key });
    assert.equal(r.body.superseded.length, 1);
    const texts = await allTexts(a);
    assert.ok(texts.includes("Moved to Shenzhen") && !texts.includes("Lives in Hangzhou"));
    assert.ok((await allTexts(a, "&history=1")).includes("Lives in Hangzhou"), "the old version stays in the audit trail");
  });

  test("observe records turns and remembers what the user stated", async () => {
    const a = alice();
    const r = await a.observe("s1", [
      { role: "user", text: "My name is Alice Chen and I prefer tea over coffee." },
      { role: "assistant", text: "Noted, tea it is." },
    ]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.turns.length, 2);
    assert.ok(r.body.remembered.length >= 1, JSON.stringify(r.body));
    const texts = await allTexts(a);
    assert.ok(texts.some((t) => /tea/i.test(t)), texts.join(" | "));
  });

  test("context is packed under the exact budget with the o200k table, memories framed as untrusted data", async () => {
    const a = alice();
    const big = await a.context("which language should the backend use?", 900, { session: "s1" });
    assert.equal(big.status, 200, JSON.stringify(big.body));
    assert.equal(big.body.exact, true, "the token table reached the worker through its assets");
    assert.ok(big.body.tokens <= 900);
    assert.match(big.body.text, /Prefers Go for backend services/);
    assert.match(big.body.text, /untrusted/);
    for (const budget of [40, 80, 120]) {
      const c = await a.context("which language should the backend use?", budget, { session: "s1" });
      assert.equal(c.status, 200);
      assert.equal(c.body.exact, true);
      assert.ok(c.body.tokens <= budget, `${c.body.tokens} tokens for a budget of ${budget}`);
    }
    const bad = await a.context("x", 0);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "INVALID_INPUT");
  });

  test("users are kept apart, also across tenants", async () => {
    const b = bob();
    const texts = await allTexts(b);
    assert.deepEqual(texts.sort(), ["Bob drives a red tractor", "Bob's sister lives in Oslo"]);
    const rec = await b.recall("backend language preference", { force: true });
    assert.ok(rec.body.hits.every((h) => h.record.scope.user === "bob"), JSON.stringify(rec.body.hits.map((h) => h.record.text)));
    const otherTenant = client(w.url, token("globex", "alice"));
    assert.deepEqual(await allTexts(otherTenant), []);
    const aliceTexts = await allTexts(alice());
    assert.ok(!aliceTexts.some((t) => t.includes("Bob")));
    const st = await b.status();
    const sa = await alice().status();
    assert.notEqual(st.body.replica, sa.body.replica, "each user's object is its own replica");
  });

  test("each table is fetched from the assets once per isolate, whatever the number of users", () => {
    const lines = w.log().split("\n").filter((l) => l.includes('"op":"table"')).map((l) => JSON.parse(l.slice(l.indexOf("{"))));
    assert.deepEqual(lines.map((l) => l.name).sort(), ["minilm-l6-v2-static-256.engemb", "o200k_base.engtok"]);
    assert.ok(lines.every((l) => l.bytes > 1_000_000), JSON.stringify(lines));
  });
});

describe("errors and limits", () => {
  test("bad bodies, unknown fields and routes are JSON errors with stable codes", async () => {
    const a = alice();
    const cases = [
      [await a.call("POST", "/v1/remember", "{not json"), 400, "BAD_REQUEST"],
      [await a.call("POST", "/v1/remember", "[1,2]"), 400, "BAD_REQUEST"],
      [await a.remember({ text: "x", embedding: [1, 2] }), 400, "INVALID_INPUT"],
      [await a.remember({ text: 42 }), 400, "INVALID_INPUT"],
      [await a.remember({ text: "   " }), 400, "INVALID_INPUT"],
      [await a.remember({ text: "ok", importance: 7 }), 400, "INVALID_INPUT"],
      [await a.recall("x", { k: 0 }), 400, "INVALID_INPUT"],
      [await a.observe("s1", []), 400, "INVALID_INPUT"],
      [await a.call("GET", "/v1/nothing"), 404, "NOT_FOUND"],
      [await a.sync(), 400, "SYNC_DISABLED"],
      [await a.remember({ text: "y".repeat(40_000) }), 413, "TEXT_TOO_LARGE"],
      [await a.call("POST", "/v1/remember", JSON.stringify({ text: "z ".repeat(40_000) })), 413, "PAYLOAD_TOO_LARGE"],
    ];
    for (const [i, [r, status, code]] of cases.entries()) {
      assert.equal(r.status, status, `case ${i}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, code, `case ${i}`);
      assert.equal(typeof r.body.error.message, "string");
      assert.equal(r.body.requestId, r.headers.get("x-request-id"));
    }
  });

  test("request ids are kept when given and appear in the logs; memory text never does", async () => {
    const secretText = "The vault combination is orchid-4471-lantern";
    const r = await alice().call("POST", "/v1/remember", { text: secretText }, { "x-request-id": "test-rid-42" });
    assert.equal(r.status, 201);
    assert.equal(r.headers.get("x-request-id"), "test-rid-42");
    await alice().recall("vault combination");
    await new Promise((res) => setTimeout(res, 300));
    const log = w.log();
    const line = log.split("\n").find((l) => l.includes('"requestId":"test-rid-42"'));
    assert.ok(line, "a structured line for the request");
    const entry = JSON.parse(line);
    assert.equal(entry.op, "remember");
    assert.equal(entry.status, 201);
    assert.match(entry.user, /^[0-9a-f]{12}$/);
    assert.ok(!log.includes("orchid-4471-lantern"), "memory text must not be logged");
    assert.ok(!log.includes("Prefers Go"), "memory text must not be logged");
    assert.ok(!log.includes('"alice"'), "user ids are logged as hashes");
  });
});

describe("concurrency and durability", () => {
  const N = 60;
  const words = ["amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel", "lagoon"];
  const texts = Array.from({ length: N }, (_, i) => `Order ${1000 + i * 37} ships to the ${words[i % 12]} ${words[(i * 5 + 3) % 12]} depot on pier ${i}`);
  let ids;

  test(`${N} concurrent writes for one user are all acknowledged and all found afterwards`, async () => {
    const c = client(w.url, token("acme", "carol"));
    // Reads run among the writes.
    const results = await Promise.all([
      ...texts.map((t) => c.remember({ text: t, tags: ["load"] })),
      ...Array.from({ length: 10 }, () => c.recall("which depot", { force: true })),
    ]);
    const writes = results.slice(0, N);
    for (const r of writes) assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
    ids = writes.map((r) => r.body.id);
    const inserted = writes.filter((r) => r.body.action === "inserted").length;
    const found = await allTexts(c);
    // Every acknowledged write is there: inserted ones by their text, reinforced ones by the id they returned.
    const list = (await c.list("?limit=1000")).body.memories;
    const byId = new Set(list.map((m) => m.id));
    for (const [i, r] of writes.entries()) {
      assert.ok(byId.has(r.body.id), `write ${i} (${r.body.action}) is missing`);
      if (r.body.action === "inserted") assert.ok(found.includes(texts[i]), `text ${i} is missing`);
    }
    assert.equal(inserted, N, `every text is distinct: ${N - inserted} were merged`);
    assert.equal(found.length, N);
    assert.equal((await c.status()).body.count, N);
  });

  test("after a restart with the same --persist-to, every memory is still there, written on under a new replica id", async () => {
    const before = {
      carol: (await client(w.url, token("acme", "carol")).status()).body,
      alice: await allTexts(alice()),
      bob: await allTexts(bob()),
    };
    await w.stop();
    w = await startWorker({ persistTo });
    const carol = client(w.url, token("acme", "carol"));
    const st = await carol.status();
    assert.equal(st.body.count, N);
    // A fresh replica id per open instance: the restarted object never continues the old
    // one's HLC stream (issue 21: a copied or reopened store must not reissue ids).
    assert.ok(Number.isSafeInteger(st.body.replica) && Number.isSafeInteger(before.carol.replica));
    assert.notEqual(st.body.replica, before.carol.replica);
    const list = (await carol.list("?limit=1000")).body.memories;
    assert.deepEqual(new Set(list.map((m) => m.id)), new Set(ids));
    assert.deepEqual(await allTexts(alice()), before.alice);
    assert.deepEqual(await allTexts(bob()), before.bob);
    // Still writable after the restart.
    const r = await carol.remember("Carol restarted the pipeline on Friday");
    assert.equal(r.status, 201);
    assert.equal((await carol.status()).body.count, N + 1);
  });

  test("forget-user empties only that user", async () => {
    const b = bob();
    const r = await b.forgetUser();
    assert.equal(r.status, 200);
    assert.ok(r.body.forgotten >= 2);
    assert.deepEqual(await allTexts(b), []);
    assert.equal((await b.status()).body.count, 0);
    assert.ok((await allTexts(alice())).includes("Prefers Go for backend services"));
  });
});
