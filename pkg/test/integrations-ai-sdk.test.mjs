// The AI SDK middleware with the real `ai` package (pinned) and its own stub model
// (MockLanguageModelV3 from `ai/test`), over a real Engram (wasm core, token table).
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { Engram, MemoryStorage } from "../dist/entrypoints/node.js";
import { engramMiddleware } from "../dist/integrations/ai-sdk.js";

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const answer = (text) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });
const streamOf = (chunks) => ({
  stream: convertArrayToReadableStream([
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...chunks.map((delta) => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ]),
});

async function open(user = "zhang-san") {
  const mem = await Engram.open({ user, storage: new MemoryStorage() });
  await mem.tokenizerReady();
  return mem;
}

const systemTexts = (prompt) => prompt.filter((m) => m.role === "system").map((m) => m.content);

test("generateText: the context for the last user message goes in as a system message under the budget, and the turn is observed", async () => {
  const mem = await open();
  const stub = new MockLanguageModelV3({ doGenerate: [answer("Noted, Zhang San."), answer("Try the Longjing tea fields.")] });
  const model = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "chat-1", budget: 120 }) });

  const first = await generateText({ model, prompt: "My name is Zhang San and I live in Hangzhou." });
  assert.equal(first.text, "Noted, Zhang San.");
  const turns = await mem.session("chat-1").recent();
  assert.deepEqual(turns.map((t) => [t.source, t.text]), [["user", "My name is Zhang San and I live in Hangzhou."], ["assistant", "Noted, Zhang San."]]);
  const facts = (await mem.list({ kinds: ["fact"] })).map((r) => r.text).sort();
  assert.deepEqual(facts, ["User lives in Hangzhou", "User's name is Zhang San"]);

  await generateText({
    model,
    system: "You are a travel assistant.",
    messages: [
      { role: "user", content: "Hello!" },
      { role: "assistant", content: "Hi, how can I help?" },
      { role: "user", content: "Where should I go this weekend near where I live?" },
    ],
  });
  const sent = stub.doGenerateCalls[1].prompt;
  assert.equal(sent[0].role, "system");
  assert.equal(sent[0].content, "You are a travel assistant.", "the caller's system message stays first");
  assert.equal(sent[1].role, "system");
  const ctx = sent[1].content;
  assert.match(ctx, /^<memory-data trust="untrusted">/);
  assert.ok(ctx.includes("User lives in Hangzhou"), ctx);
  assert.ok(mem.countTokens(ctx).tokens <= 120, "within the budget");
  assert.deepEqual(sent.slice(2).map((m) => m.role), ["user", "assistant", "user"], "the conversation follows unchanged");
  assert.equal(sent.at(-1).content[0].text, "Where should I go this weekend near where I live?");
  const last = (await mem.session("chat-1").recent()).slice(-2).map((t) => t.text);
  assert.deepEqual(last, ["Where should I go this weekend near where I live?", "Try the Longjing tea fields."], "only the last user message and the answer are observed");
  await mem.close();
});

test("streamText: the context is inserted and the streamed answer is observed once the stream ends", async () => {
  const mem = await open();
  await mem.remember({ text: "Is allergic to peanuts", kind: "fact", key: { subject: "user", attribute: "allergy" } });
  const stub = new MockLanguageModelV3({ doStream: streamOf(["Skip ", "the satay; ", "try the noodles."]) });
  const model = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "s2" }) });
  const result = streamText({ model, prompt: "What can I eat at the Thai place? Any allergy concerns?" });
  let streamed = "";
  for await (const chunk of result.textStream) streamed += chunk;
  assert.equal(streamed, "Skip the satay; try the noodles.");
  const sent = stub.doStreamCalls[0].prompt;
  assert.equal(sent[0].role, "system");
  assert.ok(sent[0].content.includes("Is allergic to peanuts"), sent[0].content);
  const turns = await mem.session("s2").recent();
  assert.deepEqual(turns.map((t) => [t.source, t.text]), [["user", "What can I eat at the Thai place? Any allergy concerns?"], ["assistant", "Skip the satay; try the noodles."]]);
  await mem.close();
});

