/**
 * The CLI's commands, each a few calls into the public SDK (see `main.ts` for the usage).
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { EngramInputError, loadTokenizer, type Engram, type EncodingName, type MemoryInput, type MemoryRecord } from "../entrypoints/node.js";
import { openStore, resolveStoreUser, type StoreOptions } from "./store.js";
import { mintToken } from "./token.js";

/** The flags `main.ts` parses. */
export interface Flags {
  json?: boolean;
  user?: string;
  tenant?: string;
  dir?: string;
  store?: string;
  origin?: string;
  "no-embed"?: boolean;
  all?: boolean;
  k?: string;
  force?: boolean;
  out?: string;
  jsonl?: boolean;
  replace?: boolean;
  progress?: boolean;
  everything?: boolean;
  yes?: boolean;
  encoding?: string;
  ttl?: string;
  http?: string;
  session?: string;
  role?: string;
  help?: boolean;
}

const USAGE = `usage: engram <command> [options]
  list [--all]                     memories (--all: every version, the audit trail)
  history <subject> <attribute>    every version of one fact key
  search <query...> [--k N] [--force]
  observe <text...> [--role user|assistant] [--session S]   keep what a turn says (prints what was kept)
  profile                          the user's profile: facts, custom rules, behaviour, privacy
  export [--out FILE] [--jsonl]    snapshot (default) or current memories as JSON lines
  import <FILE> [--replace] [--progress]
  forget <id> | forget --everything --yes
  tokens <FILE> [--encoding o200k_base|cl100k_base]
  token <tenant> <user> [--ttl SECONDS]   (signs with ENGRAM_SECRET)
  mcp [--http PORT]                the MCP server over stdio (or streamable HTTP)
store: --user U (ENGRAM_USER) --tenant T --dir ROOT (ENGRAM_DIR, ~/.engram) | --store DIR
       --origin URL (ENGRAM_ORIGIN, with ENGRAM_TOKEN) --no-embed    output: --json`;

/** Run one command; resolves to the exit status. */
export async function run(args: string[], f: Flags): Promise<number> {
  const [cmd, ...rest] = args;
  if (f.help || !cmd || cmd === "help") {
    process.stdout.write(USAGE + "\n");
    return cmd || f.help ? 0 : 2;
  }
  const out = (human: string, data: unknown) => process.stdout.write(f.json ? JSON.stringify(data) + "\n" : human + (human ? "\n" : ""));
  switch (cmd) {
    case "tokens":
      return tokens(rest, f, out);
    case "token": {
      const [tenant, user] = need(rest, 2, "token <tenant> <user>");
      const token = mintToken({ secret: process.env.ENGRAM_SECRET ?? "", tenant, user, ttlSeconds: f.ttl === undefined ? undefined : int(f.ttl, "--ttl") });
      out(token, { token });
      return 0;
    }
    case "mcp": {
      const mcp = await import("../integrations/mcp.js").catch((e) => {
        if (e?.code !== "ERR_MODULE_NOT_FOUND" || !/@modelcontextprotocol|zod/.test(String(e.message))) throw e;
        throw Object.assign(new Error("engram mcp needs its optional peer dependencies: npm install @modelcontextprotocol/sdk zod"), { code: "MISSING_DEPENDENCY" });
      });
      const opts = await resolveStoreUser(storeOptions(f));
      if (f.http !== undefined) {
        const { url } = await mcp.serveHttp({ store: { ...opts, background: true }, port: int(f.http, "--http") });
        process.stderr.write(`engram MCP server on ${url}\n`);
      } else await mcp.serveStdio({ store: { ...opts, background: true } });
      return 0;
    }
    case "list":
    case "history":
    case "search":
    case "observe":
    case "profile":
    case "export":
    case "import":
    case "forget":
      break;
    default:
      throw usage(`unknown command "${cmd}" (try engram --help)`);
  }
  const mem = await openStore(storeOptions(f));
  try {
    if (f.origin || process.env.ENGRAM_ORIGIN) await mem.sync();
    const code = await storeCommand(mem, cmd, rest, f, out);
    if (f.origin || process.env.ENGRAM_ORIGIN) await mem.sync();
    return code;
  } finally {
    await mem.close();
  }
}

type Out = (human: string, data: unknown) => void;

