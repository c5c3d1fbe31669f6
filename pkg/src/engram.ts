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
import { defaultEmbedder } from "./embed/static.js";
import { Vectors } from "./embed/vectors.js";
import type { Extractor } from "./extract/llm.js";
import { Learner, type LearnerHooks, type LearnReport } from "./learn.js";
import { EngramError, EngramFatalError, EngramInputError, EngramIoError, fromCore } from "./errors.js";
import type { ChangeEvent, ContextOptions, ErrorEvent, OpenOptions, RecallOptions } from "./options.js";
import { Persistence, engineFromSnapshot, type OpenReport } from "./persist.js";
import { Session } from "./session.js";
import { SyncClient, type SyncErrorEvent, type SyncEvent, type SyncReport } from "./sync/client.js";
import { fromOrigin, opaqueContext, toOrigin } from "./sync/opaque.js";
import { importEncryptionKey } from "./encryption.js";
import { encryptedStore } from "./storage/encrypted.js";
import { MemoryStorage } from "./storage/memory.js";
import type { StorageAdapter, StorageLock } from "./storage/types.js";
import { loadTokenizer } from "./tokens.js";
import type {
  ChatTurn, Context, EntityRef, GraphAnswer, GraphQuery, Hit, ListFilter, MemoryInput, MemoryRecord, Recall, Resolution, Role,
  Scope, TokenCount, WriteOutcome,
} from "./types.js";

type AnyEvent = ChangeEvent | ErrorEvent | SyncEvent | SyncErrorEvent;
type Listener = (e: AnyEvent) => void;


const MAX_TEXT = 32 * 1024;

/** A user's memory. Create with {@link Engram.open}. */
export class Engram {
  private engine!: CoreEngine;
  private tokenizer: CoreTokenizer | undefined;
  private tokenizerLoad: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<Listener>();
  private closed = false;
  private readonly learner: Learner;
  private readonly vectors: Vectors;
  private syncClient: SyncClient | undefined;
  /** The store's lock (one writer per namespace): taken by the first write, released by `close()`. */
  private storeLock: StorageLock | undefined;
  private lockTarget: { storage: StorageAdapter; name: string } | undefined;
  /** `opts.encryption`'s key: storage is encrypted with it, and synced text (see `sync/opaque.ts`). */
  private encryptionKey: CryptoKey | undefined;
  /** What opening found in storage (snapshot generation used, batches replayed, corrupt keys). */
  openReport!: OpenReport;

  /**
   * This open instance's replica id (below 2^48): random, new on every open and never
   * stored, so two instances — two processes, a copied store directory, this store before
   * and after a restart — never share an HLC stream or hand out the same record id.
   */
  get replicaId(): number {
    return this.replica;
  }