test("each call can pick its user's memory; one user's memories never reach another's prompt", async () => {
  const users = { a: await open("a"), b: await open("b") };
  await users.a.remember("Owns a golden retriever named Mochi");
  await users.b.remember("Owns a tabby cat named Biscuit");
  const stub = new MockLanguageModelV3({ doGenerate: answer("ok") });
  const middleware = engramMiddleware({ memory: (p) => users[p.providerOptions.app.user], session: (p) => `chat-${p.providerOptions.app.user}` });
  const model = wrapLanguageModel({ model: stub, middleware });
  await generateText({ model, prompt: "Tell me about my pet", providerOptions: { app: { user: "b" } } });
  const ctx = systemTexts(stub.doGenerateCalls[0].prompt).join("\n");
  assert.ok(ctx.includes("Biscuit") && !ctx.includes("Mochi"), ctx);
  assert.equal((await users.b.session("chat-b").recent()).length, 2);
  assert.equal((await users.a.session("chat-a").recent()).length, 0);
  await Promise.all([users.a.close(), users.b.close()]);
});

test("observe: false only reads; an observe failure reaches onObserveError, or rejects the call without it", async () => {
  const mem = await open();
  await mem.remember("Works night shifts at the hospital");
  const stub = new MockLanguageModelV3({ doGenerate: answer("ok") });
  const readOnly = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "s", observe: false }) });
  await generateText({ model: readOnly, prompt: "When do I work?" });
  assert.ok(systemTexts(stub.doGenerateCalls[0].prompt)[0].includes("night shifts"));
  assert.equal((await mem.session("s").recent()).length, 0);

  const errors = [];
  const bad = (onObserveError) => wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "", onObserveError }) });
  const r = await generateText({ model: bad((e) => errors.push(e)), prompt: "When do I work?" });
  assert.equal(r.text, "ok");
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, "INVALID_INPUT");
  await assert.rejects(generateText({ model: bad(undefined), prompt: "When do I work?" }), (e) => /session/.test(String(e.message ?? e)));
  await mem.close();
});

test("a prompt without user text passes through unchanged and observes nothing", async () => {
  const mem = await open();
  await mem.remember("Likes jazz");
  const stub = new MockLanguageModelV3({ doGenerate: answer("ok") });
  const model = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "s" }) });
  await generateText({ model, system: "Say hi.", messages: [{ role: "assistant", content: "Hi!" }] });
  assert.deepEqual(systemTexts(stub.doGenerateCalls[0].prompt), ["Say hi."]);
  assert.equal((await mem.session("s").recent()).length, 0);
  await mem.close();
});