async function storeCommand(mem: Engram, cmd: string, rest: string[], f: Flags, out: Out): Promise<number> {
  switch (cmd) {
    case "list": {
      const records = await mem.list(f.all ? { includeSuperseded: true, includeExpired: true } : {});
      out(records.length ? records.map(line).join("\n") : "(no memories in this store yet: add some with engram import FILE, or check --user, --dir or --store)", records);
      return 0;
    }
    case "history": {
      const [subject, attribute] = need(rest, 2, "history <subject> <attribute>");
      const norm = (s: string) => s.trim().toLowerCase();
      const versions = (await mem.list({ includeSuperseded: true, includeExpired: true }))
        .filter((r) => r.key && norm(r.key.subject) === norm(subject) && norm(r.key.attribute) === norm(attribute))
        .sort((a, b) => a.validFrom - b.validFrom || a.createdAt - b.createdAt);
      const state = (r: MemoryRecord) => (r.pendingReview ? "review" : r.supersededBy ? `superseded by ${r.supersededBy}` : r.validTo !== null ? "ended" : "current");
      out(versions.length ? versions.map((r) => `${new Date(r.validFrom).toISOString()}  ${state(r)}  ${r.id}  ${quote(r.text)}`).join("\n") : `(no versions of ${quote(subject)} / ${quote(attribute)}: engram list shows the keys there are)`, versions);
      return 0;
    }
    case "search": {
      const query = rest.join(" ");
      if (!query.trim()) throw usage("search <query...> needs a query");
      const res = await mem.recall(query, { k: f.k === undefined ? 8 : int(f.k, "--k"), force: f.force ?? false });
      const parts = (h: (typeof res.hits)[number]) => {
        const p = h.parts;
        const ch = [p.vector && `vector #${p.vector[0]} cos ${p.vector[1].toFixed(3)}`, p.lexical && `bm25 #${p.lexical[0]} ${p.lexical[1].toFixed(2)}`, p.key !== null && `key ${p.key}`];
        return `${ch.filter(Boolean).join(", ")}; decay ${p.decay.toFixed(3)}, weight ${p.weight.toFixed(3)}`;
      };
      const human = res.hits.length ? res.hits.map((h, i) => `${i + 1}. ${h.score.toFixed(4)}  ${h.record.id}  ${quote(h.record.text)}\n   ${parts(h)}`).join("\n") : `(no hits: route ${res.route})`;
      out(human, res);
      return 0;
    }
    case "observe": {
      const text = rest.join(" ");
      if (!text.trim()) throw usage("observe <text...> needs the turn's text");
      const role = f.role ?? "user";
      if (role !== "user" && role !== "assistant") throw usage(`--role is user or assistant, not ${JSON.stringify(role)}`);
      const written = await mem.observe([{ role, text }], { session: f.session ?? "cli" });
      const ids = new Set(written.remembered.filter((o) => o.action !== "dropped" && o.action !== "rejected").map((o) => o.id));
      const kept = ids.size ? (await mem.list()).filter((r) => ids.has(r.id)) : [];
      out(kept.length ? kept.map((r) => `kept ${r.id}  ${quote(r.text)}`).join("\n") : "(nothing kept: the turn states nothing about the user)", kept);
      return 0;
    }
    case "profile": {
      const p = mem.profile();
      const v = (x: { value: string; from: string } | null) => (x ? `${x.value} (${x.from})` : "-");
      const human = [
        `name ${v(p.basic.name)}, language ${v(p.basic.language)}, timezone ${v(p.basic.timezone)}`,
        `answers: detail ${v(p.behaviour.detail)}, tone ${v(p.behaviour.tone)}`,
        `visits: ${p.behaviour.visits.sessions} sessions on ${p.behaviour.visits.activeDays} days` + (p.behaviour.topics.length ? `; topics ${p.behaviour.topics.map((t) => `${t.name} (${t.mentions})`).join(", ")}` : ""),
        `privacy: retention ${p.privacy.retentionDays === null ? "none" : `${p.privacy.retentionDays} days`}, share usage ${p.privacy.shareUsage ? "on" : "off"}`,
        p.knowledge.rules.length ? `rules:\n${p.knowledge.rules.map((r) => `  ${r.id}  ${quote(r.text)}`).join("\n")}` : "rules: none (set them with updateProfile({ addRules }))",
        p.knowledge.facts.length ? `facts:\n${p.knowledge.facts.map((x) => `  ${quote(x.text)}`).join("\n")}` : "facts: none yet (engram observe \"I'm allergic to peanuts\" keeps one)",
      ].join("\n");
      out(human, p);
      return 0;
    }
    case "export": {
      const bytes = f.jsonl ? new TextEncoder().encode((await mem.list()).map((r) => JSON.stringify(r) + "\n").join("")) : mem.exportSnapshot();
      if (f.out) {
        await writeFile(f.out, bytes);
        out(`wrote ${bytes.length} bytes to ${f.out}`, { path: f.out, bytes: bytes.length, format: f.jsonl ? "jsonl" : "snapshot" });
      } else {
        if (!f.jsonl && process.stdout.isTTY) throw usage("a snapshot is binary: pass --out FILE or redirect stdout");
        process.stdout.write(bytes);
      }
      return 0;
    }
    case "import":
      return importFile(mem, need(rest, 1, "import <file>")[0], f, out);
    case "forget": {
      if (f.everything) {
        if (!f.yes) throw usage("forget --everything deletes every memory of this user, here and through sync everywhere: add --yes");
        const n = await mem.forgetUser();
        out(`forgot ${n} records`, { forgotten: n });
        return 0;
      }
      const [id] = need(rest, 1, "forget <id> (or --everything --yes)");
      const ok = await mem.forget(id);
      out(ok ? `forgot ${id}` : `no memory ${id}`, { id, forgotten: ok });
      return ok ? 0 : 1;
    }
  }
  return 2;
}

