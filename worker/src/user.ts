/**
 * One Durable Object per user: the single writer of that user's memory.
 *
 * Why an object and not the front worker: requests for one user can run in many isolates at
 * once, and engram's persistence (an op log numbered per store, a replica id and its HLC
 * stream, snapshots that cover "every op up to n") assumes one writer per store. Workers
 * route every request for one object id to one instance worldwide, so here exactly one
 * `Engram` holds the user's replica id; its writes are serialized by the SDK's queue and
 * stored in the object's own SQLite (or D1, still written only from here). An answer leaves
 * the object only after its write is durable (the output gate holds it until then).
 * The engine stays cached while the object lives; nothing else writes its store, so the
 * cache never goes stale.
 *
 * Sync: after a write an alarm is set (debounced); the alarm pushes the outbox and pulls
 * the user's changes from the origin, retrying with backoff. The outbox is in storage, so
 * it survives restarts; an object that opens with a non-empty outbox sets the alarm again.
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import {
  D1Storage, Engram, WorkersAiExtractor, defaultEmbedder,
  type ChatTurn, type Embedder, type ListFilter, type MemoryInput, type OpenOptions, type StorageAdapter,
} from "engram";
import { WorkersAiEmbedder } from "./ai.js";
import type { Call, Op, UserObject } from "./api.js";
import { mint, type User } from "./auth.js";
import type { Env } from "./env.js";
import { HttpError, log, toReply, userHash, type Reply } from "./http.js";
import { DurableObjectSqlStorage } from "./storage.js";
import { configureTables } from "./tables.js";

const WRITES = new Set<Op>(["remember", "observe", "forget", "forget-user"]);
const MEMORY_FIELDS = ["text", "kind", "layer", "key", "importance", "confidence", "source", "tags", "sensitivity", "ttlMs", "observedAt", "onConflict", "replaces"] as const;
const MAX_TURNS = 64;
const MAX_BATCH = 100;
const MAX_K = 100;
const MAX_BUDGET = 128_000;
const ACTIVE_MS = 10 * 60_000;

export class UserMemory extends DurableObject<Env> implements UserObject {
  private mem: Promise<Engram> | undefined;
  private who: User | undefined;
  private readonly store: StorageAdapter;
  private readonly sqlStore: DurableObjectSqlStorage | undefined;
  private syncAttempt = 0;
  private lastActive = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    configureTables(env.ASSETS);
    if (env.ENGRAM_STORE === "d1") {
      if (!env.DB) throw new Error("ENGRAM_STORE = \"d1\" needs a D1 binding named DB");
      this.store = new D1Storage(env.DB);
    } else {
      this.sqlStore = new DurableObjectSqlStorage(ctx.storage);
      this.store = this.sqlStore;
    }
  }

  /** Serve one call; every failure becomes a JSON error reply. */
  async handle(call: Call): Promise<Reply> {
    try {
      await this.identify(call.who);
      this.lastActive = Date.now();
      const mem = await this.engram();
      const reply = await this.run(mem, call.op, call.args ?? {});
      // A write syncs soon; any request keeps an active user pulled every interval.
      await this.scheduleSync(WRITES.has(call.op) ? this.num(this.env.ENGRAM_SYNC_DEBOUNCE_MS, 250) : this.num(this.env.ENGRAM_SYNC_INTERVAL_MS, 30_000));
      return reply;
    } catch (e) {
      const reply = toReply(e);
      if (reply.status === 500) log({ requestId: call.requestId, op: call.op, where: "object", error: e instanceof Error ? e.name : "unknown", code: (e as { code?: string }).code ?? null });
      return reply;
    }
  }

  /** Background sync: push the outbox, pull the user's other changes; reschedule. */
  async alarm(): Promise<void> {
    if (!this.env.ENGRAM_ORIGIN) return;
    const who = this.who ?? (await this.ctx.storage.get<User>("identity"));
    if (!who) return;
    this.who = who;
    const started = Date.now();
    const user = await userHash(who.tenant, who.user);
    try {
      const mem = await this.engram();
      const r = await mem.sync();
      this.syncAttempt = 0;
      log({ requestId: "alarm", op: "sync", user, status: 200, ms: Date.now() - started, pushed: r.pushed, pulled: r.pulled, refused: r.refused });
      if ((await mem.pendingSync()) > 0) await this.ctx.storage.setAlarm(Date.now() + 50);
      else if (Date.now() - this.lastActive < ACTIVE_MS) await this.ctx.storage.setAlarm(Date.now() + this.num(this.env.ENGRAM_SYNC_INTERVAL_MS, 30_000));
    } catch (e) {
      this.syncAttempt++;
      const cap = Math.min(60_000, 500 * 2 ** Math.min(this.syncAttempt - 1, 16));
      const wait = Math.floor(Math.random() * cap) + 100;
      const code = (e as { code?: string }).code ?? "INTERNAL";
      log({ requestId: "alarm", op: "sync", user, status: toReply(e).status, code, attempt: this.syncAttempt, retryInMs: wait });
      await this.ctx.storage.setAlarm(Date.now() + wait);
    }
  }

  /** The object is named after its user; refuse a call for anyone else (a routing bug). */
  private async identify(who: User): Promise<void> {
    this.who ??= await this.ctx.storage.get<User>("identity");
    if (!this.who) {
      await this.ctx.storage.put("identity", who);
      this.who = who;
    } else if (this.who.tenant !== who.tenant || this.who.user !== who.user) {
      throw new HttpError(500, "INTERNAL", "request routed to another user's object");
    }
  }

  private engram(): Promise<Engram> {
    if (!this.mem) {
      const who = this.who!;
      const opts = this.options(who);
      // The embedding table (7.9 MB, parsed once per isolate) is loaded before the user's
      // snapshot is: wasm memory never shrinks, and a table parsed after the snapshot's
      // transient copy was freed landed above that hole instead of in it.
      const tables = opts.embedder && "ready" in opts.embedder ? (opts.embedder as { ready(): Promise<void> }).ready() : Promise.resolve();
      const p = tables.then(() => Engram.open(opts)).then(async (mem) => {
        if (this.env.ENGRAM_ORIGIN && (await mem.pendingSync()) > 0) await this.scheduleSync(0);
        return mem;
      });
      this.mem = p;
      p.catch(() => {
        if (this.mem === p) this.mem = undefined; // the next call tries again
      });
    }
    return this.mem;
  }

  private options(who: User): OpenOptions {
    const env = this.env;
    let embedder: Embedder | false;
    if (env.ENGRAM_EMBEDDER === "none") embedder = false;
    else if (env.ENGRAM_EMBEDDER === "workers-ai") {
      if (!env.AI) throw new HttpError(500, "INTERNAL", "ENGRAM_EMBEDDER = \"workers-ai\" needs an AI binding");
      embedder = new WorkersAiEmbedder(env.AI, env.ENGRAM_AI_EMBED_MODEL || undefined);
    } else embedder = defaultEmbedder();
    const opts: OpenOptions = {
      tenant: who.tenant,
      user: who.user,
      storage: this.store,
      embedder,
      tokenizer: { encoding: "o200k_base" },
      compactEvery: this.num(env.ENGRAM_COMPACT_EVERY, 100) || 100,
    };
    if (env.ENGRAM_EXTRACTOR_MODEL && env.AI) opts.extractor = new WorkersAiExtractor(env.AI, env.ENGRAM_EXTRACTOR_MODEL);
    if (env.ENGRAM_ORIGIN) {
      const secret = env.ENGRAM_SECRET;
      opts.sync = { url: env.ENGRAM_ORIGIN, token: () => mint(who, secret, 300), background: false, timeoutMs: 15_000 };
    }
    return opts;
  }

  private async scheduleSync(inMs: number): Promise<void> {
    if (!this.env.ENGRAM_ORIGIN) return;
    const at = Date.now() + inMs;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  private async run(mem: Engram, op: Op, a: Record<string, unknown>): Promise<Reply> {
    switch (op) {
      case "remember": {
        if (a.memories !== undefined) {
          const list = a.memories;
          if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH || Object.keys(a).length !== 1) {
            throw new HttpError(400, "INVALID_INPUT", `memories must be the only field: an array of 1–${MAX_BATCH} memories`);
          }
          const outs = await mem.rememberMany(list.map((m, i) => pick(obj(m, `memories[${i}]`))));
          return { status: 200, body: { outcomes: outs }, log: { n: outs.length, inserted: outs.filter((o) => o.action === "inserted").length } };
        }
        const input = pick(a);
        const out = await mem.remember(input);
        return { status: out.action === "inserted" ? 201 : 200, body: out, log: { action: out.action } };
      }
      case "observe": {
        const session = str(a.session, "session");
        if (!Array.isArray(a.turns) || a.turns.length === 0 || a.turns.length > MAX_TURNS) {
          throw new HttpError(400, "INVALID_INPUT", `turns must be an array of 1–${MAX_TURNS} { role, text }`);
        }
        const turns = a.turns.map((t, i): ChatTurn => {
          const o = obj(t, `turns[${i}]`);
          return { role: str(o.role, `turns[${i}].role`) as ChatTurn["role"], text: str(o.text, `turns[${i}].text`) };
        });
        const out = await mem.observe(turns, { session });
        // LLM extraction runs after the answer; keep the object alive until it has finished.
        if (this.env.ENGRAM_EXTRACTOR_MODEL && this.env.AI) this.ctx.waitUntil(mem.idle());
        return { status: 200, body: out, log: { turns: out.turns.length, remembered: out.remembered.length } };
      }
      case "recall": {
        const r = await mem.recall(str(a.query, "query"), defined({ k: int(a.k, "k", 1, MAX_K), kinds: kinds(a.kinds), force: a.force === true }));
        return { status: 200, body: r, log: { hits: r.hits.length, route: r.route } };
      }
      case "context": {
        const budget = int(a.budget, "budget", 1, MAX_BUDGET) ?? 900;
        // The budget is exact: wait for the token table rather than answer with an estimate.
        await mem.tokenizerReady();
        const session = a.session === undefined ? undefined : str(a.session, "session");
        const ctx = await mem.buildContext(str(a.query, "query"), defined({ budget, session, k: int(a.k, "k", 1, MAX_K), recentTurns: int(a.recentTurns, "recentTurns", 0, 64) }));
        return { status: 200, body: ctx, log: { tokens: ctx.tokens, budget, included: ctx.included.length, exact: ctx.exact } };
      }
      case "list": {
        const filter: ListFilter = defined({ kinds: kinds(a.kinds), includeSuperseded: a.history === true, includeExpired: a.history === true });
        const all = await mem.list(filter);
        const offset = int(a.offset, "offset", 0, Number.MAX_SAFE_INTEGER) ?? 0;
        const limit = int(a.limit, "limit", 1, 1000) ?? 100;
        const page = all.slice(offset, offset + limit);
        return { status: 200, body: { memories: page, total: all.length, next: offset + limit < all.length ? offset + limit : null }, log: { n: page.length } };
      }
      case "forget": {
        const gone = await mem.forget(str(a.id, "id"));
        if (!gone) throw new HttpError(404, "NOT_FOUND", "no memory with this id");
        return { status: 200, body: { forgotten: true } };
      }
      case "forget-user": {
        const n = await mem.forgetUser();
        return { status: 200, body: { forgotten: n }, log: { n } };
      }
      case "sync": {
        if (!this.env.ENGRAM_ORIGIN) throw new HttpError(400, "SYNC_DISABLED", "this worker has no ENGRAM_ORIGIN");
        const r = await mem.sync();
        return { status: 200, body: r, log: { pushed: r.pushed, pulled: r.pulled } };
      }
      case "status": {
        const prefix = `engram/${this.who!.tenant}/${this.who!.user}/`;
        const embedder = await this.store.get(`${prefix}meta/embedder`);
        return {
          status: 200,
          body: {
            count: mem.count(),
            pendingSync: this.env.ENGRAM_ORIGIN ? await mem.pendingSync() : 0,
            replica: mem.replicaId,
            embedder: embedder ? JSON.parse(new TextDecoder().decode(embedder)) : null,
            storedBytes: this.sqlStore?.bytes() ?? null,
            syncAlarm: await this.ctx.storage.getAlarm(),
          },
        };
      }
      default:
        throw new HttpError(404, "NOT_FOUND", "no such operation");
    }
  }

  private num(v: string | undefined, dflt: number): number {
    const n = Number(v);
    return v !== undefined && v !== "" && Number.isFinite(n) && n >= 0 ? n : dflt;
  }
}

