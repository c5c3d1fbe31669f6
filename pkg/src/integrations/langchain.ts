/**
 * LangChain.js (`@langchain/core` 1.x, optional peer dependency): a chat message history
 * kept in an engram session, for `RunnableWithMessageHistory` — adding messages observes
 * them, so what the user says worth remembering becomes long-term memory — and a retriever
 * and a context runnable over the user's memories.
 *
 * ```ts
 * import { EngramChatMessageHistory, engramContext } from "engram/langchain";
 * const chain = new RunnableWithMessageHistory({
 *   runnable: RunnablePassthrough.assign({ memory: engramContext(mem, { input: "question" }) }).pipe(prompt).pipe(model),
 *   getMessageHistory: (sessionId) => new EngramChatMessageHistory({ memory: mem, session: sessionId }),
 *   inputMessagesKey: "question", historyMessagesKey: "history",
 * });
 * ```
 * Nothing here touches Node APIs: it runs wherever `@langchain/core` and engram do.
 * @module
 */
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { Document } from "@langchain/core/documents";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import { RunnableLambda } from "@langchain/core/runnables";
import type { Engram } from "../engram.js";
import type { ChatTurn, MemoryRecord, Role } from "../types.js";

/** Options of {@link EngramChatMessageHistory}. */
export interface EngramHistoryFields {
  memory: Engram;
  session: string;
  /** How many recent turns `getMessages` returns (default: the engine's window, 12). */
  window?: number;
}

/**
 * A session's turns as LangChain messages. `addMessages` observes the turns (one write),
 * so facts the user states are remembered beyond the window; `getMessages` returns the
 * most recent turns, oldest first.
 */
export class EngramChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["engram", "langchain", "chat_history"];
  private readonly memory: Engram;
  readonly session: string;
  private readonly window: number | undefined;

  constructor(fields: EngramHistoryFields) {
    super(fields);
    this.memory = fields.memory;
    this.session = fields.session;
    this.window = fields.window;
  }

  async getMessages(): Promise<BaseMessage[]> {
    return (await this.memory.session(this.session).recent(this.window)).map(toMessage);
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  async addMessages(messages: BaseMessage[]): Promise<void> {
    const turns = messages.map(toTurn).filter((t) => t.text.trim().length > 0);
    if (turns.length) await this.memory.observe(turns, { session: this.session });
  }

  /** Forget the session's turns (long-term memories learned from them stay). */
  async clear(): Promise<void> {
    for (const t of await this.memory.session(this.session).recent(Number.MAX_SAFE_INTEGER)) await this.memory.forget(t.id);
  }
}

/** Options of {@link EngramRetriever}. */
export interface EngramRetrieverFields extends BaseRetrieverInput {
  memory: Engram;
  /** Documents returned at most (default 8). */
  k?: number;
}

/** The user's memories relevant to a query, as documents (metadata: id, kind, key, score and its parts). */
export class EngramRetriever extends BaseRetriever {
  lc_namespace = ["engram", "langchain", "retrievers"];
  private readonly memory: Engram;
  private readonly k: number;

  constructor(fields: EngramRetrieverFields) {
    super(fields);
    this.memory = fields.memory;
    this.k = fields.k ?? 8;
  }

  async _getRelevantDocuments(query: string): Promise<Document[]> {
    const { hits } = await this.memory.recall(query, { k: this.k });
    return hits.map((h) => new Document({ pageContent: h.record.text, id: h.record.id, metadata: { id: h.record.id, kind: h.record.kind, key: h.record.key, score: h.score, parts: h.parts } }));
  }
}

/**
 * A runnable giving the prompt context for its input (a string, or `input[key]`) under an
 * exact token budget, memories framed as untrusted data — for a `{memory}` slot of a prompt.
 * Recent turns are left out: the chat history supplies them.
 */
export function engramContext(memory: Engram, o: { input?: string; budget?: number; session?: string } = {}) {
  return RunnableLambda.from(async (input: string | Record<string, unknown>) => {
    const query = typeof input === "string" ? input : String(input[o.input ?? "input"] ?? "");
    return (await memory.buildContext(query, { budget: o.budget ?? 900, session: o.session, recentTurns: 0 })).text;
  });
}

function toMessage(r: MemoryRecord): BaseMessage {
  switch (r.source) {
    case "assistant":
      return new AIMessage({ content: r.text, id: r.id });
    case "system":
      return new SystemMessage({ content: r.text, id: r.id });
    case "tool":
      return new ToolMessage({ content: r.text, id: r.id, tool_call_id: r.id });
    default:
      return new HumanMessage({ content: r.text, id: r.id });
  }
}

function toTurn(m: BaseMessage): ChatTurn {
  const roles: Record<string, Role> = { human: "user", ai: "assistant", system: "system", tool: "tool" };
  const role = roles[m.getType()] ?? "user";
  const text = typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" && "text" in c ? String(c.text) : "")).join("\n");
  return { role, text };
}
