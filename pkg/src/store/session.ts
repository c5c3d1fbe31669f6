import type { EndReport } from "../consolidate/episodes.js";
import { EngramInputError } from "../errors.js";
import type { MemoryRecord, Role } from "../types.js";

/**
 * What a {@link Session} may do with the memory it belongs to, each call naming the
 * session's id (`Engram.session` gives it these; see `session-hooks.ts`).
 */
export interface SessionHooks {
  /** Set a state value (already JSON); refreshes the TTL. */
  set(session: string, key: string, json: string): Promise<void>;
  /** The whole live state, raw JSON strings by key. */
  state(session: string): Promise<Record<string, string>>;
  /** Append a turn; returns its id. */
  append(session: string, role: Role, text: string): Promise<string>;
  /** The last `n` turns (default: the configured window), oldest first. */
  recent(session: string, n?: number): Promise<MemoryRecord[]>;
  /** Replace the rolling summary. */
  setSummary(session: string, text: string): Promise<void>;
  /** End the session (its episode, then its state and `session`-tier memories go). */
  end(session: string): Promise<EndReport>;
  /** The session's metadata, computed by the core from its turns. */
  metadata(session: string): Promise<SessionMetadata>;
}

/** What one session holds (seed 000's `sessions.metadata`), computed by the core from its turns. */
export interface SessionMetadata {
  turns: number;
  userTurns: number;
  /** Tokens of its turns' texts (exact with a rank table loaded). */
  tokens: number;
  exact: boolean;
  /** Facts the user stated in it. */
  facts: number;
  /** The importance of the most important of those facts; 0 when there is none (small talk). */
  importance: number;
  /** The entities its turns name, by how many turns name each. */
  entities: { name: string; mentions: number }[];
  startedAt: number | null;
  lastActivity: number | null;
}

/**
 * Working memory of one session: state with a TTL refreshed on every write, the recent
 * turns, and the rolling summary. Get one with {@link Engram.session}.
 */
export class Session {
  /** @internal */
  constructor(private readonly hooks: SessionHooks, readonly id: string) {}

  /** A state value (JSON), or undefined when unset or the session idled past its TTL. */
  async get<T = unknown>(key: string): Promise<T | undefined> {
    const raw = (await this.state())[key];
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  /**
   * Set a state value (stored as JSON); refreshes the TTL. A value JSON cannot hold (cyclic,
   * a BigInt, `undefined`, a function) is refused with `INVALID_INPUT`.
   */
  async set(key: string, value: unknown): Promise<void> {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (e) {
      throw new EngramInputError("INVALID_INPUT", `session.set(${JSON.stringify(String(key))}): the value is not JSON: ${(e as Error).message}`, { cause: e });
    }
    if (json === undefined) {
      throw new EngramInputError("INVALID_INPUT", `session.set(${JSON.stringify(String(key))}): ${typeof value} is not a JSON value`);
    }
    await this.hooks.set(this.id, key, json);
  }

  /** The whole live state, raw JSON strings by key. */
  async state(): Promise<Record<string, string>> {
    return this.hooks.state(this.id);
  }

  /** Append a turn; returns its id. */
  async append(role: Role, text: string): Promise<string> {
    return this.hooks.append(this.id, role, text);
  }

  /** The last `n` turns (default: the configured window of 12), oldest first. */
  async recent(n?: number): Promise<MemoryRecord[]> {
    return this.hooks.recent(this.id, n);
  }

  /**
   * What this session holds: turns, tokens, facts stated, its importance and the entities
   * it names. Also stored (as the state value `engram.metadata`, and at the origin in the
   * session's `metadata`) when the session ends.
   */
  async metadata(): Promise<SessionMetadata> {
    return this.hooks.metadata(this.id);
  }

  /** Replace the rolling summary. */
  async setSummary(text: string): Promise<void> {
    await this.hooks.setSummary(this.id, text);
  }

  /**
   * End the session. With `consolidation.episodes`, an `episode` memory summarises it first
   * (extractive: its important turns and their facts within a token budget, tagged
   * `turn:<id>` with the turns it cites; with an extractor that can `summarize`, rewritten
   * in the background by one LLM request — `await mem.idle()` to wait). Then its state
   * goes and its `session`-tier memories are deleted. Its turns stay. Persisted and synced
   * like every write.
   */
  async end(): Promise<EndReport> {
    return this.hooks.end(this.id);
  }
}