test("the middleware module imports nothing at run time, so it loads in a worker as in Node", async () => {
  const { readFile } = await import("node:fs/promises");
  const js = await readFile(new URL("../dist/integrations/ai-sdk.js", import.meta.url), "utf8");
  assert.deepEqual(js.match(/^\s*(import|export \* from|export \{[^}]*\} from)\b.*$/gm) ?? [], [], "no import statements");
  assert.ok(!/\brequire\(|\bimport\(|process\.|Buffer\b/.test(js), "no dynamic imports or Node globals");
});

test("with an extractor given to Engram.open, the observed turn also goes to the LLM in the background (local OpenAI-compatible stub)", async () => {
  const { createServer } = await import("node:http");
  const { OpenAiExtractor } = await import("../dist/entrypoints/node.js");
  const requests = [];
  const llm = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d)).on("end", () => {
      requests.push({ url: req.url, body: JSON.parse(body) });
      const ops = { operations: [{ op: "ADD", text: "Is planning a trip to Kyoto in April", kind: "event", importance: 0.7 }] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: { content: JSON.stringify(ops) } }] }));
    });
  });
  await new Promise((ok) => llm.listen(0, "127.0.0.1", ok));
  const mem = await Engram.open({ user: "u", storage: new MemoryStorage(), extractor: new OpenAiExtractor({ baseUrl: `http://127.0.0.1:${llm.address().port}/v1`, model: "stub" }) });
  try {
    const stub = new MockLanguageModelV3({ doGenerate: answer("April is a lovely time for Kyoto.") });
    const model = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "s" }) });
    const r = await generateText({ model, prompt: "We are thinking about Kyoto for April, any tips?" });
    assert.equal(r.text, "April is a lovely time for Kyoto.");
    await mem.idle();
    assert.equal(requests.length, 1);
    assert.equal(requests[0].url, "/v1/chat/completions");
    const sent = JSON.stringify(requests[0].body.messages);
    assert.ok(sent.includes("We are thinking about Kyoto for April") && sent.includes("April is a lovely time for Kyoto."), "the user and assistant turns were sent");
    const learned = (await mem.list({ kinds: ["event"] })).map((m) => [m.text, m.source]);
    assert.deepEqual(learned, [["Is planning a trip to Kyoto in April", "llm-extracted"]]);
  } finally {
    await mem.close();
    llm.close();
  }
});

test("a multi-step call with tools observes the user message once and the final answer once", async () => {
  const { tool, stepCountIs, jsonSchema } = await import("ai");
  const mem = await open();
  await mem.remember({ text: "Lives in Hangzhou", key: { subject: "user", attribute: "location" } });
  const stub = new MockLanguageModelV3({
    doGenerate: [
      { content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: JSON.stringify({ city: "Hangzhou" }) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] },
      answer("It will be sunny in Hangzhou."),
    ],
  });
  const model = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "s" }) });
  const weather = tool({ description: "weather", inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }), execute: async ({ city }) => `sunny in ${city}` });
  const r = await generateText({ model, prompt: "What's the weather where I live?", tools: { weather }, stopWhen: stepCountIs(3) });
  assert.equal(r.text, "It will be sunny in Hangzhou.");
  assert.equal(stub.doGenerateCalls.length, 2);
  assert.ok(systemTexts(stub.doGenerateCalls[1].prompt)[0].includes("Lives in Hangzhou"), "every step gets the memory");
  const turns = (await mem.session("s").recent()).map((t) => [t.source, t.text]);
  assert.deepEqual(turns, [["user", "What's the weather where I live?"], ["assistant", "It will be sunny in Hangzhou."]]);
  await mem.close();
});

test("the model's reply (\"Got it.\") is a message of its session, never a fact, and another session's recall and context never return it", async () => {
  const mem = await open();
  const stub = new MockLanguageModelV3({ doGenerate: [answer("Got it."), answer("Got it.")] });
  const model = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "chat-1", budget: 200 }) });
  await generateText({ model, prompt: "I'm allergic to peanuts." });
  await generateText({ model, prompt: "My sister is called Ana." });

  const kept = (await mem.list()).filter((r) => r.kind !== "message").map((r) => r.text).sort();
  assert.deepEqual(kept, ["User is allergic to peanuts", "User's sister is called Ana"]);
  const turns = await mem.session("chat-1").recent();
  assert.deepEqual(turns.filter((t) => t.source === "assistant").map((t) => t.text), ["Got it.", "Got it."], "kept as turns of chat-1");
  for (const q of ["Got it.", "got it", "what did you say?"]) {
    const { hits } = await mem.recall(q, { k: 20 });
    assert.ok(!hits.some((h) => h.record.source === "assistant"), `${q}: ${JSON.stringify(hits.map((h) => h.record.text))}`);
  }
  const ctx = await mem.buildContext("Got it. What should I cook tonight?", { budget: 300, session: "chat-2" });
  assert.ok(!ctx.text.includes("Got it."), ctx.text);
  assert.ok(ctx.text.includes("User is allergic to peanuts"), ctx.text);
});
