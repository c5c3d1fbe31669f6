/**
 * The {@link SessionHooks} of one `Engram`: a session's state, turns and summary, read and
 * written in the user's scope narrowed to the session.
 * @module
 */
import type { Episodes } from "../consolidate/episodes.js";
import { EngramInputError } from "../errors.js";
import type { Lifetime } from "./lifetime.js";
import type { SessionHooks, SessionMetadata } from "./session.js";
import type { MemoryRecord, Role, Scope } from "../types.js";
import { checkText, type Writer } from "../write/remember.js";

/** The state key a session's metadata is stored under when it ends. */
export const METADATA_KEY = "engram.metadata";

export function sessionHooks(life: Lifetime, writer: Writer, scope: Scope, episodes: Episodes): SessionHooks {
  const at = (session: string): Scope => ({ ...scope, session });
  return {
    async set(session: string, key: string, value: string): Promise<void> {
      await life.mutate("session", async () => {
        life.handle.sessionSet(at(session), key, value, life.now());
        return { value: undefined, ids: [] };
      });
    },
    async state(session: string): Promise<Record<string, string>> {
      await life.ready();
      return life.call(() => life.handle.sessionState(at(session), life.now()) as Record<string, string>);
    },
    async append(session: string, role: Role, text: string): Promise<string> {
      checkText(text, "text");
      const [id] = await writer.turns(session, [{ role, text }]);
      return id;
    },
    async recent(session: string, n?: number): Promise<MemoryRecord[]> {
      // The binding takes a u32 and its glue converts with `n >>> 0` (-1 would become 2^32 - 1,
      // 1.5 would become 1), so the value is checked here, before it is converted.
      if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) {
        throw new EngramInputError("INVALID_INPUT", `recent(n): n must be a non-negative integer, got ${typeof n === "number" ? n : typeof n}`);
      }
      await life.ready();
      // Any n past u32 means every turn.
      const max = n === undefined ? undefined : Math.min(n, 0xffff_ffff);
      return life.call(() => life.handle.recentTurns(at(session), max) as MemoryRecord[]);
    },
    async setSummary(session: string, text: string): Promise<void> {
      checkText(text, "summary");
      await life.mutate("session", async () => {
        life.handle.setSummary(at(session), text, life.now());
        return { value: undefined, ids: [] };
      });
    },
    metadata: async (session: string) => {
      await life.ready();
      return life.call(() => life.handle.sessionMetadata(at(session)) as SessionMetadata);
    },
    async end(session: string) {
      // Stored before the state goes: the origin keeps it in the session's `metadata`.
      const meta = await this.metadata(session);
      if (meta.turns > 0) await this.set(session, METADATA_KEY, JSON.stringify(meta));
      return episodes.end(session);
    },
  };
}
