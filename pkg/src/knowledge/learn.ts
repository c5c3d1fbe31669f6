/**
 * The LLM learning loop: show the extractor the turns and the user's current memories,
 * validate its answer, then apply every operation in one serialized write — or none.
 * Background runs (started by `observe`) never block the caller; their failures are
 * reported as `error` events and through `idle()` never throwing.
 * @module
 */
import type { CoreHandle } from "../core.js";
import { EngramError, EngramInputError, EngramIoError } from "../errors.js";
import type { Extractor, ShownMemory } from "./extract/llm.js";
import { EXTRACTABLE_KINDS, parseOperations, type Operation } from "./extract/operations.js";
import type { ChatTurn, MemoryInput, MemoryRecord, Scope, WriteOutcome } from "../types.js";

/** What one learning run did. */
export interface LearnReport {
  extractor: string;
  operations: Operation["op"][];
  added: WriteOutcome[];
  updated: WriteOutcome[];
  deleted: string[];
}

/** Memories shown to the extractor: the most recently updated, at most this many. */
const SHOWN = 50;

/** What `Engram` lends the learner. */
export interface LearnerHooks {
  shown(): MemoryRecord[];
  apply(
    type: "learn",
    f: (handle: CoreHandle, scope: Scope, write: (ms: MemoryInput[]) => Promise<WriteOutcome[]>, now: number) => Promise<{ value: LearnReport; ids: string[] }>,
  ): Promise<LearnReport>;
  emit(e: { type: "error"; task: "learn" | "episode"; error: EngramError }): void;
}

export class Learner {
  private readonly running = new Set<Promise<unknown>>();
  constructor(private readonly hooks: LearnerHooks) {}

  /** Start a run in the background. */
  later(extractor: Extractor, turns: ChatTurn[]): void {
    this.spawn("learn", () => this.run(extractor, turns));
  }

  /**
   * Run `f` in the background: `idle()` waits for it, and its failure becomes an `error`
   * event of `task` (never thrown at anyone). The abstractive episodes run here too.
   */
  spawn(task: "learn" | "episode", f: () => Promise<unknown>): void {
    const p = f().catch((e: unknown) => {
      const error = e instanceof EngramError ? e : new EngramIoError("EXTRACTOR", String(e), { cause: e });
      this.hooks.emit({ type: "error", task, error });
    });
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  /** Resolves when no background run is left. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  /** One run: propose → validate → apply all or nothing. */
  async run(extractor: Extractor | undefined, turns: ChatTurn[]): Promise<LearnReport> {
    if (!extractor) throw new EngramInputError("INVALID_INPUT", "learn() needs an extractor (pass one, or give `extractor` to open)");
    const memories = this.hooks
      .shown()
      .filter((r) => EXTRACTABLE_KINDS.includes(r.kind))
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .slice(0, SHOWN);
    const shown: ShownMemory[] = memories.map((r) => ({ id: r.id, text: r.text, kind: r.kind, key: r.key }));
    let answer: unknown;
    try {
      answer = await extractor.propose({ turns: turns.map((t) => ({ role: t.role, text: t.text })), memories: shown });
    } catch (e) {
      throw e instanceof EngramError ? e : new EngramIoError("EXTRACTOR", `extractor ${extractor.id} failed: ${String(e)}`, { cause: e });
    }
    const ops = parseOperations(answer, new Set(shown.map((m) => m.id)));
    const byId = new Map(memories.map((r) => [r.id, r]));
    return this.hooks.apply("learn", async (handle, scope, write, now) => {
      // The user may have changed memory since the extractor saw it: a target that is no
      // longer current rejects the batch before anything is written.
      const current = new Set((handle.list(scope, {}, now) as MemoryRecord[]).map((r) => r.id));
      for (const op of ops) {
        if ((op.op === "UPDATE" || op.op === "DELETE") && !current.has(op.id)) {
          throw new EngramInputError("EXTRACTION_REJECTED", `extractor output rejected: ${op.id} changed since it was shown`);
        }
      }
      const writes: MemoryInput[] = [];
      for (const op of ops) {
        if (op.op === "ADD") writes.push({ ...memory(op), source: "llm-extracted" });
        if (op.op === "UPDATE") {
          const target = byId.get(op.id) as MemoryRecord;
          writes.push({ ...memory(op), kind: op.kind ?? target.kind, key: op.key ?? target.key ?? undefined, replaces: op.id, source: "llm-extracted" });
        }
      }
      const outs = await write(writes);
      const deleted = ops.flatMap((op) => (op.op === "DELETE" ? [op.id] : []));
      for (const id of deleted) handle.retract(scope, id, now);
      const added = outs.filter((_, i) => !writes[i].replaces);
      const updated = outs.filter((_, i) => writes[i].replaces);
      const report: LearnReport = { extractor: extractor.id, operations: ops.map((o) => o.op), added, updated, deleted };
      return { value: report, ids: [...outs.flatMap((o) => [o.id, ...o.superseded]), ...deleted] };
    });
  }
}

function memory(op: { text: string; kind?: MemoryInput["kind"]; key?: MemoryInput["key"]; importance?: number; confidence?: number }): MemoryInput {
  const m: MemoryInput = { text: op.text, kind: op.kind ?? "fact" };
  if (op.key) m.key = op.key;
  if (op.importance !== undefined) m.importance = op.importance;
  m.confidence = op.confidence ?? 0.7;
  return m;
}
