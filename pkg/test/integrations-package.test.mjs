// The package as users install it: `npm pack`, install the tarball (with the MCP peers) into
// an empty project, then `npx engram` and `npx engram mcp` from there, and the subpath
// imports. npm installs from its cache when it can (--prefer-offline).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("..", import.meta.url));
const lock = JSON.parse(await (await import("node:fs/promises")).readFile(new URL("../package-lock.json", import.meta.url), "utf8"));
const pinned = (name) => `${name}@${lock.packages[`node_modules/${name}`].version}`;

function sh(cmd, args, cwd, env = {}) {
  return new Promise((ok, fail) =>
    execFile(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 64 << 20 }, (e, stdout, stderr) => (e ? fail(new Error(`${cmd} ${args.join(" ")}: ${e.message}\n${stderr}`)) : ok(stdout))),
  );
}

test("installed from its tarball, `npx engram` and `npx engram mcp` work and the subpaths resolve", { timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-pack-"));
  const [{ filename }] = JSON.parse(await sh("npm", ["pack", "--json", "--pack-destination", dir], PKG));
  const app = join(dir, "app");
  await (await import("node:fs/promises")).mkdir(app);
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  await sh("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", join(dir, filename), pinned("@modelcontextprotocol/sdk"), pinned("zod")], app);

  const env = { ENGRAM_DIR: join(app, "memory"), ENGRAM_USER: "zhang-san" };
  assert.match(await sh("npx", ["engram", "--help"], app), /^usage: engram <command>/);
  await writeFile(join(app, "m.jsonl"), '{"text":"Prefers tea over coffee"}\n');
  assert.match(await sh("npx", ["engram", "import", "m.jsonl"], app, env), /^imported 1 memories: 1 inserted/);

  await writeFile(join(app, "client.mjs"), `
    import { Client } from "@modelcontextprotocol/sdk/client/index.js";
    import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
    const c = new Client({ name: "t", version: "0" });
    await c.connect(new StdioClientTransport({ command: "npx", args: ["engram", "mcp"], env: { ...process.env } }));
    const r = await c.callTool({ name: "recall", arguments: { query: "what does she like to drink" } });
    console.log(JSON.stringify(r.structuredContent.hits.map((h) => h.text)));
    await c.close();
    const subpaths = await Promise.all(["engram", "engram/ai-sdk", "engram/mcp"].map((s) => import(s).then((m) => Object.keys(m).length > 0)));
    console.log(JSON.stringify(subpaths));
    await import("engram/langchain").then(() => console.log("langchain loaded"), (e) => console.log(e.code));
  `);
  const [hits, subpaths, langchain] = (await sh(process.execPath, ["client.mjs"], app, env)).trim().split("\n");
  assert.deepEqual(JSON.parse(hits), ["Prefers tea over coffee"]);
  assert.deepEqual(JSON.parse(subpaths), [true, true, true]);
  assert.equal(langchain, "ERR_MODULE_NOT_FOUND", "engram/langchain needs @langchain/core, which this project did not install");
});
