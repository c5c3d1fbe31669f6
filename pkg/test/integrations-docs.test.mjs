// Every example in pkg/INTEGRATIONS.md, run as written (in a fresh directory) against the
// built package: `npx engram` becomes `node dist/cli/main.js`, bare imports resolve as they
// would for a user of the package (`engram`, `engram/ai-sdk`, … through its exports map).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

async function block(name) {
  const doc = await readFile(new URL("../INTEGRATIONS.md", import.meta.url), "utf8");
  const m = doc.match(new RegExp(`<!-- integration-example: ${name}[^>]*-->\\s*\`\`\`(\\w+)\\n([\\s\\S]*?)\`\`\``));
  if (!m) throw new Error(`INTEGRATIONS.md has no block marked integration-example: ${name}`);
  return m[2];
}

function run(cmd, args, cwd, env = {}) {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8" }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve({ stdout, stderr }))),
  );
}

/** Run a js block in a fresh directory; resolves to what it printed. */
async function runJs(name) {
  const src = (await block(name)).replace(/from "([^".][^"]*)"/g, (_, spec) => `from ${JSON.stringify(import.meta.resolve(spec))}`);
  const dir = await mkdtemp(join(tmpdir(), `engram-doc-${name}-`));
  await writeFile(join(dir, "example.mjs"), src);
  return { ...(await run(process.execPath, ["example.mjs"], dir)), dir };
}

test("the package's subpath exports resolve to the built integrations", () => {
  assert.equal(fileURLToPath(import.meta.resolve("engram/ai-sdk")), fileURLToPath(new URL("../dist/integrations/ai-sdk.js", import.meta.url)));
  assert.equal(fileURLToPath(import.meta.resolve("engram/langchain")), fileURLToPath(new URL("../dist/integrations/langchain.js", import.meta.url)));
  assert.equal(fileURLToPath(import.meta.resolve("engram/mcp")), fileURLToPath(new URL("../dist/integrations/mcp.js", import.meta.url)));
});

test("the CLI example runs as written and prints what it describes", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-doc-cli-"));
  const script = (await block("cli")).replaceAll("npx engram", `node ${JSON.stringify(BIN)}`);
  const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script], dir, { ENGRAM_SECRET: "", ENGRAM_DIR: "", ENGRAM_USER: "" });
  const out = stdout.split("\n");
  assert.match(out[0], /^imported 2 memories: /);
  assert.match(out[1], /^\S+  fact \[zhang san \/ language\]  "Switched from Python to Go"$/, "list shows the current value only");
  assert.match(out[2], /superseded by .*"Prefers Python"$/);
  assert.match(out[3], /current .*"Switched from Python to Go"$/);
  assert.match(out[4], /^1\. .*"Switched from Python to Go"$/);
  const searchEnd = out.findIndex((l) => l.startsWith("wrote "));
  assert.match(out[searchEnd], /^wrote \d+ bytes to zhang-san\.snap$/);
  assert.ok(existsSync(join(dir, "memory", "default", "zhang-san")), "the store is ./memory/<tenant>/<user>/");
  assert.match(out[searchEnd + 1], /^\d+ tokens \(o200k_base, exact\) in notes\.jsonl$/);
  const [h, p, s] = out[searchEnd + 2].split(".");
  assert.equal(s, createHmac("sha256", "a-secret-of-at-least-32-bytes-long").update(`${h}.${p}`).digest("base64url"));
  assert.equal(JSON.parse(Buffer.from(p, "base64url")).sub, "zhang-san");
});

test("the MCP client configuration starts the server and its tools answer", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-doc-mcp-"));
  const { command, args, env } = JSON.parse(await block("mcp")).mcpServers.engram;
  assert.deepEqual([command, args[0]], ["npx", "engram"]);
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args.slice(1)], env: { ...process.env, ...env }, cwd: dir, stderr: "pipe" });
  const client = new Client({ name: "doc-test", version: "0" });
  await client.connect(transport);
  try {
    assert.equal((await client.listTools()).tools.length, 7);
    const r = await client.callTool({ name: "remember", arguments: { text: "Prefers window seats on long flights" } });
    assert.equal(r.structuredContent.action, "inserted");
  } finally {
    await client.close();
  }
  assert.ok(existsSync(join(dir, "memory", "default", "zhang-san")));
});

test("the AI SDK example runs as written: the second call's prompt carries the first call's memory as untrusted data", async () => {
  const { stdout } = await runJs("ai-sdk");
  assert.match(stdout, /^<memory-data trust="untrusted">/);
  assert.ok(stdout.includes("User lives in Hangzhou") && stdout.includes("User prefers short answers"), stdout);
});

test("the LangChain example runs as written: the chain answers and the user's facts were learned", async () => {
  const { stdout } = await runJs("langchain");
  assert.equal(stdout.trim(), "Try the West Lake trail. [ 'User lives in Hangzhou', 'User prefers short answers' ]");
});
