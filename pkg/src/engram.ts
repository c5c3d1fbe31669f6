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
import { loadCore } from "./core.js";
import { defaultEmbedder } from "./embed/static.js";
import { Vectors } from "./embed/vectors.js";
import type { Extractor } from "./knowledge/extract/llm.js";
import { Feedback, type FeedbackInput, type FeedbackReport } from "./knowledge/feedback.js";
import { Learner, type LearnReport } from "./knowledge/learn.js";
import { EngramInputError } from "./errors.js";
import { Episodes } from "./consolidate/episodes.js";
import { Documents } from "./archive/documents.js";
import { Library } from "./archive/library.js";
import { Procedures } from "./knowledge/procedures.js";
import { Knowledge } from "./knowledge/knowledge.js";
import { Profiles, type Profile, type ProfileSettings, type ProfileUpdate } from "./knowledge/profile.js";
import { Lifetime, type Listener, type TabChannel } from "./store/lifetime.js";
import type { ContextOptions, OpenOptions, RecallOptions } from "./options.js";
import { Persistence, type OpenReport } from "./store/persist.js";
import { Session } from "./store/session.js";
import { sessionHooks } from "./store/session-hooks.js";
import { SyncClient, type SyncReport } from "./sync/client.js";
import { seedSync, syncHooks } from "./sync/hooks.js";
import { importEncryptionKey, importStoreKey, keyError, type EncryptionOptions } from "./encryption.js";
import { EncryptedStorage, encryptedStore } from "./store/encrypted.js";
import { MemoryStorage } from "./storage/memory.js";
import type { StorageAdapter } from "./storage/types.js";
import type { ChatTurn, Context, EntityRef, GraphAnswer, GraphQuery, Hit, ListFilter, MemoryInput, MemoryRecord, QuarantinedBatch, Recall, Resolution, Scope, TokenCount, WriteOutcome } from "./types.js";
import { WriterLock } from "./store/writer-lock.js";
import { Writer, checkText, type Written } from "./write/remember.js";

