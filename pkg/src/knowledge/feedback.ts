/**
 * Learning from feedback (seed 002's adaptive agent): the outcome of each use of memory is
 * recorded (helpful or not, the memories used, a note, a task), and a batch step distils
 * the records by the core's rules into procedural memory — best practices, pitfalls,
 * recurring tasks — and reads the notes as the user's words. With an extractor, the notes
 * also go to it, as any turn of the user's would. The core does the distilling; this
 * module checks the input and runs it through the write queue.
 * @module
 */
import { EngramInputError } from "../errors.js";
import type { Lifetime } from "../store/lifetime.js";
import type { Scope } from "../types.js";
import type { Extractor } from "./extract/llm.js";
import type { LearnReport } from "./learn.js";

/** The outcome of one use of memory (an answer built with `buildContext` or `recall`). */
export interface FeedbackInput {
  /** Whether the answer helped. */
  helpful: boolean;
  /** The ids of the memories it used (at most 24), e.g. `context.memories.map((m) => m.id)`. */
  used?: string[];
  /** What the user said about it ("too long — keep your answers short"): read as their words. */
  note?: string;
  /** The kind of task ("trip planning"); a task in three or more uses becomes a pattern. */
  task?: string;
}

/** What one distillation did. */
export interface FeedbackReport {
  /** Feedback records read. */
  interactions: number;
  /** Ids of the patterns written (procedural memory: what helped, pitfalls, recurring tasks). */
  patterns: string[];
  /** Memories that helped in two or more uses and never failed: importance raised. */
  raised: string[];
  /** Memories that failed in two or more uses and never helped: importance lowered to 0.1. */
  lowered: string[];
  /** Facts the rules read from the notes (ids). */
  facts: string[];
  /** The notes read. */
  notes: string[];
  /** The extractor's run over the notes, when one was given (or given to `open`). */
  learned: LearnReport | null;
}

/** What `Engram` lends the feedback loop: its extractor's learning run. */
export type LearnFromNotes = (notes: string[], extractor: Extractor) => Promise<LearnReport>;

function optionalText(v: unknown, what: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw new EngramInputError("INVALID_INPUT", `feedback: ${what} must be a string`);
  return v;
}

export class Feedback {
  constructor(
    private readonly life: Lifetime,
    private readonly scope: Scope,
    private readonly learnFromNotes: LearnFromNotes,
  ) {}

  /** Record one outcome; returns the feedback record's id. */
  async record(input: FeedbackInput): Promise<string> {
    if (input === null || typeof input !== "object" || typeof input.helpful !== "boolean") {
      throw new EngramInputError("INVALID_INPUT", "feedback({ helpful }) needs helpful: true or false");
    }
    const used = input.used ?? [];
    if (!Array.isArray(used) || used.some((u) => typeof u !== "string")) throw new EngramInputError("INVALID_INPUT", "feedback: used is an array of memory ids");
    const note = optionalText(input.note, "note");
    const task = optionalText(input.task, "task");
    return this.life.mutate("learn", async () => {
      const id = this.life.handle.recordFeedback(this.scope, input.helpful, used, note ?? undefined, task ?? undefined, this.life.now()) as string;
      return { value: id, ids: [id] };
    });
  }

  /**
   * Distil the recorded outcomes once at least `minInteractions` (default 10) are recorded;
   * below that nothing is written. Distilling the same records again changes nothing.
   */
  async learn(opts: { minInteractions?: number; extractor?: Extractor } = {}): Promise<FeedbackReport> {
    const min = opts.minInteractions ?? 10;
    if (!Number.isInteger(min) || min < 1 || min > 1_000_000) throw new EngramInputError("INVALID_INPUT", "minInteractions must be a whole number from 1");
    const distilled = await this.life.mutate("learn", async () => {
      const d = this.life.handle.learnFromFeedback(this.scope, min, this.life.now()) as Omit<FeedbackReport, "learned">;
      return { value: d, ids: [...d.patterns, ...d.raised, ...d.lowered, ...d.facts] };
    });
    const learned = opts.extractor && distilled.notes.length ? await this.learnFromNotes(distilled.notes, opts.extractor) : null;
    return { ...distilled, learned };
  }
}
