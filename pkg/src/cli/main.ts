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
        session: { type: "string" },
        role: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    fail(Object.assign(new Error(plainParseError(e as Error & { code?: string })), { code: "USAGE" }), process.argv.includes("--json"));
  }
})();

process.on("uncaughtException", (e) => fail(e, values.json === true));
process.on("unhandledRejection", (e) => fail(e, values.json === true));

run(positionals, values).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => fail(e, values.json === true),
);

/** One line on stderr: the error's code, its message (without a repeated code), a hint; never a stack. */
function fail(e: unknown, json: boolean): never {
  const code = typeof (e as { code?: unknown })?.code === "string" ? (e as { code: string }).code : "ERROR";
  let message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ").trim();
  if (message.startsWith(code + ":")) message = message.slice(code.length + 1).trim();
  const hint = hintFor(code);
  process.stderr.write(json ? JSON.stringify({ error: { code, message, hint } }) + "\n" : `engram: ${code}: ${message} (hint: ${hint})\n`);
  process.exit(code === "USAGE" ? 2 : 1);
}

/** What a person can do about an error with this code. */
function hintFor(code: string): string {
  switch (code) {
    case "USAGE":
      return "engram --help lists the commands and options";
    case "INVALID_INPUT":
      return "correct the value named above and run the command again (engram --help shows each option)";
    case "ENOENT":
      return "check the path: it is read relative to the current folder";
    case "EACCES":
    case "EPERM":
      return "this user may not read or write that path: check its permissions, or choose another with --dir or --store";
    case "EISDIR":
      return "give a file, not a folder";
    case "STORE_LOCKED":
      return "another process (an MCP server, another engram command) has this store open: stop it, or wait and retry";
    case "MISSING_DEPENDENCY":
      return "install them where engram is installed (with -g too, if engram is global)";
    case "EADDRINUSE":
      return "that port is taken: pass another with --http";
    default:
      return code.startsWith("SYNC") || code.startsWith("ORIGIN") || code === "UNAUTHORIZED"
        ? "check --origin and ENGRAM_TOKEN (mint one with engram token)"
        : "run the command again with --json for the error as data; engram --help lists the commands";
  }
}

/** node:util parseArgs's messages, in the words of this CLI. */
function plainParseError(e: Error & { code?: string }): string {
  const m = e.message;
  const opt = /'(-{1,2}[\w-]+)/.exec(m)?.[1] ?? "";
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${opt}`;
  if (/ambiguous/.test(m)) return `${opt} needs a value, and a value starting with "-" must be written ${opt}=VALUE`;
  if (/argument missing/.test(m)) return `${opt} needs a value`;
  if (/does not take an argument/.test(m)) return `${opt} takes no value`;
  return m;
}
