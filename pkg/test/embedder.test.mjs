// The OpenAI-compatible embedder against a local HTTP server that plays the endpoint.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { OpenAiEmbedder, EngramIoError, Engram } from "../dist/entrypoints/node.js";

async function serve(handler) {
  const requests = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const parsed = body ? JSON.parse(body) : null;
    requests.push({ method: req.method, url: req.url, headers: req.headers, body: parsed });
    const [status, payload] = handler(parsed);
    res.writeHead(status, { "content-type": "application/json" });
    res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(r)) };
}

const vec = (seed, dim) => Array.from({ length: dim }, (_, i) => Math.sin(seed * 7 + i));

test("requests carry model, inputs, dimensions and the bearer key; responses are reordered by index", async () => {
  const srv = await serve((body) => [200, { data: body.input.map((t, i) => ({ index: i, embedding: vec(t.length, 4) })).reverse() }]);
  try {
    const e = new OpenAiEmbedder({ baseUrl: srv.url + "/", apiKey: "sk-test", model: "m-small", dimension: 4, batchSize: 2 });
    const out = await e.embed(["a", "bb", "ccc"]);
    assert.equal(out.length, 3);
    assert.deepEqual([...out[2]].map((x) => +x.toFixed(5)), vec(3, 4).map((x) => +Math.fround(x).toFixed(5)));
    assert.equal(srv.requests.length, 2, "batched by 2");
    const r = srv.requests[0];
    assert.equal(r.url, "/v1/embeddings");
    assert.equal(r.headers.authorization, "Bearer sk-test");
    assert.deepEqual(r.body, { model: "m-small", input: ["a", "bb"], dimensions: 4 });
    assert.equal(e.id, "openai-compatible:m-small:4");
  } finally {
    await srv.close();
  }
});

test("HTTP errors and malformed responses are typed errors", async () => {
  for (const [status, payload, code] of [
    [429, { error: "rate limited" }, "EMBEDDER_HTTP"],
    [200, { data: [] }, "EMBEDDER_RESPONSE"],
    [200, { data: [{ index: 0, embedding: [1, 2] }] }, "EMBEDDER_RESPONSE"],
    [200, { data: [{ index: 0, embedding: [1, null, 3, 4] }] }, "EMBEDDER_RESPONSE"],
  ]) {
    const srv = await serve(() => [status, payload]);
    try {
      const e = new OpenAiEmbedder({ baseUrl: srv.url, model: "m", dimension: 4 });
      await assert.rejects(e.embed(["x"]), (err) => err instanceof EngramIoError && err.code === code);
    } finally {
      await srv.close();
    }
  }
});

test("an Engram with the HTTP embedder recalls by meaning through the vector channel", async () => {
  // The stub maps texts about food to one direction and texts about travel to another.
  const topic = (t) => (/(pizza|pasta|food|eat|dinner)/i.test(t) ? [1, 0.1, 0, 0] : /(flight|trip|travel|paris)/i.test(t) ? [0, 0.1, 1, 0] : [0, 1, 0, 0.2]);
  const srv = await serve((body) => [200, { data: body.input.map((t, i) => ({ index: i, embedding: topic(t) })) }]);
  try {
    const mem = await Engram.open({ user: "u", embedder: new OpenAiEmbedder({ baseUrl: srv.url, model: "stub", dimension: 4 }) });
    await mem.remember("Loves margherita pizza");
    await mem.remember("Booked a flight to Paris for May");
    const r = await mem.recall("what should we eat for dinner?");
    assert.equal(r.hits[0].record.text, "Loves margherita pizza");
    assert.equal(r.hits[0].parts.vector[0], 1);
    assert.equal(r.hits[0].parts.lexical, null, "found by meaning, not by words");
  } finally {
    await srv.close();
  }
});
