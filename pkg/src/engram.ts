/**
 * The `Engram` class: what users hold. It sequences storage, the embedder and the token
 * table around synchronous calls into the wasm core, and emits change events after each
 * call returns and its ops are durable.
 *
 * ```ts
 * import { Engram, MemoryStorage } from "engram";
 * const mem = await Engram.open({ user: "alice", storage: new MemoryStorage() });
 * await mem.remember({ text: "Prefers Python", key: { subject: "alice", attribute: "language" } });
 * const chat = mem.session("s1");
 * await chat.append("user", "Which language should I use?");
 * const ctx = await mem.buildContext("Which language should I use?", { session: "s1", budget: 900 });
 * ```
 * @module
 */
import { Engine, loadCore, type CoreEngine, type CoreTokenizer } from "./core.js";
import type { Embedder } from "./embed/types.js";
import { EngramError, EngramFatalError, EngramInputError, EngramIoError, fromCore } from "./errors.js";
import { Persistence, type OpenReport } from "./persist.js";
import { Session } from "./session.js";
import { MemoryStorage } from "./storage/memory.js";
import type { StorageAdapter } from "./storage/types.js";
import { loadTokenizer, type EncodingName, type TableSource } from "./tokens.js";
import type {
  ChatTurn, Context, Hit, Kind, ListFilter, MemoryInput, MemoryRecord, Recall, Role, Scope, TokenCount, WriteOutcome,
} from "./types.js";

/** Options of {@link Engram.open}. */
export interface OpenOptions {
  /** The user whose memory this is. Every call is scoped to this user. */
  user: string;
  /** The tenant (default `"default"`). */
  tenant?: string;
  /** The agent, when several agents share a user. */
  agent?: string;
  /** Where state is persisted (default: in memory). */
  storage?: StorageAdapter;
  /** Key prefix in storage (default: `engram/<tenant>/<user>/`). */
  namespace?: string;
  /** Turns texts into vectors; without one, recall uses words and keys only. */
  embedder?: Embedder;
  /** Exact token counting: the encoding and where its table comes from, or `false` for estimates only. */
  tokenizer?: { encoding?: EncodingName; table?: TableSource } | false;
  /** Core configuration overrides (see the core's `Config`). */
  config?: Record<string, unknown>;
  /** Write a snapshot every this many op batches (default 100). */
  compactEvery?: number;
  /** Embed chat turns so they are recalled by meaning too (default true when an embedder is set). */
  embedTurns?: boolean;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** Options of {@link Engram.recall}. */
export interface RecallOptions {
  k?: number;
  kinds?: Kind[];
  /** Retrieve even when the router classifies the query as small talk. */
  force?: boolean;
}

/** Options of {@link Engram.buildContext}. */
export interface ContextOptions {
  /** Exact token budget of the returned text (default 900). */
  budget?: number;
  /** Include this session's recent turns and summary. */
  session?: string;
  k?: number;
  recentTurns?: number;
}

/** A change, emitted after the core call returned and its ops were persisted. */
export interface ChangeEvent {
  type: "remember" | "turn" | "forget" | "forget-user" | "import" | "session";
  ids: string[];
}

type Listener = (e: ChangeEvent) => void;

const MAX_TEXT = 32 * 1024;

/** A user's memory. Create with {@link Engram.open}. */
export class Engram {
  private engine!: CoreEngine;
  private tokenizer: CoreTokenizer | undefined;
  private tokenizerLoad: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<Listener>();
  private closed = false;
  /** What opening found in storage (snapshot generation used, batches replayed, corrupt keys). */
  openReport!: OpenReport;

  private constructor(
    private readonly opts: OpenOptions,
    private readonly scope: Scope,
    private readonly persistence: Persistence,
    private readonly replica: number,
  ) {}

  /** Open (or create) the memory of `opts.user`. */
  static async open(opts: OpenOptions): Promise<Engram> {
    if (!opts || typeof opts.user !== "string" || opts.user.length === 0) {
      throw new EngramInputError("INVALID_INPUT", "open({ user }) needs a non-empty user id");
    }
    await loadCore();
    const tenant = opts.tenant ?? "default";
    const scope: Scope = { tenant, user: opts.user, agent: opts.agent ?? null, session: null };
    const storage = opts.storage ?? new MemoryStorage();
    const prefix = opts.namespace ?? `engram/${tenant}/${opts.user}/`;
    const persistence = new Persistence(storage, prefix, opts.compactEvery ?? 100);
    const replica = await persistence.replica();
    const e = new Engram(opts, scope, persistence, replica);
    await e.load();
    if (opts.tokenizer !== false) {
      const t = opts.tokenizer ?? {};
      e.tokenizerLoad = loadTokenizer(t.encoding ?? "o200k_base", t.table).then(
        (tok) => {
          e.tokenizer = tok;
          e.engine.setTokenizer(tok);
        },
        () => undefined, // stays on estimates; `tokenizerReady()` reports the failure
      );
    }
    return e;
  }

