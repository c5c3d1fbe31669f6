/**
 * Sync with an engram origin: push the outbox (local op batches, persisted until the
 * origin accepts them), pull the batches after the persisted cursor, apply them. The pull
 * also reads the tenant's partitions — its procedures and its library, the operator's,
 * read-only for a user's token — each after a persisted cursor of its own
 * ({@link TENANT_LOGS}): each partition's log at the origin is numbered on its own. Safe to
 * repeat at any point: the origin recognises a resent batch by its id and applying an op
 * twice changes nothing. In the background it runs after writes and on an interval, and
 * retries failures with exponential backoff and full jitter.
 * @module
 */
import { EngramError, EngramInputError, EngramIoError } from "../errors.js";
import type { OutboxBatch } from "../store/persist.js";
import { decodeFrames, encodeFrames } from "./frames.js";

/** Where and how to sync. */
export interface SyncOptions {
  /** The origin's base URL, e.g. `https://memory.example.com`. */
  url: string;
  /** A bearer token naming this user (HS256 JWT from your backend), or a function returning one (called per request, so it can refresh). */
  token: string | (() => string | Promise<string>);
  /** Sync in the background: after writes (debounced) and every `intervalMs` (default 30 s). Default true. */
  background?: boolean;
  intervalMs?: number;
  /** Wait this long after a write before syncing it (default 250 ms). */
  debounceMs?: number;
  /** First retry delay and its cap (defaults 500 ms and 60 s). */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Most outbox batches per request (default 64). */
  batchesPerRequest?: number;
  /** Most bytes of batches per request (default 4 MiB; one larger batch still goes alone). */
  bytesPerRequest?: number;
  /** The HTTP client (default the global `fetch`). */
  fetch?: typeof fetch;
  /** Randomness for jitter, in [0, 1) (default `Math.random`). */
  random?: () => number;
  /** Abort a request after this long (default 30 s). */
  timeoutMs?: number;
}

/** What one `sync()` did. */
export interface SyncReport {
  /** Local batches the origin accepted (including resends it already had). */
  pushed: number;
  /** Of `pushed`, batches the origin already had (resent after a lost answer). */
  duplicates: number;
  /** Batches received and applied. */
  pulled: number;
  /** Ops in the batches received. */
  pulledOps: number;
  /** The origin's ops refused as older than a forget of this user. */
  refused: number;
  /** The persisted cursor after this sync. */
  cursor: number;
  /** The persisted cursor of the tenant's procedures after this sync. */
  proceduresCursor: number;
  /** The persisted cursor of the tenant's library after this sync. */
  libraryCursor: number;
  /** Round trips made. */
  requests: number;
}

/** A sync finished (background or explicit). */
export interface SyncEvent {
  type: "sync";
  report: SyncReport;
}

/** A background sync failed; it is retried after `retryInMs`. */
export interface SyncErrorEvent {
  type: "sync-error";
  error: EngramError;
  attempt: number;
  retryInMs: number | null;
}

/** What the client needs from its `Engram`. */
export interface SyncHooks {
  outbox(max: number): Promise<OutboxBatch[]>;
  accepted(seqs: number[]): Promise<void>;
  /** Apply and persist received batches (serialised with local writes); returns ops applied. */
  apply(batches: Uint8Array[]): Promise<number>;
  /** The persisted cursors: the user's log and each tenant partition's log. */
  cursor(): Promise<Cursors>;
  setCursor(c: Cursors): Promise<void>;
  replica: number;
  emit(e: SyncEvent | SyncErrorEvent): void;
}

/**
 * The tenant's partitions a user's replica pulls read-only besides its own log: each is
 * `<name>_after=<cursor>` in the request and `x-engram-<name>-cursor` in the answer.
 */
export const TENANT_LOGS = ["procedures", "library"] as const;
export type TenantLog = (typeof TENANT_LOGS)[number];

/** Where the last pull ended in each log the origin serves this store. */
export type Cursors = { cursor: number } & Record<TenantLog, number>;

const REPORTED = { procedures: "proceduresCursor", library: "libraryCursor" } as const satisfies Record<TenantLog, keyof SyncReport>;

/** Status codes worth retrying: rate limited, overloaded, down. */
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

export class SyncClient {
  private running: Promise<SyncReport> | undefined;
  private again = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private stopped = false;

  constructor(
    private readonly opts: SyncOptions,
    private readonly hooks: SyncHooks,
  ) {
    if (typeof opts?.url !== "string" || !/^https?:\/\//.test(opts.url)) {
      throw new EngramInputError("INVALID_INPUT", "sync.url must be an http(s) URL");
    }
    if (typeof opts.token !== "string" && typeof opts.token !== "function") {
      throw new EngramInputError("INVALID_INPUT", "sync.token must be a string or a function returning one");
    }
  }

