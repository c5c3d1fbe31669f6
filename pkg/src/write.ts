/**
 * The write path shared by `remember`, `observe`, sessions and the LLM learner: inputs
 * checked, texts scrubbed, embedded as they will be stored, then handed to the core — all
 * inside one `mutate`.
 * @module
 */
import type { Vectors } from "./embed/vectors.js";
import { EngramInputError } from "./errors.js";
import type { LearnerHooks } from "./learn.js";
import type { Lifetime } from "./lifetime.js";
import type { ErrorEvent } from "./options.js";
import type { ChatTurn, MemoryInput, MemoryRecord, Role, Scope, WriteOutcome } from "./types.js";

const MAX_TEXT = 32 * 1024;

/** Refuse a text that is not a string, is empty (unless allowed) or too large, naming `what`. */
export function checkText(v: unknown, what: string, allowEmpty = false): asserts v is string {
  if (typeof v !== "string") throw new EngramInputError("INVALID_INPUT", `${what} must be a string, got ${v === null ? "null" : typeof v}`);
  if (!allowEmpty && v.trim().length === 0) throw new EngramInputError("INVALID_INPUT", `${what} must not be empty`);
  if (v.length > MAX_TEXT * 4) throw new EngramInputError("TEXT_TOO_LARGE", `${what} is ${v.length} characters; the limit is ${MAX_TEXT} bytes`);
}

/** The ids a change event names for these outcomes: each memory and what it superseded. */
export function outcomeIds(outs: WriteOutcome[]): string[] {
  return outs.flatMap((o) => [o.id, ...o.superseded]);
}

export class Writer {
  constructor(
    private readonly life: Lifetime,
    private readonly vectors: Vectors,
    private readonly scope: Scope,
    private readonly embedTurns: boolean,
  ) {}

  /** Remember checked inputs as one write. */
  async remember(ms: MemoryInput[]): Promise<WriteOutcome[]> {
    return this.life.mutate("remember", async () => {
      const outs = await this.memories(ms);
      return { value: outs, ids: outcomeIds(outs) };
    });
  }

  /**
   * Scrub, embed and remember, inside `mutate`. What is embedded is the text as it will be
   * stored (PII redacted), never the raw one; nothing is embedded for a dropped input.
   */
  async memories(ms: MemoryInput[]): Promise<WriteOutcome[]> {
    const stored = ms.map((m) => (this.life.engine.scrub(m.text, m.sensitivity) as { text: string | null }).text);
    const wanted = stored.flatMap((t, i) => (t !== null && !ms[i].embedding ? [i] : []));
    const vs = await this.vectors.many(wanted.map((i) => stored[i] as string));
    const vectors = new Map(wanted.map((i, j) => [i, vs[j]]));
    const now = this.life.now();
    return ms.map((m, i) => {
      const { embedding, link: _l, ...plain } = m as MemoryInput & { link?: unknown };
      return this.life.engine.remember(this.scope, plain, embedding ?? vectors.get(i), now) as WriteOutcome;
    });
  }

  /** Append turns as one write: all of them or none (see `Lifetime.undo`). The texts are embedded first. */
  async turns(session: string, turns: { role: Role; text: string }[]): Promise<string[]> {
    return this.life.mutate("turn", async () => {
      const scope = { ...this.scope, session };
      const vectors = this.embedTurns ? await this.vectors.many(turns.map((t) => this.life.engine.scrubTurn(t.text))) : [];
      const ids = turns.map((t, i) => this.life.engine.appendTurn(scope, t.role, t.text, vectors[i], this.life.now()) as string);
      return { value: ids, ids };
    });
  }

  /** `Engram.observe` without the background extractor: check every turn, record them, remember their facts. */
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
    const { life } = this;
    await life.ready();
    const facts: (MemoryInput & { link?: unknown })[] = [];
    for (const t of batch) {
      if (t.role !== "user") continue;
      const found = life.call(() => life.engine.extract(t.text) as (MemoryInput & { key: MemoryInput["key"] | null; link: unknown })[]);
      for (const f of found) facts.push({ ...f, key: f.key ?? undefined, source: "rule-extracted" });
    }
    const ids = await this.turns(opts.session, batch);
    const remembered = !facts.length
      ? []
      : await life.mutate("remember", async () => {
          const outs = await this.memories(facts);
          const now = life.now();
          outs.forEach((o, i) => life.engine.linkExtracted(this.scope, facts[i].link ?? null, o, now));
          return { value: outs, ids: outcomeIds(outs) };
        });
    return { turns: ids, remembered };
  }

  /** What the learner may do: read current memories, and write a validated batch atomically. */
  learnerHooks(): LearnerHooks {
    return {
      shown: () => this.life.call(() => this.life.engine.list(this.scope, {}, this.life.now()) as MemoryRecord[]),
      apply: (type: "learn", f: Parameters<LearnerHooks["apply"]>[1]) =>
        this.life.mutate(type, () => f(this.life.engine, this.scope, (ms) => this.memories(ms), this.life.now())),
      emit: (e: ErrorEvent) => this.life.emit(e),
    };
  }
}
