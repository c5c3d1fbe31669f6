#!/usr/bin/env node
/**
 * `npx engram <command>`: inspect and manage a user's memory on disk, count tokens, mint
 * origin tokens, and start the MCP server. Every command takes `--json` (one JSON document
 * on stdout); every error is one line on stderr naming its code, and the exit status is 1
 * (2 for a usage error).
 *
 * ```text
 * engram list [--all]                 memories (with --all: every version, the audit trail)
 * engram history <subject> <attr>     every version of one fact key, oldest first
 * engram search <query…> [--k N]      recall, with why each memory was recalled
 * engram export [--out F] [--jsonl]   the store as a snapshot (or current memories as JSON lines)
 * engram import <file> [--replace]    a snapshot, or JSON lines of memories (progress on stderr)
 * engram forget <id> | --everything   delete one memory, or everything about the user
 * engram tokens <file> [--encoding E] exact token count (o200k_base or cl100k_base)
 * engram token <tenant> <user>        an origin token signed with ENGRAM_SECRET [--ttl S]
 * engram mcp [--http PORT]            the MCP server (stdio, or streamable HTTP on 127.0.0.1)
 * ```
 * Store options: `--user U` (or `ENGRAM_USER`), `--tenant T`, `--dir D` (root of per-user
 * stores, `ENGRAM_DIR`, default `~/.engram`) or `--store D` (exactly this directory),
 * `--origin URL` (with `ENGRAM_TOKEN`) to sync first, `--no-embed`.
 * @module
 */
import { parseArgs } from "node:util";
import { run } from "./commands.js";

const { values, positionals } = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean" },
        user: { type: "string" },
        tenant: { type: "string" },
        dir: { type: "string" },
        store: { type: "string" },
        origin: { type: "string" },
        "no-embed": { type: "boolean" },
        all: { type: "boolean" },
        k: { type: "string" },
        force: { type: "boolean" },
        out: { type: "string" },
        jsonl: { type: "boolean" },
        replace: { type: "boolean" },
        progress: { type: "boolean" },
        everything: { type: "boolean" },
        yes: { type: "boolean" },
        encoding: { type: "string" },
        ttl: { type: "string" },
        http: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    fail(Object.assign(new Error((e as Error).message), { code: "USAGE" }), process.argv.includes("--json"));
  }
})();

run(positionals, values).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => fail(e, values.json === true),
);

function fail(e: unknown, json: boolean): never {
  const code = typeof (e as { code?: unknown })?.code === "string" ? (e as { code: string }).code : "ERROR";
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");
  process.stderr.write(json ? JSON.stringify({ error: { code, message } }) + "\n" : `engram: ${code}: ${message}\n`);
  process.exit(code === "USAGE" ? 2 : 1);
}