  private async load(): Promise<void> {
    // The store remembers which embedder made its vectors; another one is refused before
    // anything is replayed, with both names in the message.
    const emb = this.opts.embedder;
    const stored = await this.persistence.getMeta<{ id: string; dim: number }>("embedder");
    if (emb && stored && (stored.id !== emb.id || stored.dim !== emb.dimension)) {
      throw new EngramInputError(
        "INVALID_INPUT",
        `this store holds ${stored.dim}-d vectors from embedder "${stored.id}"; open another namespace for "${emb.id}" (${emb.dimension}-d)`,
      );
    }
    if (emb && !stored) await this.persistence.putMeta("embedder", { id: emb.id, dim: emb.dimension });
    const declared = stored ?? (emb ? { id: emb.id, dim: emb.dimension } : undefined);
    const fresh = () => {
      const e = new Engine(this.opts.config, this.replica);
      if (declared) e.setEmbedder(declared.id, declared.dim);
      return e;
    };
    try {
      const { engine, report } = await this.persistence.open(fresh);
      this.engine = engine;
      this.openReport = report;
    } catch (e) {
      throw fromCore(e);
    }
    if (this.tokenizer) this.engine.setTokenizer(this.tokenizer);
  }

  /** Resolves when the exact token table is loaded; rejects if it cannot be. */
  async tokenizerReady(): Promise<void> {
    await this.tokenizerLoad;
    if (!this.tokenizer) {
      const t = this.opts.tokenizer === false ? undefined : this.opts.tokenizer;
      await loadTokenizer(t?.encoding ?? "o200k_base", t?.table); // rethrows the load error
    }
  }

  /** Count tokens: exact once the table is loaded, an estimate before (and says which). */
  countTokens(text: string): TokenCount {
    return this.sync(() => this.engine.countTokens(text) as TokenCount);
  }

  /** Subscribe to change events; returns the unsubscribe function. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Remember a memory (a string is a user-stated fact). */
  async remember(input: string | MemoryInput): Promise<WriteOutcome> {
    const m: MemoryInput = typeof input === "string" ? { text: input } : input;
    checkText(m?.text, "text");
    return this.mutate("remember", async () => {
      // Embed the text as it will be stored (PII redacted), never the raw one.
      const scrubbed = this.engine.scrub(m.text, m.sensitivity) as { text: string | null; dropped: boolean };
      const vector = m.embedding ?? (scrubbed.dropped || scrubbed.text === null ? undefined : await this.embedOne(scrubbed.text));
      const { embedding: _e, ...plain } = m;
      const out = this.engine.remember(this.scope, plain, vector, this.now()) as WriteOutcome;
      return { value: out, ids: [out.id, ...out.superseded] };
    });
  }

  /** Remember several memories, embedding them in one batch. */
  async rememberMany(inputs: (string | MemoryInput)[]): Promise<WriteOutcome[]> {
    const ms = inputs.map((i) => (typeof i === "string" ? { text: i } : i));
    ms.forEach((m) => checkText(m?.text, "text"));
    return this.mutate("remember", async () => {
      const stored = ms.map((m) => (this.engine.scrub(m.text, m.sensitivity) as { text: string | null }).text ?? "");
      const vectors = this.opts.embedder ? await this.embedMany(stored) : [];
      const now = this.now();
      const outs = ms.map((m, i) => {
        const { embedding, ...plain } = m;
        return this.engine.remember(this.scope, plain, embedding ?? vectors[i], now) as WriteOutcome;
      });
      return { value: outs, ids: outs.map((o) => o.id) };
    });
  }