  private constructor(
    private readonly opts: OpenOptions,
    private readonly scope: Scope,
    private readonly persistence: Persistence,
    private readonly replica: number,
  ) {
    this.learner = new Learner(this.hooks());
    this.vectors = new Vectors(opts.embedder === undefined ? defaultEmbedder() : opts.embedder || undefined);
  }

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
    // Encryption at rest: a wrong or missing key is refused here, before anything is read or locked.
    const key = opts.encryption === undefined ? undefined : await importEncryptionKey(opts.encryption);
    const persistence = new Persistence(await encryptedStore(storage, prefix, key), prefix, opts.compactEvery ?? 100);
    persistence.outbox = opts.sync !== undefined;
    const replica = await persistence.replica();
    const e = new Engram(opts, scope, persistence, replica);
    e.encryptionKey = key;
    // One writer per store where there are no Web Locks: see `writerLock`.
    if (!(globalThis as { navigator?: { locks?: unknown } }).navigator?.locks && storage.lock) e.lockTarget = { storage, name: prefix };
    if (opts.sync) e.syncClient = new SyncClient(opts.sync, e.syncHooks());
    await e.exclusive(async () => {
      // The first open with sync queues the store's whole state (a write: under the lock).
      const seed = opts.sync !== undefined && (await persistence.needsSeed()) && (await e.mayWrite());
      try {
        await e.load();
        if (seed) await e.seedSync();
      } catch (err) {
        await e.storeLock?.release();
        e.storeLock = undefined;
        throw err;
      }
    });
    e.listenToOtherTabs(prefix);
    e.syncClient?.start();
    if (opts.tokenizer !== false) {
      const t = opts.tokenizer ?? {};
      e.tokenizerLoad = loadTokenizer(t.encoding ?? "o200k_base", t.table).then(
        (tok) => e.useTokenizer(tok),
        () => undefined, // stays on estimates; `tokenizerReady()` reports the failure
      );
    }
    return e;
  }

  private async load(): Promise<void> {
    // The store remembers which embedder made its vectors; another one is refused before
    // anything is replayed, with both names in the message.
    const emb = this.vectors.embedder;
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
      // A snapshot carries the settings it was saved with; this open's settings win.
      if (report.snapshot !== "none") {
        try {
          engine.setConfig(this.opts.config);
        } catch (e) {
          engine.free();
          throw e;
        }
      }
      this.engine = engine;
      this.openReport = report;
    } catch (e) {
      throw fromCore(e);
    }
    if (this.tokenizer) this.engine.setTokenizer(this.tokenizer);
    if (this.opts.redactionKey) this.call(() => this.engine.setRedactionKey(this.opts.redactionKey));
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
    return this.call(() => this.engine.countTokens(text) as TokenCount);
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
      const [out] = await this.writeMany([m]);
      return { value: out, ids: [out.id, ...out.superseded] };
    });
  }

  /** Remember several memories, embedding them in one batch. */
  async rememberMany(inputs: (string | MemoryInput)[]): Promise<WriteOutcome[]> {
    const ms = inputs.map((i) => (typeof i === "string" ? { text: i } : i));
    ms.forEach((m) => checkText(m?.text, "text"));
    return this.mutate("remember", async () => {
      const outs = await this.writeMany(ms);
      return { value: outs, ids: outs.flatMap((o) => [o.id, ...o.superseded]) };
    });
  }

  /**
   * Record a conversation's turns in `session` and remember what is worth remembering
   * from the user's turns (identity, preferences, decisions, corrections, task progress;
   * rule-based, English and Chinese) through the normal write path; facts that state a
   * relation join the graph. With an `extractor`, the turns are also sent to it in the
   * background (see {@link Engram.idle}); this call never waits for it.
   */
  async observe(turns: ChatTurn[], opts: { session: string }): Promise<{ turns: string[]; remembered: WriteOutcome[] }> {
    if (!Array.isArray(turns)) throw new EngramInputError("INVALID_INPUT", "observe(turns) needs an array of { role, text }");
    if (typeof opts?.session !== "string" || opts.session.length === 0) {
      throw new EngramInputError("INVALID_INPUT", "observe(turns, { session }) needs a non-empty session id");
    }
    // Every turn is checked before any is written, and the turns go in as one write (which
    // is undone if the core refuses a later turn), so a bad batch writes nothing.
    const batch = turns.map((t: unknown, i): { role: Role; text: string } => {
      if (t === null || typeof t !== "object") throw new EngramInputError("INVALID_INPUT", `observe: turn ${i} must be a { role, text } object`);
      const { role, text } = t as { role: unknown; text: unknown };
      if (typeof role !== "string") throw new EngramInputError("INVALID_INPUT", `observe: turn ${i}: role must be a string, got ${role === null ? "null" : typeof role}`);
      checkText(text, `turn ${i} text`);
      return { role: role as Role, text };
    });
    await this.ready();
    const facts: (MemoryInput & { link?: unknown })[] = [];
    for (const t of batch) {
      if (t.role !== "user") continue;
      const found = this.call(() => this.engine.extract(t.text) as (MemoryInput & { key: MemoryInput["key"] | null; link: unknown })[]);
      for (const f of found) facts.push({ ...f, key: f.key ?? undefined, source: "rule-extracted" });
    }
    const ids = await this.appendTurns(opts.session, batch);
    const remembered = !facts.length
      ? []
      : await this.mutate("remember", async () => {
          const outs = await this.writeMany(facts);
          const now = this.now();
          outs.forEach((o, i) => this.engine.linkExtracted(this.scope, facts[i].link ?? null, o, now));
          return { value: outs, ids: outs.flatMap((o) => [o.id, ...o.superseded]) };
        });
    if (this.opts.extractor) this.learner.later(this.opts.extractor, turns);
    return { turns: ids, remembered };
  }

  /**
   * Ask `extractor` (default: the one given to `open`) what to remember from `turns`, and
   * apply its operations through the write path. The answer is validated first; if any
   * operation is invalid or names a memory it was not shown, nothing is written and this
   * rejects with `EXTRACTION_REJECTED`.
   */
  async learn(turns: ChatTurn[], extractor?: Extractor): Promise<LearnReport> {
    const x = extractor ?? this.opts.extractor;
    if (!x) throw new EngramInputError("INVALID_INPUT", "learn() needs an extractor (pass one, or give `extractor` to open)");
    return this.learner.run(x, turns);
  }

  /** Resolves when background work (LLM extraction started by `observe`, a rebuild after a trap) has finished. */
  async idle(): Promise<void> {
    await this.learner.idle();
    await this.rebuilding?.catch(() => undefined);
  }

  /** Settle a value flagged for review (`list({ pendingReview: true })`). */
  async resolveReview(id: string, decision: Exclude<Resolution, "flag">): Promise<WriteOutcome> {
    return this.mutate("review", async () => {
      const out = this.engine.resolveReview(this.scope, id, decision, this.now()) as WriteOutcome;
      return { value: out, ids: [id, ...out.superseded] };
    });
  }

  /** A memory's text with its sealed PII opened by the user's 32-byte `key`. */
  reveal(id: string, key: Uint8Array): string {
    return this.call(() => this.engine.reveal(this.scope, id, key));
  }

  /** Add (or with `{ present: false }` remove) the relation `from —rel→ to` in this user's graph. */
  async relate(from: EntityRef, rel: string, to: EntityRef, opts: { present?: boolean; record?: string } = {}): Promise<void> {
    await this.mutate("graph", async () => {
      this.engine.relate(this.scope, { from, rel, to, present: opts.present ?? true, record: opts.record ?? null }, this.now());
      return { value: undefined, ids: [] };
    });
  }

  /** Set an attribute of an entity (e.g. a task's `status`). */
  async setEntityAttribute(entity: EntityRef, attribute: string, value: string): Promise<void> {
    await this.mutate("graph", async () => {
      this.engine.setEntityAttribute(this.scope, entity, attribute, value, this.now());
      return { value: undefined, ids: [] };
    });
  }

  /** Answer a named graph template. */
  graph(query: GraphQuery): GraphAnswer {
    return this.call(() => this.engine.graphQuery(this.scope, query) as GraphAnswer);
  }

  /** Recall memories relevant to `query`. Small talk returns no hits (route `"small-talk"`). */
  async recall(query: string, opts: RecallOptions = {}): Promise<Recall> {
    checkText(query, "query", true);
    const vector = await this.vectors.query(query);
    await this.ready();
    return this.call(() => this.engine.recall(this.scope, { text: query, ...opts }, vector, this.now()) as Recall);
  }

  /** The prompt context for `query` under an exact token budget, memories framed as untrusted data. */
  async buildContext(query: string, opts: ContextOptions = {}): Promise<Context> {
    checkText(query, "query", true);
    const vector = await this.vectors.query(query);
    const scope = opts.session ? { ...this.scope, session: opts.session } : this.scope;
    const req = { query, budget: opts.budget ?? 900, k: opts.k ?? 8, recentTurns: opts.recentTurns ?? null };
    await this.ready();
    return this.call(() => this.engine.buildContext(scope, req, vector, this.now()) as Context);
  }

  /** Working memory of one session. */
  session(id: string): Session {
    if (typeof id !== "string" || id.length === 0) throw new EngramInputError("INVALID_INPUT", "session id must be a non-empty string");
    return new Session(this, id);
  }

  /** Everything remembered about this user (transparency), oldest first. */
  async list(filter: ListFilter = {}): Promise<MemoryRecord[]> {
    await this.ready();
    return this.call(() => this.engine.list(this.scope, filter, this.now()) as MemoryRecord[]);
  }

  /** How many records are stored for this user. */
  count(): number {
    return this.call(() => this.engine.count(this.scope));
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
    return this.call(() => this.engine.snapshot());
  }

  /** Replace the state with a snapshot; persisted as a new snapshot generation. */
  async importSnapshot(bytes: Uint8Array): Promise<void> {
    if (!(bytes instanceof Uint8Array)) throw new EngramInputError("INVALID_INPUT", "importSnapshot needs a Uint8Array");
    await this.mutate("import", async () => {
      const next = this.call(() => engineFromSnapshot(bytes, this.replica));
      try {
        this.call(() => next.setConfig(this.opts.config));
      } catch (e) {
        next.free();
        throw e;
      }
      this.engine.free();
      this.engine = next;
      if (this.tokenizer) this.engine.setTokenizer(this.tokenizer);
      if (this.opts.redactionKey) this.engine.setRedactionKey(this.opts.redactionKey);
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

  /**
   * Sync with the origin now: push every local change it has not accepted, pull and apply
   * the user's changes from elsewhere. Rejects with an `EngramIoError` (`SYNC_NETWORK`,
   * `SYNC_UNAVAILABLE`, `SYNC_UNAUTHORIZED`, …); nothing is lost on failure — run it again.
   */
  async sync(): Promise<SyncReport> {
    this.assertOpen();
    if (!this.syncClient) throw new EngramInputError("INVALID_INPUT", "open({ sync: { url, token } }) to sync");
    return this.syncClient.sync();
  }

  /** Local change batches not yet accepted by the origin. */
  async pendingSync(): Promise<number> {
    return (await this.persistence.pendingOutbox(Number.MAX_SAFE_INTEGER)).length;
  }

  /**
   * Load what other instances on the same storage (other tabs of this user) wrote since
   * this one last looked; true when there was something. Runs by itself before every write
   * and when another tab announces one (emitting a `pull` change event).
   */
  async refresh(): Promise<boolean> {
    let reloaded = false;
    await this.mutate("pull", async () => {
      reloaded = this.reloadedBeforeWrite;
      return { value: undefined, ids: [] };
    });
    return reloaded;
  }

  /** Release the wasm memory of this instance. */
  async close(): Promise<void> {
    this.channel?.close();
    this.channel = undefined;
    await this.syncClient?.stop();
    await this.learner.idle();
    await this.queue.catch(() => undefined);
    if (!this.closed) this.freeEngine();
    this.closed = true;
    await this.storeLock?.release();
    this.storeLock = undefined;
  }

  /** Free the handle; one a failed call left borrowed cannot be freed, and is dropped instead. */
  private freeEngine(): void {
    const engine = this.engine;
    this.engine = undefined as unknown as CoreEngine;
    try {
      engine?.free();
    } catch {
      // wasm-bindgen refuses to free a borrowed handle; its memory stays with the module
    }
  }

  /** Give a loaded token table to the engine (a rebuilt one takes it from `this.tokenizer`). */
  private useTokenizer(tok: CoreTokenizer): void {
    this.tokenizer = tok;
    // The instance may have been closed (its handle freed), or be rebuilding after a trap.
    if (this.closed || !this.engine) return;
    try {
      this.engine.setTokenizer(tok);
    } catch (e) {
      // Never thrown into the loader's promise (nobody awaits it): a broken handle is
      // dropped and rebuilt with the table; anything else leaves counts as estimates.
      if (this.handle(e) instanceof EngramFatalError) this.rebuild().catch(() => undefined);
    }
  }

  /** @internal */ async _appendTurn(session: string, role: Role, text: string): Promise<string> {
    checkText(text, "text");
    const [id] = await this.appendTurns(session, [{ role, text }]);
    return id;
  }

  /** Append turns as one write: all of them or none (see `undo`). The texts are embedded first. */
  private appendTurns(session: string, turns: { role: Role; text: string }[]): Promise<string[]> {
    return this.mutate("turn", async () => {
      const scope = { ...this.scope, session };
      const embed = this.opts.embedTurns ?? true;
      const vectors = embed ? await this.vectors.many(turns.map((t) => this.engine.scrubTurn(t.text))) : [];
      const ids = turns.map((t, i) => this.engine.appendTurn(scope, t.role, t.text, vectors[i], this.now()) as string);
      return { value: ids, ids };
    });
  }
  /** @internal */ async _recentTurns(session: string, n?: number): Promise<MemoryRecord[]> {
    // The binding takes a u32 and its glue converts with `n >>> 0` (-1 would become 2^32 - 1,
    // 1.5 would become 1), so the value is checked here, before it is converted.
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) {
      throw new EngramInputError("INVALID_INPUT", `recent(n): n must be a non-negative integer, got ${typeof n === "number" ? n : typeof n}`);
    }
    await this.ready();
    // Any n past u32 means every turn.
    const max = n === undefined ? undefined : Math.min(n, 0xffff_ffff);
    return this.call(() => this.engine.recentTurns({ ...this.scope, session }, max) as MemoryRecord[]);
  }
  /** @internal */ async _sessionSet(session: string, key: string, value: string): Promise<void> {
    await this.mutate("session", async () => {
      this.engine.sessionSet({ ...this.scope, session }, key, value, this.now());
      return { value: undefined, ids: [] };
    });
  }
  /** @internal */ async _sessionState(session: string): Promise<Record<string, string>> {
    await this.ready();
    return this.call(() => this.engine.sessionState({ ...this.scope, session }, this.now()) as Record<string, string>);
  }
  /** @internal */ async _setSummary(session: string, text: string): Promise<void> {
    checkText(text, "summary");
    await this.mutate("session", async () => {
      this.engine.setSummary({ ...this.scope, session }, text, this.now());
      return { value: undefined, ids: [] };
    });
  }
  /** @internal For the SDK's own tests: make the wasm core trap inside a read (`call`). */
  _trapInReadForTests(): void {
    this.call(() => (this.engine as unknown as { trapForTests(): void }).trapForTests());
  }
  /** @internal For the SDK's own tests: make the wasm core trap inside a call. */
  async _trapForTests(): Promise<void> {
    await this.mutate("session", async () => {
      (this.engine as unknown as { trapForTests(): void }).trapForTests();
      return { value: undefined, ids: [] };
    });
  }

  /**
   * Scrub, embed and remember, inside `mutate`. What is embedded is the text as it will be
   * stored (PII redacted), never the raw one; nothing is embedded for a dropped input.
   */
  private async writeMany(ms: MemoryInput[]): Promise<WriteOutcome[]> {
    const stored = ms.map((m) => (this.engine.scrub(m.text, m.sensitivity) as { text: string | null }).text);
    const wanted = stored.flatMap((t, i) => (t !== null && !ms[i].embedding ? [i] : []));
    const vs = await this.vectors.many(wanted.map((i) => stored[i] as string));
    const vectors = new Map(wanted.map((i, j) => [i, vs[j]]));
    const now = this.now();
    return ms.map((m, i) => {
      const { embedding, link: _l, ...plain } = m as MemoryInput & { link?: unknown };
      return this.engine.remember(this.scope, plain, embedding ?? vectors.get(i), now) as WriteOutcome;
    });
  }

  /** What the learner may do: read current memories, and write a validated batch atomically. */
  private hooks() {
    return {
      shown: () => this.call(() => this.engine.list(this.scope, {}, this.now()) as MemoryRecord[]),
      apply: (type: "learn", f: Parameters<LearnerHooks["apply"]>[1]) =>
        this.mutate(type, () => f(this.engine, this.scope, (ms) => this.writeMany(ms), this.now())),
      emit: (e: ErrorEvent) => this.emit(e),
    };
  }

  /** What the sync client may do: read the outbox and cursor, apply received batches. */
  private syncHooks() {
    const key = () => this.encryptionKey;
    const aad = opaqueContext(this.scope.tenant, this.scope.user);
    return {
      replica: this.replica,
      outbox: async (max: number) => {
        await this.ensureLock(); // a sync writes (the outbox, the cursor, what it pulls): one writer
        const batches = await this.persistence.pendingOutbox(max);
        const k = key();
        // Encrypted: the outbox keeps batches as written; what leaves has opaque texts.
        return k ? Promise.all(batches.map(async (b) => ({ ...b, bytes: await toOrigin(b.bytes, k, aad) }))) : batches;
      },
      accepted: (seqs: number[]) => this.persistence.dropOutbox(seqs),
      cursor: async () => (await this.persistence.getMeta<{ cursor: number }>("sync"))?.cursor ?? 0,
      setCursor: (cursor: number) => this.persistence.putMeta("sync", { cursor }),
      apply: async (pulled: Uint8Array[]) => {
        // Opaque texts decrypted first: a batch that needs another key fails the pull whole.
        const batches: Uint8Array[] = [];
        for (const b of pulled) batches.push(await fromOrigin(b, key(), aad));
        return this.mutate("pull", async () => {
          let n = 0;
          for (const b of batches) {
            n += this.engine.applyOps(b);
            await this.persistence.append(this.engine, b);
          }
          return { value: n, ids: [] };
        });
      },
      emit: (e: SyncEvent | SyncErrorEvent) => this.emit(e),
    };
  }

  private emit(event: AnyEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // a listener's error is its own
      }
    }
  }

  private now(): number {
    return Math.floor((this.opts.now ?? Date.now)());
  }

  /**
   * Run a read against the core, mapping errors. After a trap the handle is gone: the
   * rebuild from storage is queued behind the writes in flight, and a read before it
   * finishes is refused (async reads await it first).
   */
  private call<T>(f: () => T): T {
    this.assertOpen();
    if (!this.engine) {
      void this.rebuild().catch(() => undefined);
      throw new EngramFatalError("WASM_TRAP", "the wasm core trapped and is being rebuilt from storage; await mem.idle() and retry");
    }
    try {
      return f();
    } catch (e) {
      const err = this.handle(e);
      if (err instanceof EngramFatalError) void this.rebuild().catch(() => undefined);
      throw err;
    }
  }

  /** Before an async read: wait for a rebuild after a trap, starting one if none is running. */
  private async ready(): Promise<void> {
    this.assertOpen();
    if (!this.engine) await this.rebuild();
  }

  private rebuilding: Promise<void> | undefined;

  /** Rebuild the engine from storage through the write queue; one rebuild at a time. */
  private rebuild(): Promise<void> {
    if (!this.rebuilding) {
      const run = () => this.exclusive(() => this.recover());
      const p = this.queue.then(run, run).finally(() => (this.rebuilding = undefined));
      this.queue = p.catch(() => undefined);
      this.rebuilding = p;
    }
    return this.rebuilding;
  }

  /**
   * Two tabs of one user share one IndexedDB but each has its own engine: unguarded, both
   * would number their op batches from the same sequence (overwriting each other's) and a
   * compaction would snapshot one tab's state over the other's writes. So every write (and
   * the open) holds a Web Lock named after the store, and first reloads from storage if
   * another tab logged a batch since; after the write, a BroadcastChannel message tells the
   * other tabs to reload. Without Web Locks (Node, workerd) the store's own lock keeps
   * one writer per store instead (see `writerLock`).
   */
  private exclusive<T>(f: () => Promise<T>): Promise<T> {
    const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
    if (!locks) return f();
    return locks.request(`engram:${this.opts.namespace ?? `engram/${this.scope.tenant}/${this.scope.user}/`}`, { mode: "exclusive" }, f) as Promise<T>;
  }

  /**
   * Without Web Locks (Node, workerd) one instance at a time may write a store: the first
   * write takes the adapter's lock ({@link StorageAdapter.lock}; `NodeFileStorage` and
   * `MemoryStorage` have one) and holds it until `close()`. Opening and reading never need
   * it, so a reader beside a writer (the CLI's `list` beside a running MCP server) works; a
   * write (or sync, which writes what it pulls) while another instance or process holds
   * the store rejects with `STORE_LOCKED` (an `EngramIoError` naming the holder) and is not
   * made. True once after the lock was taken: the write then reloads if another writer
   * logged batches since this instance loaded.
   */
  private async writerLock(): Promise<boolean> {
    await this.ensureLock();
    const fresh = this.lockIsNew;
    this.lockIsNew = false;
    return fresh;
  }

  private lockIsNew = false;
  private lockTaking: Promise<StorageLock> | undefined;

  /** Take the store's lock if this instance does not hold it yet (concurrent callers share one attempt). */
  private async ensureLock(): Promise<void> {
    if (this.storeLock || !this.lockTarget) return;
    const taking = (this.lockTaking ??= takeLock(this.lockTarget.storage, this.lockTarget.name));
    try {
      const lock = await taking;
      if (!this.storeLock) {
        this.storeLock = lock;
        this.lockIsNew = true;
      }
    } finally {
      this.lockTaking = undefined;
    }
  }

  /** Take the writer lock if it is free; false while another instance holds the store. */
  private async mayWrite(): Promise<boolean> {
    try {
      await this.writerLock();
      return true;
    } catch (e) {
      if (e instanceof EngramError && e.code === "STORE_LOCKED") return false;
      throw e;
    }
  }

  /**
   * The first open with sync of a store that has history queues its whole state for the
   * origin, once: `stateOps()` is one op batch of every record, tombstone, forget, session
   * and graph fact (stamped as they were, so applying it anywhere changes only what is
   * missing). Without it the user's other devices would get only later changes. A write
   * made without sync later (not in the outbox) clears the mark, so the next sync seeds again.
   */
  private async seedSync(): Promise<void> {
    const r = this.openReport;
    const empty = r.snapshot === "none" && r.replayedBatches === 0;
    await this.persistence.seed(empty ? undefined : this.call(() => this.engine.stateOps() as Uint8Array[]));
  }

  private channel: BroadcastChannel | undefined;
  private reloadedBeforeWrite = false;

  private listenToOtherTabs(prefix: string): void {
    if (typeof BroadcastChannel === "undefined" || !(globalThis as { navigator?: { locks?: unknown } }).navigator?.locks) return;
    this.channel = new BroadcastChannel(`engram:${prefix}`);
    this.channel.onmessage = () => {
      if (!this.closed) this.refresh().catch(() => undefined);
    };
  }

  /** Serialize a write: core call, then persist its ops, then emit. */
  private mutate<T>(type: ChangeEvent["type"], f: () => Promise<{ value: T; ids: string[] }>): Promise<T> {
    this.assertOpen();
    const run = () => this.exclusive(() => this.runWrite(type, f));
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private async runWrite<T>(type: ChangeEvent["type"], f: () => Promise<{ value: T; ids: string[] }>): Promise<T> {
    this.assertOpen();
    await this.recover(); // a rebuild after a trap that failed (storage down) is retried here
    this.reloadedBeforeWrite = false;
    const tookLock = await this.writerLock();
    if ((this.channel || tookLock) && this.engine && (await this.persistence.behind())) {
      // Reads keep using the old engine until the reloaded one replaces it.
      const old = this.engine;
      await this.load();
      if (old !== this.engine) old.free();
      this.reloadedBeforeWrite = true;
    }
    const logged = this.persistence.logged;
    let result: { value: T; ids: string[] };
    try {
      result = await f();
    } catch (e) {
      const err = this.handle(e);
      // If the rebuild fails too, the next call retries it; this one reports the trap.
      if (err instanceof EngramFatalError) await this.recover().catch(() => undefined);
      else await this.undo();
      throw err;
    }
    await this.persistence.flush(this.engine);
    this.emit({ type, ids: result.ids });
    if (type !== "pull") this.syncClient?.poke();
    if (this.persistence.logged !== logged) this.channel?.postMessage("write");
    return result.value;
  }

  private handle(e: unknown): EngramError {
    let err = fromCore(e);
    if (!(err instanceof EngramFatalError) && !(e instanceof EngramError) && !hasCode(e) && this.engine && this.poisoned()) {
      // A JS exception the binding did not make (a throwing getter on an input) unwound
      // through Rust and left the handle borrowed: as fatal as a trap.
      err = new EngramFatalError("WASM_TRAP", `a call into the wasm core failed and left it unusable (${err.message}); rebuilt from storage`, { cause: e });
    }
    if (err instanceof EngramFatalError) {
      // The trapped handle may hold a stuck borrow: never touch it again (not even to free it).
      this.engine = undefined as unknown as CoreEngine;
    }
    return err;
  }

  /**
   * Whether the handle can no longer be borrowed mutably (a failed call left it borrowed):
   * applying an empty batch borrows it and is refused by the decoder with a code, or by
   * wasm-bindgen's borrow check without one.
   */
  private poisoned(): boolean {
    try {
      this.engine.applyOps(new Uint8Array(0));
      return false;
    } catch (e) {
      return e instanceof Error && !hasCode(e);
    }
  }

  /**
   * After a write that failed partway (the core refused a batch's third memory after taking
   * two): what it changed is in memory and in the engine's pending ops, which the next write
   * would persist. Storage has none of it yet, so the engine is rebuilt from there.
   */
  private async undo(): Promise<void> {
    if (!this.engine) return this.recover().catch(() => undefined);
    let changed: boolean;
    try {
      changed = this.engine.takePending().length > 0;
    } catch {
      changed = true;
    }
    if (!changed) return;
    this.freeEngine();
    await this.recover().catch(() => undefined); // if storage fails too, the next call rebuilds
  }

  /** After a trap: rebuild the engine from storage (the failed call never happened). */
  private async recover(): Promise<void> {
    if (this.engine || this.closed) return;
    await this.load();
  }

  private assertOpen(): void {
    if (this.closed) throw new EngramInputError("CLOSED", "this Engram instance is closed");
  }
}

function hasCode(e: unknown): boolean {
  return e instanceof Error && typeof (e as { code?: unknown }).code === "string";
}

/** Take the store's lock; an adapter's own failure becomes an `EngramIoError`. */
async function takeLock(storage: StorageAdapter, name: string): Promise<StorageLock> {
  try {
    return await storage.lock!(name);
  } catch (e) {
    if (e instanceof EngramError) throw e;
    throw new EngramIoError("STORAGE", `could not lock the store ${JSON.stringify(name)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

function checkText(v: unknown, what: string, allowEmpty = false): asserts v is string {
  if (typeof v !== "string") throw new EngramInputError("INVALID_INPUT", `${what} must be a string, got ${v === null ? "null" : typeof v}`);
  if (!allowEmpty && v.trim().length === 0) throw new EngramInputError("INVALID_INPUT", `${what} must not be empty`);
  if (v.length > MAX_TEXT * 4) throw new EngramInputError("TEXT_TOO_LARGE", `${what} is ${v.length} characters; the limit is ${MAX_TEXT} bytes`);
}

export type { Hit };