async function importFile(mem: Engram, path: string, f: Flags, out: Out): Promise<number> {
  const bytes = new Uint8Array(await readFile(path));
  const isSnapshot = bytes.length >= 4 && String.fromCharCode(...bytes.subarray(0, 4)) === "ENGS";
  if (isSnapshot) {
    const n = mem.count();
    if (n > 0 && !f.replace) throw new EngramInputError("INVALID_INPUT", `a snapshot replaces the whole store, which holds ${n} records: pass --replace`);
    await mem.importSnapshot(bytes);
    out(`imported snapshot (${mem.count()} records)`, { format: "snapshot", records: mem.count() });
    return 0;
  }
  const lines = new TextDecoder().decode(bytes).split("\n").map((l, i) => [l.trim(), i + 1] as const).filter(([l]) => l);
  const inputs = lines.map(([l, n]) => toInput(l, path, n));
  const bar = progress(inputs.length, f.progress ?? process.stderr.isTTY === true);
  const counts: Record<string, number> = {};
  for (let i = 0; i < inputs.length; i += 64) {
    for (const o of await mem.rememberMany(inputs.slice(i, i + 64))) counts[o.action] = (counts[o.action] ?? 0) + 1;
    bar(Math.min(i + 64, inputs.length));
  }
  out(`imported ${inputs.length} memories: ${Object.entries(counts).map(([a, n]) => `${n} ${a}`).join(", ") || "none"}`, { format: "jsonl", memories: inputs.length, actions: counts });
  return 0;
}

/** One JSON line as a memory: a plain `MemoryInput`, or a record as `export --jsonl` writes it. */
function toInput(line: string, path: string, n: number): MemoryInput {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line);
  } catch (e) {
    throw new EngramInputError("INVALID_INPUT", `${path}:${n}: not JSON (${(e as Error).message})`);
  }
  if (!v || typeof v !== "object" || typeof v.text !== "string") throw new EngramInputError("INVALID_INPUT", `${path}:${n}: each line needs a "text" string`);
  const pick = ["text", "kind", "layer", "key", "importance", "confidence", "source", "tags", "sensitivity", "ttlMs", "id", "observedAt"] as const;
  const m: Record<string, unknown> = {};
  for (const k of pick) if (v[k] !== undefined && v[k] !== null) m[k] = v[k];
  return m as unknown as MemoryInput;
}

/** A progress bar on stderr (`\r`-redrawn), or nothing. */
function progress(total: number, on: boolean): (done: number) => void {
  if (!on || total === 0) return () => undefined;
  return (done) => {
    const w = 30;
    const fill = Math.round((done / total) * w);
    process.stderr.write(`\rimporting [${"#".repeat(fill)}${".".repeat(w - fill)}] ${done}/${total}${done === total ? "\n" : ""}`);
  };
}

async function tokens(rest: string[], f: Flags, out: Out): Promise<number> {
  const [path] = need(rest, 1, "tokens <file>");
  const enc = (f.encoding ?? "o200k_base") as EncodingName;
  if (enc !== "o200k_base" && enc !== "cl100k_base") throw usage(`--encoding must be o200k_base or cl100k_base, got "${enc}"`);
  const text = await readFile(path, "utf8");
  const tok = await loadTokenizer(enc);
  const n = tok.count(text);
  out(`${n} tokens (${enc}, exact) in ${path}`, { path, encoding: enc, tokens: n, exact: true, characters: text.length });
  return 0;
}

function storeOptions(f: Flags): StoreOptions {
  return { user: f.user, tenant: f.tenant, dir: f.dir, store: f.store, origin: f.origin, embed: f["no-embed"] ? false : undefined };
}

function need(rest: string[], n: number, form: string): string[] {
  if (rest.length < n) throw usage(`usage: engram ${form}`);
  return rest;
}

function int(s: string, what: string): number {
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < 0) throw usage(`${what} must be a whole number, got "${s}"`);
  return n;
}

function usage(message: string): Error {
  return Object.assign(new Error(message), { code: "USAGE" });
}

function line(r: MemoryRecord): string {
  const key = r.key ? ` [${r.key.subject} / ${r.key.attribute}]` : "";
  const flags = [r.supersededBy && "superseded", r.pendingReview && "review", r.validTo !== null && !r.supersededBy && "ended"].filter(Boolean);
  return `${r.id}  ${r.kind}${key}${flags.length ? ` (${flags.join(", ")})` : ""}  ${quote(r.text)}`;
}

/** Memory text as a quoted string: control characters escaped, so it cannot drive the terminal. */
function quote(s: string): string {
  return JSON.stringify(s);
}
