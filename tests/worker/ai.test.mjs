// Workers AI through a binding, against a stub (tests/worker/fixtures/ai-stub, a second
// worker reached over a service binding's RPC, the same `env.AI.run(model, input)` shape):
// ENGRAM_EMBEDDER = "workers-ai" embeds memories and queries with it, and
// ENGRAM_EXTRACTOR_MODEL makes observe() learn from the turns in the background.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ROOT, absoluteConfig, allTexts, client, eventually, startWorker, token } from "./harness.mjs";

const dir = mkdtempSync(join(tmpdir(), "engram-worker-ai-"));
let w;

before(async () => {
  // The repository's wrangler.toml with an AI service binding to the stub.
  const config = absoluteConfig(dir, { extra: '[[services]]\nbinding = "AI"\nservice = "ai-stub"\nentrypoint = "AiStub"' });
  w = await startWorker({
    config: [config, join(ROOT, "tests/worker/fixtures/ai-stub/wrangler.toml")],
    persistTo: join(dir, "state"),
    vars: { ENGRAM_EMBEDDER: "workers-ai", ENGRAM_EXTRACTOR_MODEL: "@cf/meta/llama-3.1-8b-instruct" },
  });
});
after(async () => {
  await w?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("memories and queries are embedded by the AI binding, and the store records that model", async () => {
  const c = client(w.url, token("acme", "gina"));
  for (const t of ["Gina waters the fern every Sunday", "Gina's car is a blue hatchback", "Gina plays chess on Tuesdays"]) {
    assert.equal((await c.remember(t)).status, 201);
  }
  const st = await c.status();
  assert.deepEqual(st.body.embedder, { id: "workers-ai:@cf/baai/bge-small-en-v1.5", dim: 384 });
  const r = await c.recall("when does Gina play chess?");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const top = r.body.hits[0];
  assert.equal(top.record.text, "Gina plays chess on Tuesdays");
  assert.ok(top.parts.vector && top.parts.vector[0] === 1, `the vector channel ranked it first: ${JSON.stringify(top.parts)}`);
});

test("an embedding failure is a JSON error and nothing is written", async () => {
  const c = client(w.url, token("acme", "gina"));
  const before = (await c.status()).body.count;
  const r = await c.remember("FAIL_EMBED this one");
  assert.equal(r.status, 503, JSON.stringify(r.body));
  assert.equal(r.body.error.code, "EMBEDDER");
  assert.equal((await c.status()).body.count, before);
});

test("observe learns from the turns through the AI binding in the background", async () => {
  const c = client(w.url, token("acme", "hugo"));
  const r = await c.observe("s1", [
    { role: "user", text: "I moved all my coding over to Helix last month." },
    { role: "assistant", text: "Nice, modal editing." },
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const learned = await eventually(async () => (await allTexts(c)).includes("Uses the Helix editor for all coding"), 15_000, 200);
  assert.ok(learned, `the extractor's ADD was applied: ${JSON.stringify(await allTexts(c))}`);
  const rec = (await c.list()).body.memories.find((m) => m.text === "Uses the Helix editor for all coding");
  assert.equal(rec.source, "llm-extracted");
});