/** A user's memory. Create with {@link Engram.open}. */
export class Engram {
  // The parts it delegates to: the handle's lifetime (load, write queue, trap recovery, token
  // table), the write path, the graph/review/redaction, and the sync client with its hooks.
  private readonly life: Lifetime;
  private readonly writer: Writer;
  private readonly knowledge: Knowledge;
  private readonly profiles: Profiles;
  private readonly learner: Learner;
  private readonly feedbackLoop: Feedback;
  private readonly episodes: Episodes;
  private readonly vectors: Vectors;
  private readonly syncClient: SyncClient | undefined;
  /** Archival documents: put, get, list, delete, and search of their chunks. */
  readonly documents: Documents;
  /** The tenant's procedures (the operator's instructions): put, get, list, history, delete. */
  readonly procedures: Procedures;
  /** The tenant's library (documents the operator shares with every user): put, get, list, delete. */
  readonly library: Library;
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
    storage: StorageAdapter,
    private readonly prefix: string,
    private readonly sealed: { store: EncryptedStorage | undefined; previous: CryptoKey[] },
  ) {
    this.vectors = new Vectors(opts.embedder === undefined ? defaultEmbedder() : opts.embedder || undefined);
    const lock = new WriterLock(prefix, storage);
    this.life = new Lifetime(opts, persistence, replica, this.vectors.embedder, lock, (report) => (this.openReport = report));
    // The learner runs the abstractive episodes too; it is made after the writer it writes through.
    this.episodes = new Episodes(this.life, scope, (task, f) => this.learner.spawn(task, f), opts.extractor);
    this.writer = new Writer(this.life, this.vectors, scope, opts.embedTurns ?? true, this.episodes);
    this.knowledge = new Knowledge(this.life, scope);
    this.profiles = new Profiles(this.life, scope);
    this.documents = new Documents(this.life, this.vectors, scope);
    this.procedures = new Procedures(this.life, scope.tenant, opts.sync !== undefined);
    this.library = new Library(this.life, this.vectors, scope.tenant, opts.sync !== undefined);
    this.learner = new Learner(this.writer.learnerHooks());
    this.feedbackLoop = new Feedback(this.life, scope, (notes, extractor) => this.learner.run(extractor, notes.map((text) => ({ role: "user" as const, text }))));
    if (opts.sync) this.syncClient = new SyncClient(opts.sync, syncHooks(this.life, persistence, scope, replica, {
      current: () => sealed.store?.key,
      all: () => (sealed.store ? [sealed.store.key, ...sealed.previous] : sealed.previous),
    }));
    this.life.onWritten = (type) => type !== "pull" && this.syncClient?.poke();
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
    const key = opts.encryption === undefined ? undefined : await importStoreKey((opts.encryption as { key?: unknown } | null)?.key);
    const previous = await previousKeys(opts.encryption);
    const stored = await encryptedStore(storage, prefix, key);
    const persistence = new Persistence(stored, prefix, opts.compactEvery ?? 100);
    if (stored instanceof EncryptedStorage && stored.repairedMark) persistence.noteDamaged("meta/encryption");
    persistence.rekeyFinished = stored instanceof EncryptedStorage && stored.finishedRekey;
    persistence.outbox = opts.sync !== undefined;
    persistence.storageLost = (await (storage as StorageAdapter).discarded?.()) ?? false;
    persistence.storageRestored = (await (storage as StorageAdapter).restored?.()) ?? 0;
    const replica = await persistence.replica();
    const e = new Engram(opts, scope, persistence, replica, storage, prefix, { store: stored instanceof EncryptedStorage ? stored : undefined, previous });
    const { life } = e;
    await life.lock.exclusive(async () => {
      // The first open with sync queues the store's whole state (a write: under the lock).
      const seed = opts.sync !== undefined && (await persistence.needsSeed()) && (await life.lock.mayWrite());
      try {
        await life.load();
        if (seed) await seedSync(life, persistence, e.openReport);
      } catch (err) {
        await life.lock.release();
        throw err;
      }
    });
    if (await life.lock.mayWrite()) await e.profiles.retainIfDue();
    life.listenToOtherTabs(prefix);
    e.syncClient?.start();
    life.startTokenizer();
    return e;
  }

  /** The channel other tabs announce writes on (the SDK's tests silence it to play a frozen tab). */
  private get channel(): TabChannel | undefined {
    return this.life.channel;
  }

  /** Resolves when the exact token table is loaded; rejects if it cannot be. */
  async tokenizerReady(): Promise<void> {
    await this.life.tokenizerReady();
  }

  /** Count tokens: exact once the table is loaded, an estimate before (and says which). */
  countTokens(text: string): TokenCount {
    return this.life.call(() => this.life.handle.countTokens(text) as TokenCount);
  }

  /** Subscribe to change events; returns the unsubscribe function. */
  on(listener: Listener): () => void {
    return this.life.on(listener);
  }

  /** Remember a memory (a string is a user-stated fact). */
  async remember(input: string | MemoryInput): Promise<WriteOutcome> {
    return (await this.writer.remember([input]))[0];
  }

  /** Remember several memories as one write, embedding them in one batch. */
  async rememberMany(inputs: (string | MemoryInput)[]): Promise<WriteOutcome[]> {
    return this.writer.remember(inputs);
  }

  /**
   * Record a conversation's turns in `session` and remember what is worth remembering
   * from the user's turns (identity, preferences, decisions, corrections, task progress;
   * rule-based, English and Chinese) through the normal write path; facts that state a
   * relation join the graph. With an `extractor`, the turns are also sent to it in the
   * background (see {@link Engram.idle}); this call never waits for it.
   */
  async observe(turns: ChatTurn[], opts: { session: string }): Promise<Written> {
    const observed = await this.writer.observe(turns, opts);
    if (this.opts.extractor) this.learner.later(this.opts.extractor, turns);
    return observed;
  }

  /**
   * Ask `extractor` (default: the one given to `open`) what to remember from `turns`, and
   * apply its operations through the write path. The answer is validated first; if any
   * operation is invalid or names a memory it was not shown, nothing is written and this
   * rejects with `EXTRACTION_REJECTED`.
   */
  async learn(turns: ChatTurn[], extractor?: Extractor): Promise<LearnReport> {
    return this.learner.run(extractor ?? this.opts.extractor, turns);
  }

  /**
   * Record the outcome of one use of memory: whether the answer helped, the memories it
   * used, a note (the user's words about it) and the task. Returns the record's id.
   */
  async feedback(outcome: FeedbackInput): Promise<string> {
    return this.feedbackLoop.record(outcome);
  }

  /**
   * Distil the recorded outcomes (once at least `minInteractions`, default 10, are
   * recorded) into procedural memory: what helped, pitfalls, recurring tasks; the notes are
   * read as the user's words, and also sent to `extractor` (default: the one given to `open`).
   */
  async learnFromFeedback(opts: { minInteractions?: number; extractor?: Extractor } = {}): Promise<FeedbackReport> {
    return this.feedbackLoop.learn({ ...opts, extractor: opts.extractor ?? this.opts.extractor });
  }

  /** Resolves when background work (LLM extraction started by `observe`, abstractive episodes, a rebuild after a trap) has finished. */
  async idle(): Promise<void> {
    await this.learner.idle();
    await this.life.idle();
  }

  /** Settle a value flagged for review (`list({ pendingReview: true })`). */
  async resolveReview(id: string, decision: Exclude<Resolution, "flag">): Promise<WriteOutcome> {
    return this.knowledge.resolveReview(id, decision);
  }

  /** A memory's text with its sealed PII opened by the user's 32-byte `key`. */
  reveal(id: string, key: Uint8Array): string {
    return this.knowledge.reveal(id, key);
  }

  /** Add (or with `{ present: false }` remove) the relation `from —rel→ to` in this user's graph. */
  async relate(from: EntityRef, rel: string, to: EntityRef, opts: { present?: boolean; record?: string } = {}): Promise<void> {
    await this.knowledge.relate(from, rel, to, opts);
  }

  /** Set an attribute of an entity (e.g. a task's `status`). */
  async setEntityAttribute(entity: EntityRef, attribute: string, value: string): Promise<void> {
    await this.knowledge.setEntityAttribute(entity, attribute, value);
  }

  /**
   * The user's profile, derived from their memories now: basic info, behaviour (frequent
   * topics, response detail and tone, visits), the knowledge base (facts, custom rules)
   * and privacy settings.
   */
  profile(opts: { factLimit?: number } = {}): Profile {
    return this.profiles.get(opts.factLimit);
  }

  /** Change the profile's settings (`null` clears a field); returns them after the change. */
  async updateProfile(patch: ProfileUpdate): Promise<ProfileSettings> {
    return this.profiles.update(patch);
  }

  /** Answer a named graph template. */
  graph(query: GraphQuery): GraphAnswer {
    return this.knowledge.graph(query);
  }

  /** Recall memories relevant to `query`. Small talk returns no hits (route `"small-talk"`). */
  async recall(query: string, opts: RecallOptions = {}): Promise<Recall> {
    checkText(query, "query", true);
    const vector = await this.vectors.query(query);
    await this.life.ready();
    return this.life.call(() => this.life.handle.recall(this.scope, { text: query, ...opts }, vector, this.life.now()) as Recall);
  }

  /** The prompt context for `query` under an exact token budget, memories framed as untrusted data. */
  async buildContext(query: string, opts: ContextOptions = {}): Promise<Context> {
    checkText(query, "query", true);
    const vector = await this.vectors.query(query);
    const scope = opts.session ? { ...this.scope, session: opts.session } : this.scope;
    const req = { query, budget: opts.budget ?? 900, k: opts.k ?? 8, recentTurns: opts.recentTurns ?? null, archivalK: opts.archivalK ?? 4, archivalShare: opts.archivalShare ?? 0.3, procedureLimit: opts.procedureLimit ?? 8 };
    await this.life.ready();
    await this.profiles.retainIfDue();
    return this.life.call(() => this.life.handle.buildContext(scope, req, vector, this.life.now()) as Context);
  }

  /** Working memory of one session. */
  session(id: string): Session {
    if (typeof id !== "string" || id.length === 0) throw new EngramInputError("INVALID_INPUT", "session id must be a non-empty string");
    return new Session(sessionHooks(this.life, this.writer, this.scope, this.episodes), id);
  }

  /**
   * With `consolidation.episodes`: write the episodes of this user's sessions idle past
   * their TTL (as {@link Session.end} does, without ending them); returns their ids. Call
   * it when the app is idle. (A session that idled is also summarised when a turn next
   * joins it.)
   */
  async consolidate(): Promise<string[]> {
    return this.episodes.idle();
  }

  /** Everything remembered about this user (transparency), oldest first. */
  async list(filter: ListFilter = {}): Promise<MemoryRecord[]> {
    await this.life.ready();
    return this.life.call(() => this.life.handle.list(this.scope, filter, this.life.now()) as MemoryRecord[]);
  }

  /** How many records are stored for this user. */
  count(): number {
    return this.life.call(() => this.life.handle.count(this.scope));
  }

  /** Delete one memory; false when it did not exist. */
  async forget(id: string): Promise<boolean> {
    return this.life.mutate("forget", async () => ({ value: this.life.handle.forget(this.scope, id, this.life.now()) as boolean, ids: [id] }));
  }

  /** Forget everything about this user, here and (through sync) everywhere. */
  async forgetUser(): Promise<number> {
    return this.life.mutate("forget-user", async () => ({ value: this.life.handle.forgetUser(this.scope, this.life.now()), ids: [] }));
  }

  /** The engine's state as bytes (versioned, checksummed). */
  exportSnapshot(): Uint8Array {
    return this.life.call(() => this.life.handle.snapshot());
  }

  /** Replace the state with a snapshot; persisted as a new snapshot generation. */
  async importSnapshot(bytes: Uint8Array): Promise<void> {
    await this.life.importSnapshot(bytes);
  }

  /** Write a snapshot now (otherwise one is written every `compactEvery` op batches). */
  async compact(): Promise<void> {
    await this.life.compact();
  }

  /**
   * Give an encrypted store a new key: every stored value is sealed again with `newKey`
   * (32 bytes, or an extractable AES-GCM `CryptoKey`), and what sync sends from now on is
   * sealed with it. Stopped at any point (a crash, kill -9), the store opens with either
   * key and the open finishes the rotation (`openReport.rekeyFinished`); once it is done,
   * only `newKey` opens it. The old key stays with this instance to read what the origin
   * still holds sealed with it; other devices: see docs/encryption.md. `ENCRYPTION_KEY`
   * on a store that is not encrypted; `INVALID_INPUT` for a bad key.
   */
  async rekey(newKey: Uint8Array | CryptoKey): Promise<void> {
    this.life.assertOpen();
    const store = this.sealed.store;
    if (!store) throw keyError("rekey: this store is not encrypted (open it with encryption: { key } to encrypt a new one)");
    const next = await importStoreKey(newKey);
    await this.life.mutate("session", async () => {
      await this.life.lock.ensure();
      const old = store.key;
      await store.rekey(this.prefix, next);
      this.sealed.previous.unshift(old);
      return { value: undefined, ids: [] };
    });
  }

  /**
   * Sync with the origin now: push every local change it has not accepted, pull and apply
   * the user's changes from elsewhere. Rejects with an `EngramIoError` (`SYNC_NETWORK`,
   * `SYNC_UNAVAILABLE`, `SYNC_UNAUTHORIZED`, …); nothing is lost on failure — run it again.
   */
  async sync(): Promise<SyncReport> {
    this.life.assertOpen();
    if (!this.syncClient) throw new EngramInputError("INVALID_INPUT", "open({ sync: { url, token } }) to sync");
    return this.syncClient.sync();
  }

  /** Local change batches not yet accepted by the origin. */
  async pendingSync(): Promise<number> {
    return (await this.persistence.pendingOutbox(Number.MAX_SAFE_INTEGER)).length;
  }

  /**
   * Batches the origin refused for what they hold, set aside so that later changes still
   * sync (a `sync-quarantined` event announced each): their id, size and the origin's answer.
   * The changes in them stay in this store; `retryQuarantined` sends them again (after an
   * upgrade of the origin, say), `discardQuarantined` drops them from sync.
   */
  async quarantined(): Promise<QuarantinedBatch[]> {
    this.life.assertOpen();
    return (await this.persistence.quarantined()).map((b) => ({ id: b.id, bytes: b.bytes.length, code: b.code, message: b.message, at: b.at }));
  }

  /** Put quarantined batches (all, or those of `ids`) back in the outbox; returns how many. */
  async retryQuarantined(ids?: string[]): Promise<number> {
    const n = await this.release(ids, true);
    if (n > 0) this.syncClient?.poke();
    return n;
  }

  /** Drop quarantined batches (all, or those of `ids`) from sync for good; returns how many. */
  async discardQuarantined(ids?: string[]): Promise<number> {
    return this.release(ids, false);
  }

  private async release(ids: string[] | undefined, retry: boolean): Promise<number> {
    this.life.assertOpen();
    await this.life.lock.ensure();
    const chosen = (await this.persistence.quarantined()).filter((b) => ids === undefined || ids.includes(b.id));
    await this.persistence.release(chosen.map((b) => b.seq), retry);
    return chosen.length;
  }

  /**
   * Load what other instances on the same storage (other tabs of this user) wrote since
   * this one last looked; true when there was something. Runs by itself before every write
   * and when another tab announces one (emitting a `pull` change event).
   */
  async refresh(): Promise<boolean> {
    return this.life.refresh();
  }

  /** Release the wasm memory of this instance. */
  async close(): Promise<void> {
    this.life.stopListening();
    await this.syncClient?.stop();
    await this.learner.idle();
    await this.life.close();
  }

  /** @internal For the SDK's own tests: make the wasm core trap inside a read (`call`). */
  _trapInReadForTests(): void {
    this.life.trapForTests("read");
  }
  /** @internal For the SDK's own tests: make the wasm core trap inside a call. */
  async _trapForTests(): Promise<void> {
    await this.life.trapForTests("write");
  }
}

export type { Hit };

/** `encryption.previousKeys`, checked and imported. */
async function previousKeys(opts: EncryptionOptions | undefined): Promise<CryptoKey[]> {
  const keys = (opts as { previousKeys?: unknown } | null | undefined)?.previousKeys;
  if (keys === undefined) return [];
  if (!Array.isArray(keys)) throw new EngramInputError("INVALID_INPUT", "encryption.previousKeys must be an array of keys");
  return Promise.all(keys.map((key) => importEncryptionKey({ key } as EncryptionOptions)));
}
