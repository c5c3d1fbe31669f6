/**
 * Vercel AI SDK middleware (`ai` ≥ 6, optional peer dependency): on every call it builds
 * engram's context for the last user message under a token budget and puts it in the
 * prompt as a system message (memories framed as `<memory-data trust="untrusted">`); after
 * the answer — `generateText` or the end of `streamText` — it observes the turn (user +
 * assistant) into the session, which remembers what is worth remembering (and, with an
 * `extractor` given to `Engram.open`, also asks the LLM in the background). In a multi-step
 * call with tools, every step gets the context; the user message and the final answer are
 * each observed once.
 *
 * ```ts
 * import { wrapLanguageModel, generateText } from "ai";
 * import { engramMiddleware } from "engram/ai-sdk";
 * const model = wrapLanguageModel({ model: yourModel, middleware: engramMiddleware({ memory: mem, session: "s1" }) });
 * ```
 * It imports nothing at run time (types only), so the same module runs in Node, browsers
 * and Workers: pass an `Engram` opened there.
 * @module
 */
import type { LanguageModelMiddleware } from "ai";
import type { Engram } from "../engram.js";

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type Message = CallOptions["prompt"][number];

/** Options of {@link engramMiddleware}. */
export interface EngramMiddlewareOptions {
  /** The user's memory, or a function choosing it per call (e.g. from `providerOptions`). */
  memory: Engram | ((params: CallOptions) => Engram | Promise<Engram>);
  /** The conversation's session id (its summary joins the context; turns are observed into it). */
  session: string | ((params: CallOptions) => string);
  /** Token budget of the inserted context (default 900). */
  budget?: number;
  /** Memories recalled at most (default 8). */
  k?: number;
  /** Observe the turn after the answer (default true). */
  observe?: boolean;
  /**
   * Called when observing fails (the answer has been produced by then). Default: the error
   * propagates — `generateText` rejects, the stream errors at its end.
   */
  onObserveError?: (error: unknown) => void;
}

/** A language-model middleware that gives the model the user's memory and remembers the turn. */
export function engramMiddleware(o: EngramMiddlewareOptions): LanguageModelMiddleware {
  const memory = (p: CallOptions) => (typeof o.memory === "function" ? o.memory(p) : o.memory);
  const session = (p: CallOptions) => (typeof o.session === "function" ? o.session(p) : o.session);
  const observe = async (p: CallOptions, answer: string) => {
    if (o.observe === false) return;
    // A call that follows a tool result is a later step of the same turn: its user message
    // was observed by the first step, so only the answer (if any) is new. A prompt with no
    // user message is not a turn of the user's.
    const last = p.prompt.at(-1)?.role;
    const question = lastUserText(p.prompt);
    if (!question.trim() || (last !== "user" && last !== "tool")) return;
    const turns = [
      ...(last === "user" ? [{ role: "user" as const, text: question }] : []),
      ...(answer.trim() ? [{ role: "assistant" as const, text: answer }] : []),
    ];
    if (!turns.length) return;
    try {
      await (await memory(p)).observe(turns, { session: session(p) });
    } catch (e) {
      if (!o.onObserveError) throw e;
      o.onObserveError(e);
    }
  };
  return {
    specificationVersion: "v3",
    async transformParams({ params }) {
      const query = lastUserText(params.prompt);
      if (!query.trim()) return params;
      // The prompt already carries the conversation: no recent turns, only memory and summary.
      const ctx = await (await memory(params)).buildContext(query, { budget: o.budget ?? 900, k: o.k ?? 8, session: session(params), recentTurns: 0 });
      if (!ctx.text) return params;
      // After the leading system messages: some providers accept system text only there.
      const at = params.prompt.findIndex((m) => m.role !== "system");
      const prompt = [...params.prompt];
      prompt.splice(at < 0 ? prompt.length : at, 0, { role: "system", content: ctx.text });
      return { ...params, prompt };
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      await observe(params, result.content.map((c) => (c.type === "text" ? c.text : "")).join(""));
      return result;
    },
    async wrapStream({ doStream, params }) {
      const result = await doStream();
      let answer = "";
      type Part = typeof result.stream extends ReadableStream<infer P> ? P : never;
      const tap = new TransformStream<Part, Part>({
        transform(part, out) {
          if (part.type === "text-delta") answer += part.delta;
          out.enqueue(part);
        },
        flush: () => observe(params, answer),
      });
      return { ...result, stream: result.stream.pipeThrough(tap) };
    },
  };
}

/** The text of the last user message of a prompt. */
function lastUserText(prompt: Message[]): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role === "user") return m.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  }
  return "";
}
