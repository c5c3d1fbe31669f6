/**
 * Consolidation in the SDK: ending a session (its episode, written by the core through the
 * ordinary ops), episodes of sessions idle past their TTL (by the sweep, or by the core when
 * a turn joins one: the commit names it, see `Writer`), and — when the memory has an
 * extractor that can `summarize` — the abstractive rewrite of each new episode: one request
 * in the background, never awaited by the caller, its answer validated (`parseEpisode`)
 * and then checked and redacted by the core as any write before it replaces the
 * extractive text (same id, same `turn:<id>` cites, source `llm-extracted`). A failed or
 * rejected answer leaves the extractive episode and becomes an `error` event of task
 * `episode`.
 * @module
 */
import { EngramError, EngramInputError, EngramIoError } from "../errors.js";
import { parseEpisode } from "../knowledge/extract/episode.js";
import type { Extractor } from "../knowledge/extract/llm.js";
import type { Learner } from "../knowledge/learn.js";
import type { Lifetime } from "../store/lifetime.js";
import type { ChatTurn, MemoryRecord, Role, Scope, Written } from "../types.js";

/** What ending a session did. */
export interface EndReport {
  /** The session's episode, when one was written (episodes on, something worth a line, not already up to date). */
  episode: string | null;
  /** How many `session`-tier memories of the session were deleted. */
  deleted: number;
}

/** The most characters of turns sent to the extractor for one episode (the newest kept). */
const MAX_TURN_CHARS = 24_000;
const ROLES: readonly string[] = ["user", "assistant", "tool", "system"];

/** What an abstractive run needs to know about the episode it rewrites (made inside the write that wrote the episode). */
export interface Draft {
  session: string;
  id: string;
  text: string;
  updatedAt: number;
  turns: ChatTurn[];
}

export class Episodes {
  constructor(
    private readonly life: Lifetime,
    private readonly scope: Scope,
    /** Runs a background task (`Learner.spawn`: `idle()` waits for it, a failure is an `error` event). */
    private readonly spawn: Learner["spawn"],
    private readonly extractor: Extractor | undefined,
  ) {}

  /**
   * End `session`: its episode first (with `consolidation.episodes`), then its state goes
   * and its `session`-tier memories are deleted — one write, persisted like every write
   * (emits `episode` when one was written, else `session`). The abstractive rewrite, if
   * any, starts after and is not awaited (`idle()` waits for it).
   */
  async end(session: string): Promise<EndReport> {
    const at = this.at(session);
    const { report, draft } = await this.life.mutate("session", async () => {
      const now = this.life.now();
      const turns = this.life.handle.recentTurns(at, 0xffff_ffff) as MemoryRecord[];
      const episode = (this.life.handle.writeEpisode(at, now) as string | undefined) ?? null;
      const deleted = this.life.handle.endSession(at, now);
      const value = { report: { episode, deleted }, draft: episode ? this.draft(session, episode, turns, now) : undefined };
      return { value, ids: episode ? [episode] : [], events: [{ type: episode ? "episode" : "session", ids: episode ? [episode] : [] }] };
    });
    if (draft) this.abstract(draft);
    return report;
  }

  /** Write the episodes of this user's sessions idle past their TTL; their ids (each then rewritten abstractively, as `end`). */
  async idle(): Promise<string[]> {
    const { ids, drafts } = await this.life.mutate("episode", async () => {
      const now = this.life.now();
      const ids = this.life.handle.consolidateIdle(this.scope, now);
      const drafts: Draft[] = [];
      for (const r of this.episodes(now).filter((r) => ids.includes(r.id))) {
        const session = r.scope.session;
        if (session) drafts.push(this.draft(session, r.id, this.life.handle.recentTurns(this.at(session), 0xffff_ffff) as MemoryRecord[], now));
      }
      return { value: { ids, drafts }, ids };
    });
    drafts.forEach((d) => this.abstract(d));
    return ids;
  }

  /**
   * Inside the write that appended turns to `session`: when its commit first wrote the
   * session's episode (the session had idled past its TTL), the draft of its rewrite — the
   * episode and the turns before the new ones. Start it with {@link Episodes.abstract}
   * once the write is durable.
   */
  drafted(session: string, written: Written): Draft | undefined {
    if (!written.episode) return undefined;
    const now = this.life.now();
    const fresh = new Set(written.turns);
    const turns = (this.life.handle.recentTurns(this.at(session), 0xffff_ffff) as MemoryRecord[]).filter((t) => !fresh.has(t.id));
    return this.draft(session, written.episode, turns, now);
  }

  private at(session: string): Scope {
    return { ...this.scope, session };
  }

  private episodes(now: number): MemoryRecord[] {
    return this.life.handle.list(this.scope, { kinds: ["episode"] }, now) as MemoryRecord[];
  }

  private draft(session: string, id: string, turns: MemoryRecord[], now: number): Draft {
    const ep = this.episodes(now).find((r) => r.id === id);
    const sent: ChatTurn[] = [];
    let chars = 0;
    for (const t of [...turns].reverse()) {
      chars += t.text.length;
      if (chars > MAX_TURN_CHARS) break;
      sent.unshift({ role: (ROLES.includes(t.source) ? t.source : "user") as Role, text: t.text });
    }
    return { session, id, text: ep?.text ?? "", updatedAt: ep?.updatedAt ?? now, turns: sent };
  }

  /** One request for a summary in the background; its answer replaces the episode's text if the episode is unchanged. */
  abstract(d: Draft): void {
    const extractor = this.extractor;
    if (!extractor?.summarize) return;
    this.spawn("episode", async () => {
      let answer: unknown;
      try {
        answer = await extractor.summarize!({ session: d.session, turns: d.turns, episode: d.text });
      } catch (e) {
        throw e instanceof EngramError ? e : new EngramIoError("EXTRACTOR", `extractor ${extractor.id} failed to summarise: ${String(e)}`, { cause: e });
      }
      const summary = parseEpisode(answer);
      await this.life.mutate("episode", async () => {
        const now = this.life.now();
        // The session went on (a newer episode), or the episode was forgotten: the summary is stale.
        const ep = this.episodes(now).find((r) => r.id === d.id);
        if (!ep || ep.updatedAt !== d.updatedAt || ep.text !== d.text) {
          throw new EngramInputError("EXTRACTION_REJECTED", `episode summary rejected: episode ${d.id} changed since it was summarised`);
        }
        this.life.handle.rewriteEpisode(this.at(d.session), summary, now);
        return { value: undefined, ids: [d.id] };
      });
    });
  }
}