  /**
   * Record a conversation's turns in `session` and remember what is worth remembering
   * from the user's turns (identity, preferences, decisions, corrections, task progress;
   * rule-based, English and Chinese) through the normal write path. Returns the turn ids
   * and the write outcomes of the extracted facts.
   */
  async observe(turns: ChatTurn[], opts: { session: string }): Promise<{ turns: string[]; remembered: WriteOutcome[] }> {
    if (!Array.isArray(turns)) throw new EngramInputError("INVALID_INPUT", "observe(turns) needs an array of { role, text }");
    const ids: string[] = [];
    const facts: MemoryInput[] = [];
    for (const t of turns) {
      ids.push(await this._appendTurn(opts.session, t.role, t.text));
      if (t.role === "user") {
        const found = this.sync(() => this.engine.extract(t.text) as (MemoryInput & { key: MemoryInput["key"] | null })[]);
        for (const f of found) facts.push({ ...f, key: f.key ?? undefined, source: "rule-extracted" });
      }
    }
    const remembered = facts.length ? await this.rememberMany(facts) : [];
    return { turns: ids, remembered };
  }

  /** Recall memories relevant to `query`. Small talk returns no hits (route `"small-talk"`). */
  async recall(query: string, opts: RecallOptions = {}): Promise<Recall> {
    checkText(query, "query", true);
    const vector = await this.embedQuery(query);
    return this.sync(() => this.engine.recall(this.scope, { text: query, ...opts }, vector, this.now()) as Recall);
  }

  /** The prompt context for `query` under an exact token budget, memories framed as untrusted data. */
  async buildContext(query: string, opts: ContextOptions = {}): Promise<Context> {
    checkText(query, "query", true);
    const vector = await this.embedQuery(query);
    const scope = opts.session ? { ...this.scope, session: opts.session } : this.scope;
    const req = { query, budget: opts.budget ?? 900, k: opts.k ?? 8, recentTurns: opts.recentTurns ?? null };
    return this.sync(() => this.engine.buildContext(scope, req, vector, this.now()) as Context);
  }

  /** Working memory of one session. */
  session(id: string): Session {
    if (typeof id !== "string" || id.length === 0) throw new EngramInputError("INVALID_INPUT", "session id must be a non-empty string");
    return new Session(this, id);
  }

  /** Everything remembered about this user (transparency), oldest first. */
  async list(filter: ListFilter = {}): Promise<MemoryRecord[]> {
    return this.sync(() => this.engine.list(this.scope, filter, this.now()) as MemoryRecord[]);
  }

  /** How many records are stored for this user. */
  count(): number {
    return this.sync(() => this.engine.count(this.scope));
  }

  /** Delete one memory; false when it did not exist. */
  async forget(id: string): Promise<boolean> {
    return this.mutate("forget", async () => ({ value: this.engine.forget(this.scope, id, this.now()) as boolean, ids: [id] }));
  }

  /** Forget everything about this user, here and (through sync) everywhere. */
  async forgetUser(): Promise<number> {
    return this.mutate("forget-user", async () => ({ value: this.engine.forgetUser(this.scope, this.now()), ids: [] }));
  }

  /** The engine's state as bytes (versioned, checksummed). */
  exportSnapshot(): Uint8Array {
    return this.sync(() => this.engine.snapshot());
  }

  /** Replace the state with a snapshot; persisted as a new snapshot generation. */
  async importSnapshot(bytes: Uint8Array): Promise<void> {
    if (!(bytes instanceof Uint8Array)) throw new EngramInputError("INVALID_INPUT", "importSnapshot needs a Uint8Array");
    await this.mutate("import", async () => {
      const next = this.sync(() => Engine.fromSnapshot(bytes));
      this.engine.free();
      this.engine = next;
      if (this.tokenizer) this.engine.setTokenizer(this.tokenizer);
      await this.persistence.compact(this.engine);
      return { value: undefined, ids: [] };
    });
  }

  /** Write a snapshot now (otherwise one is written every `compactEvery` op batches). */
  async compact(): Promise<void> {
    await this.mutate("session", async () => {
      await this.persistence.compact(this.engine);
      return { value: undefined, ids: [] };
    });
  }

  /** Release the wasm memory of this instance. */
  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    if (!this.closed) this.engine.free();
    this.closed = true;
  }

