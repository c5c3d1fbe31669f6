/**
 * The write path shared by `remember`, `observe`, sessions and the LLM learner — the
 * core's one pipeline, inside one `mutate`: `prepare` (the core checks the whole batch,
 * redacts each text once, extracts facts from user turns for `observe`, and names the
 * texts to embed, as they will be stored), the embedder, then `commit` with the vectors.
 * Two crossings into wasm per write, whatever it holds.
 * @module
 */
import type { Episodes } from "../consolidate/episodes.js";
import type { Vectors } from "../embed/vectors.js";
import { EngramInputError } from "../errors.js";
import type { LearnerHooks } from "../knowledge/learn.js";
import type { Lifetime } from "../store/lifetime.js";
import type { ChangeEvent, ErrorEvent } from "../options.js";
import type { ChatTurn, MemoryInput, MemoryRecord, Role, Scope, WriteOutcome, Written } from "../types.js";

const MAX_TEXT = 32 * 1024;

/** Refuse a text that is not a string, is empty (unless allowed) or too large, naming `what`. */
export function checkText(v: unknown, what: string, allowEmpty = false): asserts v is string {
  if (typeof v !== "string") throw new EngramInputError("INVALID_INPUT", `${what} must be a string, got ${v === null ? "null" : typeof v}`);
  if (!allowEmpty && v.trim().length === 0) throw new EngramInputError("INVALID_INPUT", `${what} must not be empty`);
  checkSize(v, what);
}

/** Refuse a text too large to copy into wasm memory (which never shrinks), naming `what`. */
function checkSize(v: string, what: string): void {
  if (v.length > MAX_TEXT * 4) throw new EngramInputError("TEXT_TOO_LARGE", `${what} is ${v.length} characters; the limit is ${MAX_TEXT} bytes`);
}

/** The ids a change event names for these outcomes: each memory and what it superseded. */
export function outcomeIds(outs: WriteOutcome[]): string[] {
  return outs.flatMap((o) => [o.id, ...o.superseded]);
}

/** What one write holds (the core's `WriteBatch`). */
interface Batch {
  memories?: MemoryInput[];
  /** Appended to `session`, before the memories. */
  turns?: unknown[];
  session?: string;
  /** Also remember the facts the user turns state (`observe`). */
  extract?: boolean;
}

export type { Written } from "../types.js";

export class Writer {
  constructor(
    private readonly life: Lifetime,
    private readonly vectors: Vectors,
    private readonly scope: Scope,
    private readonly embedTurns: boolean,
    private readonly episodes: Episodes,
  ) {}

  /** Remember inputs (a string is a user-stated fact) as one write. */
  async remember(inputs: (string | MemoryInput)[]): Promise<WriteOutcome[]> {
    const ms = inputs.map((i): MemoryInput => (typeof i === "string" ? { text: i } : i));
    ms.forEach((m) => checkText(m?.text, "text"));
    return this.life.mutate("remember", async () => {
      const outs = await this.memories(ms);
      return { value: outs, ids: outcomeIds(outs) };
    });
  }

  /** Remember, inside `mutate`: what is embedded is the text as stored (PII redacted), never the raw one. */
  async memories(ms: MemoryInput[]): Promise<WriteOutcome[]> {
    return (await this.write({ memories: ms })).remembered;
  }

  /** Append turns as one write: all of them or none (see `Lifetime.undo`). */
  async turns(session: string, turns: { role: Role; text: string }[]): Promise<string[]> {
    return (await this.withTurns({ turns, session }, (out) => [{ type: "turn", ids: out.turns }])).turns;
  }

  /**
   * `Engram.observe` without the background extractor, as one write: the core checks every
   * turn, records them and remembers their facts (a bad turn refuses the batch, nothing
   * written). Emits `turn`, then `remember` when facts were found.
   */
  async observe(turns: ChatTurn[], opts: { session: string }): Promise<Written> {
    if (!Array.isArray(turns)) throw new EngramInputError("INVALID_INPUT", "observe(turns) needs an array of { role, text }");
    if (typeof opts?.session !== "string" || opts.session.length === 0) {
      throw new EngramInputError("INVALID_INPUT", "observe(turns, { session }) needs a non-empty session id");
    }
    // A text past the limit is refused before it is copied into wasm memory (which never shrinks).
    for (const [i, t] of turns.entries()) {
      if (typeof t?.text === "string") checkSize(t.text, `turn ${i} text`);
    }
    return this.withTurns({ turns, session: opts.session, extract: true }, (out) => {
      const events: ChangeEvent[] = [{ type: "turn", ids: out.turns }];
      if (out.remembered.length) events.push({ type: "remember", ids: outcomeIds(out.remembered) });
      return events;
    });
  }

  /**
   * A write that appends turns (every one goes through here): the pipeline in one `mutate`,
   * its events (then `episode` when the commit wrote one: the session had idled), and,
   * once it is durable, the abstractive rewrite of that episode in the background — the
   * path `Episodes.end` takes, never awaited here (`idle()` waits for it).
   */
  private async withTurns(b: Batch & { session: string }, events: (out: Written) => ChangeEvent[]): Promise<Written> {
    const { out, draft } = await this.life.mutate("turn", async () => {
      const out = await this.write(b);
      const draft = this.episodes.drafted(b.session, out);
      const all = out.episode ? [...events(out), { type: "episode" as const, ids: [out.episode] }] : events(out);
      return { value: { out, draft }, ids: out.turns, events: all };
    });
    if (draft) this.episodes.abstract(draft);
    return out;
  }

  /** What the learner may do: read current memories, and write a validated batch atomically. */
  learnerHooks(): LearnerHooks {
    return {
      shown: () => this.life.call(() => this.life.handle.list(this.scope, {}, this.life.now()) as MemoryRecord[]),
      apply: (type: "learn", f: Parameters<LearnerHooks["apply"]>[1]) =>
        this.life.mutate(type, () => f(this.life.handle, this.scope, (ms) => this.memories(ms), this.life.now())),
      emit: (e: ErrorEvent) => this.life.emit(e),
    };
  }

  /** The pipeline, inside `mutate`: prepare → embed the texts it names → commit. */
  private async write(b: Batch): Promise<Written> {
    const ms = b.memories ?? [];
    const plain = ms.map(({ embedding: _e, ...m }) => m);
    const options = { session: b.session, extract: b.extract ?? false, embedTurns: this.embedTurns };
    const { id, texts } = this.life.handle.prepare(this.scope, plain, ms.map((m) => m.embedding), b.turns ?? [], options, this.life.now()) as { id: number; texts: string[] };
    const vectors = await this.vectors.many(texts);
    return this.life.handle.commit(id, vectors, this.life.now()) as Written;
  }
}