/** The core reads an `undefined` field as a present null: leave such fields out. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new HttpError(400, "INVALID_INPUT", `${what} must be an object`);
  return v as Record<string, unknown>;
}

function str(v: unknown, what: string): string {
  if (typeof v !== "string" || v.length === 0) throw new HttpError(400, "INVALID_INPUT", `${what} must be a non-empty string`);
  return v;
}

function int(v: unknown, what: string, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new HttpError(400, "INVALID_INPUT", `${what} must be an integer in [${min}, ${max}]`);
  return v;
}

function kinds(v: unknown): ListFilter["kinds"] {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((k) => typeof k === "string")) throw new HttpError(400, "INVALID_INPUT", "kinds must be an array of strings");
  return v as ListFilter["kinds"];
}

/** The fields of a memory a client may set (not `id` or `embedding`); the core checks their values. */
function pick(a: Record<string, unknown>): MemoryInput {
  for (const k of Object.keys(a)) {
    if (!(MEMORY_FIELDS as readonly string[]).includes(k)) throw new HttpError(400, "INVALID_INPUT", `unknown field ${JSON.stringify(k).slice(0, 40)}`);
  }
  const out: Record<string, unknown> = {};
  for (const k of MEMORY_FIELDS) if (a[k] !== undefined) out[k] = a[k];
  if (typeof out.text !== "string") throw new HttpError(400, "INVALID_INPUT", "text must be a string");
  return out as unknown as MemoryInput;
}
