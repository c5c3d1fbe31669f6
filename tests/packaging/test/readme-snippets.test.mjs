// Every snippet of the tarball's README run as written, from a project that installed the
// packed tarball (the quick start is in node.test.mjs): the CLI block line by line, the MCP
// client configuration started as a client would start it, the AI SDK and LangChain
// snippets with a local model stub. The frameworks are this folder's devDependencies (the
// package's optional peers), resolved from fixtures/ by walking up.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fixtures, installEngram } from "./helpers.mjs";

const { dir } = installEngram();
const readme = readFileSync(join(dir, "README.md"), "utf8");
/** The first fenced block of `lang` after the heading `heading`. */
function block(heading, lang) {
  const at = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(at >= 0, `the README has a "${heading}" section`);
  const m = readme.slice(at).match(new RegExp("```" + lang + "\\n([\\s\\S]*?)```"));
  assert.ok(m, `a ${lang} block under "${heading}"`);
  return m[1];
}
/** A folder inside fixtures/ (so "engram" and the peers resolve), removed after `f`. */
async function inProject(f) {
  const where = mkdtempSync(join(fixtures, "snippet-"));
  try {
    return await f(where);
  } finally {
    rmSync(where, { recursive: true, force: true });
  }
}

test("the README's CLI block runs line by line from a project folder and does what its comments say", () =>
  inProject((where) => {
    writeFileSync(join(where, "notes.jsonl"), ['{"text":"Prefers Go as the programming language for backend services"}', '{"text":"Lives in Hangzhou"}'].join("\n") + "\n");
    const lines = block("CLI", "bash").split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter(Boolean);
    assert.ok(lines.length >= 6, lines.join("\n"));
    const env = { ...process.env };
    const out = {};
    for (const line of lines) {
      if (line.startsWith("export ")) {
        for (const [k, v] of line.slice(7).split(/\s+/).map((kv) => kv.split("="))) env[k] = v;
        continue;
      }
      out[line] = execFileSync("bash", ["-c", line], { cwd: where, env, encoding: "utf8" });
    }
    const get = (cmd) => Object.entries(out).find(([l]) => l.startsWith(cmd))?.[1] ?? "";
    assert.match(get("npx engram import"), /imported 2 memories/);
    assert.match(get("npx engram list"), /Prefers Go as the programming language/);
    assert.match(get("npx engram search"), /Prefers Go/);
    assert.ok(existsSync(join(where, "zhang-san.snap")), "export wrote the snapshot");
    assert.match(get("npx engram tokens"), /\d+/);
    assert.match(get("npx engram --help"), /mcp/);
  }));

test("the README's MCP client configuration starts a server a client can remember and recall through", () =>
  inProject(async (where) => {
    const config = JSON.parse(block("MCP server", "json").replaceAll("/path/to/your-project", where.replace(/\/snippet-[^/]+$/, "")).replace(`${fixtures}/memory`, join(where, "memory")));
    const server = config.mcpServers.engram;
    assert.ok(existsSync(server.args[0]), `the configured path is the installed CLI: ${server.args[0]}`);
    const client = new Client({ name: "readme-test", version: "0" });
    await client.connect(new StdioClientTransport({ command: server.command === "node" ? process.execPath : server.command, args: server.args, env: { ...process.env, ...server.env }, stderr: "pipe" }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      for (const t of ["observe", "remember", "recall", "context", "list", "forget", "forget_user"]) assert.ok(tools.includes(t), `${t} in ${tools}`);
      const put = await client.callTool({ name: "remember", arguments: { text: "Prefers Go for backend services" } });
      assert.ok(!put.isError, put.content?.[0]?.text);
      const got = await client.callTool({ name: "recall", arguments: { query: "which language for backend" } });
      assert.match(got.content[0].text, /Prefers Go for backend services/);
      assert.ok(existsSync(join(where, "memory")), "the memory is in ENGRAM_DIR");
    } finally {
      await client.close();
    }
  }));

test("the README's AI SDK snippet runs with a local model stub: the model sees the memory and the turn is observed", () =>
  inProject((where) => {
    const prelude = `import { Engram, MemoryStorage } from "engram";
import { MockLanguageModelV3 } from "ai/test";
const mem = await Engram.open({ user: "zhang-san", storage: new MemoryStorage() });
await mem.remember("Zhang San loves hiking in the hills");
const prompts = [];
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const yourModel = new MockLanguageModelV3({ doGenerate: async (o) => (prompts.push(o.prompt), { content: [{ type: "text", text: "Go hiking." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });
`;
    const epilogue = `
console.log(JSON.stringify({ sawMemory: JSON.stringify(prompts).includes("hiking in the hills"), turns: (await mem.session("chat-1").recent()).map((t) => t.text) }));
await mem.close();
`;
    writeFileSync(join(where, "ai.mjs"), prelude + block("Vercel AI SDK", "js").replace(/^import \{ wrapLanguageModel, generateText \} from "ai";$/m, 'import { wrapLanguageModel, generateText } from "ai";') + epilogue);
    const r = JSON.parse(execFileSync(process.execPath, [join(where, "ai.mjs")], { encoding: "utf8" }).trim().split("\n").at(-1));
    assert.equal(r.sawMemory, true, "the context reached the model");
    assert.deepEqual(r.turns, ["Where should I go this weekend?", "Go hiking."]);
  }));

test("the README's LangChain snippet runs: the runnable gives the context and the history keeps the turns", () =>
  inProject((where) => {
    const prelude = `import { Engram, MemoryStorage } from "engram";
import { HumanMessage, AIMessage } from "@langchain/core/messages";
const mem = await Engram.open({ user: "zhang-san", storage: new MemoryStorage() });
await mem.observe([{ role: "user", text: "I'm allergic to peanuts" }], { session: "s0" });
`;
    const epilogue = `
const ctx = await memory.invoke({ question: "what should I cook tonight?" });
await history.addMessages([new HumanMessage("I'm vegetarian"), new AIMessage("Noted.")]);
console.log(JSON.stringify({ context: typeof ctx === "string" ? ctx : JSON.stringify(ctx), history: (await history.getMessages()).map((m) => m.content) }));
await mem.close();
`;
    writeFileSync(join(where, "lc.mjs"), prelude + block("LangChain.js", "js") + epilogue);
    const r = JSON.parse(execFileSync(process.execPath, [join(where, "lc.mjs")], { encoding: "utf8" }).trim().split("\n").at(-1));
    assert.match(r.context, /allergic to peanuts/);
    assert.deepEqual(r.history, ["I'm vegetarian", "Noted."]);
  }));