  /** @internal */ async _appendTurn(session: string, role: Role, text: string): Promise<string> {
    checkText(text, "text");
    return this.mutate("turn", async () => {
      const embed = this.opts.embedTurns ?? true;
      const vector = embed ? await this.embedOne(this.engine.scrubTurn(text)) : undefined;
      const id = this.engine.appendTurn({ ...this.scope, session }, role, text, vector, this.now()) as string;
      return { value: id, ids: [id] };
    });
  }
  /** @internal */ async _recentTurns(session: string, n?: number): Promise<MemoryRecord[]> {
    return this.sync(() => this.engine.recentTurns({ ...this.scope, session }, n) as MemoryRecord[]);
  }
  /** @internal */ async _sessionSet(session: string, key: string, value: string): Promise<void> {
    await this.mutate("session", async () => {
      this.engine.sessionSet({ ...this.scope, session }, key, value, this.now());
      return { value: undefined, ids: [] };
    });
  }
  /** @internal */ async _sessionState(session: string): Promise<Record<string, string>> {
    return this.sync(() => this.engine.sessionState({ ...this.scope, session }, this.now()) as Record<string, string>);
  }
  /** @internal */ async _setSummary(session: string, text: string): Promise<void> {
    checkText(text, "summary");
    await this.mutate("session", async () => {
      this.engine.setSummary({ ...this.scope, session }, text, this.now());
      return { value: undefined, ids: [] };
    });
  }
  /** @internal For the SDK's own tests: make the wasm core trap inside a call. */
  async _trapForTests(): Promise<void> {
    await this.mutate("session", async () => {
      (this.engine as unknown as { trapForTests(): void }).trapForTests();
      return { value: undefined, ids: [] };
    });
  }

  private now(): number {
    return Math.floor((this.opts.now ?? Date.now)());
  }

  /** Run a read against the core, mapping errors (and recovering from a trap). */
  private sync<T>(f: () => T): T {
    this.assertOpen();
    try {
      return f();
    } catch (e) {
      throw this.handle(e);
    }
  }

  /** Serialize a write: core call, then persist its ops, then emit. */
  private mutate<T>(type: ChangeEvent["type"], f: () => Promise<{ value: T; ids: string[] }>): Promise<T> {
    this.assertOpen();
    const run = async () => {
      let result: { value: T; ids: string[] };
      try {
        result = await f();
      } catch (e) {
        const err = this.handle(e);
        if (err instanceof EngramFatalError) await this.recover();
        throw err;
      }
      await this.persistence.flush(this.engine);
      const event: ChangeEvent = { type, ids: result.ids };
      for (const l of this.listeners) {
        try {
          l(event);
        } catch {
          // a listener's error is its own
        }
      }
      return result.value;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private handle(e: unknown): EngramError {
    const err = fromCore(e);
    if (err instanceof EngramFatalError) {
      // The trapped handle may hold a stuck borrow: never touch it again.
      this.engine = undefined as unknown as CoreEngine;
    }
    return err;
  }

  /** After a trap: rebuild the engine from storage (the failed call never happened). */
  private async recover(): Promise<void> {
    await this.load();
  }

  private assertOpen(): void {
    if (this.closed) throw new EngramInputError("CLOSED", "this Engram instance is closed");
  }

  private async embedOne(text: string): Promise<Float32Array | undefined> {
    if (!this.opts.embedder) return undefined;
    return (await this.embedMany([text]))[0];
  }

  private async embedQuery(query: string): Promise<Float32Array | undefined> {
    if (!this.opts.embedder || query.trim().length === 0) return undefined;
    return this.embedOne(query);
  }

  private async embedMany(texts: string[]): Promise<Float32Array[]> {
    const emb = this.opts.embedder;
    if (!emb) return [];
    let out: Float32Array[];
    try {
      out = await emb.embed(texts);
    } catch (e) {
      throw e instanceof EngramError ? e : new EngramIoError("EMBEDDER", `embedder ${emb.id} failed: ${String(e)}`, { cause: e });
    }
    if (out.length !== texts.length) throw new EngramIoError("EMBEDDER", `embedder ${emb.id} returned ${out.length} vectors for ${texts.length} texts`);
    return out;
  }
}

function checkText(v: unknown, what: string, allowEmpty = false): asserts v is string {
  if (typeof v !== "string") throw new EngramInputError("INVALID_INPUT", `${what} must be a string, got ${v === null ? "null" : typeof v}`);
  if (!allowEmpty && v.trim().length === 0) throw new EngramInputError("INVALID_INPUT", `${what} must not be empty`);
  if (v.length > MAX_TEXT * 4) throw new EngramInputError("TEXT_TOO_LARGE", `${what} is ${v.length} characters; the limit is ${MAX_TEXT} bytes`);
}

export type { Hit };
