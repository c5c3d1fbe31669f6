// The AI SDK middleware inside workerd (wrangler dev --local, offline): the real engram
// workerd entry point (wasm imported as a compiled module), the real `ai` package and its
// stub model. Skipped when no wrangler is installed (worker/ installs wrangler 4.86.0).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const WRANGLER = process.env.WRANGLER ?? fileURLToPath(new URL("../../worker/node_modules/.bin/wrangler", import.meta.url));
const at = (p) => fileURLToPath(new URL(p, import.meta.url));

const WORKER = `
import { Engram, MemoryStorage } from "engram";
import { engramMiddleware } from "engram/ai-sdk";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };
export default {
  async fetch() {
    const mem = await Engram.open({ user: "w", storage: new MemoryStorage(), embedder: false, tokenizer: false });
    await mem.remember({ text: "Prefers Go for backend services", key: { subject: "user", attribute: "backend language" } });
    const stub = new MockLanguageModelV3({
      doGenerate: { content: [{ type: "text", text: "Use Go." }], finishReason: { unified: "stop" }, usage, warnings: [] },
      doStream: { stream: convertArrayToReadableStream([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Go, " }, { type: "text-delta", id: "t", delta: "again." }, { type: "text-end", id: "t" }, { type: "finish", finishReason: { unified: "stop" }, usage }]) },
    });
    const model = wrapLanguageModel({ model: stub, middleware: engramMiddleware({ memory: mem, session: "s" }) });
    const g = await generateText({ model, prompt: "Which language for the backend service?" });
    let streamed = "";
    for await (const c of streamText({ model, prompt: "And for the next backend service?" }).textStream) streamed += c;
    const seen = stub.doGenerateCalls[0].prompt[0].content;
    return Response.json({ text: g.text, streamed, turns: (await mem.session("s").recent()).map((t) => t.text), seen });
  },
};
`;

test("the AI SDK middleware runs in workerd with generateText and streamText", { skip: !existsSync(WRANGLER) && `no wrangler at ${WRANGLER}`, timeout: 120_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-workerd-"));
  await writeFile(join(dir, "index.js"), WORKER);
  await writeFile(join(dir, "wrangler.toml"), [
    'name = "engram-ai-sdk-check"', 'main = "index.js"', 'compatibility_date = "2026-04-01"', "send_metrics = false", "[alias]",
    `"engram" = ${JSON.stringify(at("../dist/entrypoints/workerd.js"))}`,
    `"engram/ai-sdk" = ${JSON.stringify(at("../dist/integrations/ai-sdk.js"))}`,
    `"ai" = ${JSON.stringify(at("../node_modules/ai/dist/index.mjs"))}`,
    `"ai/test" = ${JSON.stringify(at("../node_modules/ai/dist/test/index.mjs"))}`,
  ].join("\n") + "\n");
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", CI: "1" };
  const dev = spawn(WRANGLER, ["dev", "--local", "--ip", "127.0.0.1", "--port", "0"], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  try {
    const url = await new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`wrangler did not start:\n${log}`)), 90_000);
      const seen = (d) => {
        log += d;
        const m = log.match(/Ready on (http:\/\/127\.0\.0\.1:\d+)/);
        if (m) clearTimeout(timer), ok(m[1]);
      };
      dev.stdout.on("data", seen);
      dev.stderr.on("data", seen);
      dev.on("exit", (c) => fail(new Error(`wrangler exited ${c}:\n${log}`)));
    });
    const res = await fetch(url);
    assert.equal(res.status, 200, log);
    const out = await res.json();
    assert.equal(out.text, "Use Go.");
    assert.equal(out.streamed, "Go, again.");
    assert.match(out.seen, /^<memory-data trust="untrusted">/);
    assert.ok(out.seen.includes("Prefers Go for backend services"));
    assert.deepEqual(out.turns, ["Which language for the backend service?", "Use Go.", "And for the next backend service?", "Go, again."]);
  } finally {
    try {
      process.kill(-dev.pid, "SIGTERM");
    } catch {}
  }
});