  /** Sync now; concurrent calls share one run (and a call during a run schedules one more). */
  sync(): Promise<SyncReport> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = this.runOnce().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.schedule(0);
      }
    });
    this.running = run;
    return run;
  }

  /** Start background sync (no-op when `background: false`). */
  start(): void {
    if (this.opts.background === false || this.stopped) return;
    this.schedule(0);
  }

  /** A local write happened: sync it soon. */
  poke(): void {
    if (this.opts.background === false || this.stopped || this.attempt > 0) return;
    this.schedule(this.opts.debounceMs ?? 250);
  }

  /** Stop background work and wait for a run in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** The delay before retry `attempt` (1-based): full jitter over an exponential cap. */
  backoffMs(attempt: number): number {
    const base = this.opts.backoff?.baseMs ?? 500;
    const max = this.opts.backoff?.maxMs ?? 60_000;
    const cap = Math.min(max, base * 2 ** Math.min(attempt - 1, 30));
    return Math.floor((this.opts.random ?? Math.random)() * cap);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A round is in flight (a slow origin, or an explicit sync()): it runs again when it
      // ends. Joining it would count its one failure once per timer that fired meanwhile.
      if (this.running) {
        this.again = true;
        return;
      }
      this.sync().then(
        () => {
          this.attempt = 0;
          // A round asked for while this one ran is already scheduled: keep it.
          if (!this.timer) this.schedule(this.opts.intervalMs ?? 30_000);
        },
        (error: EngramError) => {
          this.attempt++;
          // The network and an overloaded origin heal; a refused token heals only if we can get a new one.
          const retryable =
            error.code === "SYNC_NETWORK" || error.code === "SYNC_UNAVAILABLE" || (error.code === "SYNC_UNAUTHORIZED" && typeof this.opts.token === "function");
          const wait = retryable ? this.backoffMs(this.attempt) : null;
          this.hooks.emit({ type: "sync-error", error, attempt: this.attempt, retryInMs: wait });
          if (wait !== null) this.schedule(wait);
        },
      );
    }, ms);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private async runOnce(): Promise<SyncReport> {
    const start = await this.hooks.cursor();
    const report: SyncReport = { pushed: 0, duplicates: 0, pulled: 0, pulledOps: 0, refused: 0, cursor: start.cursor, proceduresCursor: start.procedures, libraryCursor: start.library, requests: 0 };
    const at: Cursors = { ...start };
    const per = this.opts.batchesPerRequest ?? 64;
    for (;;) {
      const waiting = await this.hooks.outbox(per);
      // Stay under the origin's body limit (8 MiB by default): a large batch (the first
      // sync's seed) goes in a request of its own, the rest waits for the next round trip.
      const outbox = underBytes(waiting, this.opts.bytesPerRequest ?? 4 * 1024 * 1024);
      // Each batch keeps the id its writer gave it, so a resend after a restart (a new
      // replica id) is still recognised by the origin.
      const frames = outbox.map((b) => ({ id: b.id, ops: b.bytes }));
      const res = await this.request(encodeFrames(frames), at);
      report.requests++;
      // The origin stored them: they leave the outbox before anything else can fail.
      await this.hooks.accepted(outbox.map((b) => b.seq));
      report.pushed += outbox.length;
      report.refused += Number(res.headers.get("x-engram-refused") ?? 0);
      report.duplicates += Number(res.headers.get("x-engram-duplicates") ?? 0);
      const pulled = decodeFrames(new Uint8Array(await res.arrayBuffer()));
      if (pulled.length > 0) report.pulledOps += await this.hooks.apply(pulled.map((f) => f.ops));
      report.pulled += pulled.length;
      const cursor = Number(res.headers.get("x-engram-cursor"));
      if (!Number.isSafeInteger(cursor) || cursor < report.cursor) {
        throw new EngramIoError("SYNC_BODY", `the origin answered a bad cursor ${res.headers.get("x-engram-cursor")}`);
      }
      const next: Cursors = { ...at, cursor };
      for (const log of TENANT_LOGS) {
        // An origin without that partition for users (or an operator's token) answers none: keep ours.
        const header = res.headers.get(`x-engram-${log}-cursor`);
        const n = header === null ? at[log] : Number(header);
        if (!Number.isSafeInteger(n) || n < at[log]) throw new EngramIoError("SYNC_BODY", `the origin answered a bad ${log} cursor ${header}`);
        next[log] = n;
      }
      if (cursor !== at.cursor || TENANT_LOGS.some((log) => next[log] !== at[log])) {
        Object.assign(at, next);
        report.cursor = cursor;
        for (const log of TENANT_LOGS) report[REPORTED[log]] = next[log];
        await this.hooks.setCursor({ ...next });
      }
      const more = res.headers.get("x-engram-more") === "1";
      if (!more && waiting.length < per && outbox.length === waiting.length) break;
    }
    this.hooks.emit({ type: "sync", report });
    return report;
  }

  private async request(body: Uint8Array, at: Cursors): Promise<Response> {
    const token = typeof this.opts.token === "function" ? await this.opts.token() : this.opts.token;
    const f = this.opts.fetch ?? fetch;
    const tenant = TENANT_LOGS.map((log) => `&${log}_after=${at[log]}`).join("");
    const url = `${this.opts.url.replace(/\/+$/, "")}/v1/sync?after=${at.cursor}${tenant}`;
    let res: Response;
    try {
      res = await f(url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-engram-sync" },
        body: body as unknown as BodyInit,
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
      });
    } catch (e) {
      throw new EngramIoError("SYNC_NETWORK", `cannot reach the origin: ${(e as Error).message}`, { cause: e });
    }
    if (res.ok) return res;
    let detail = "";
    try {
      const j = (await res.json()) as { error?: { code?: string; message?: string } };
      detail = `${j.error?.code ?? ""}: ${j.error?.message ?? ""}`;
    } catch {
      // not JSON: the status says enough
    }
    const code = res.status === 401 ? "SYNC_UNAUTHORIZED" : res.status === 403 ? "SYNC_FORBIDDEN" : RETRYABLE.has(res.status) ? "SYNC_UNAVAILABLE" : "SYNC_REJECTED";
    throw new EngramIoError(code, `the origin answered ${res.status} ${detail}`.trim());
  }
}

/** The leading batches whose bytes fit in `max` (always at least one). */
function underBytes(batches: OutboxBatch[], max: number): OutboxBatch[] {
  let bytes = 0;
  let n = 0;
  while (n < batches.length && (n === 0 || bytes + batches[n].bytes.length <= max)) bytes += batches[n++].bytes.length;
  return batches.slice(0, n);
}
