/**
 * Sync with an engram origin: push the outbox (local op batches, persisted until the
 * origin accepts them), pull the batches after the persisted cursor, apply them. The pull
 * also reads the tenant's partitions — its procedures and its library, the operator's,
 * read-only for a user's token — each after a persisted cursor of its own
 * ({@link TENANT_LOGS}): each partition's log at the origin is numbered on its own. Safe to
 * repeat at any point: the origin recognises a resent batch by its id and applying an op
 * twice changes nothing. In the background it runs after writes and on an interval, and
 * retries failures with exponential backoff and full jitter; after an error it keeps its
 * interval and the next write wakes it.
 *
 * One batch never stops the rest. A batch larger than a request may carry is split by the
 * core into parts, each sent alone. A batch the origin refuses for what it holds (an op it
 * finds invalid, bytes it cannot read, one op over its body limit) is set aside — quarantined,
 * kept locally with the origin's answer, announced by a `sync-quarantined` event — once
 * the origin has shown it takes a push without it; every later batch then syncs.
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
  /** Batches the origin refused for their content and this sync set aside. */
  quarantined: number;
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

/** A batch the origin refused for what it holds was set aside: later batches sync. */
export interface SyncQuarantineEvent {
  type: "sync-quarantined";
  /** The batch's id (as `quarantined()` lists it). */
  id: string;
  error: EngramError;
}

/**
 * A batch of the outbox as sent: whole, or one part of a batch larger than a request may
 * carry (`part` of `parts`, split by the core at the same ops each time, so a resend is
 * the same part to the origin).
 */
export interface OutgoingBatch extends OutboxBatch {
  part?: number;
  parts?: number;
  /** Set when the stored bytes cannot be prepared for sending (not ops): never sent, set aside. */
  broken?: EngramError;
}

/** What the client needs from its `Engram`. */
export interface SyncHooks {
  /** Up to `max` stored batches, those over `partBytes` split into parts. */
  outbox(max: number, partBytes: number): Promise<OutgoingBatch[]>;
  accepted(seqs: number[]): Promise<void>;
  /** Set a refused batch aside (see {@link SyncQuarantineEvent}). */
  quarantine(seq: number, error: EngramError): Promise<void>;
  /** Apply and persist received batches (serialised with local writes); returns ops applied. */
  apply(batches: Uint8Array[]): Promise<number>;
  /** The persisted cursors: the user's log and each tenant partition's log. */
  cursor(): Promise<Cursors>;
  setCursor(c: Cursors): Promise<void>;
  replica: number;
  emit(e: SyncEvent | SyncErrorEvent | SyncQuarantineEvent): void;
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

/**
 * Answers that refuse what a push holds rather than who sent it or when. A 403 is not one:
 * a token that may not write this store's user refuses every batch, and setting them all
 * aside would hide the mistake — it stays an error and the outbox waits for a right token.
 */
const REFUSED_CONTENT = new Set([400, 413, 422]);

/** The default most bytes of batches per request: half the origin's default body limit. */
const BYTES_PER_REQUEST = 4 * 1024 * 1024;

/** An error the origin answered with its HTTP status (and, for 413, its body limit). */
class OriginAnswer extends EngramIoError {
  constructor(
    code: string,
    message: string,
    readonly status: number,
    readonly maxBody: number | undefined,
  ) {
    super(code, message);
  }
}

export class SyncClient {
  private running: Promise<SyncReport> | undefined;
  private again = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private stopped = false;
  /** A retry after a network or overload error is waiting: writes do not cut it short. */
  private backingOff = false;
  /** The origin's body limit, once a 413 told it (the parts are then cut to fit). */
  private maxBody: number | undefined;

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
    if (this.opts.background === false || this.stopped || this.backingOff) return;
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
          this.backingOff = false;
          // A round asked for while this one ran is already scheduled: keep it.
          if (!this.timer) this.schedule(this.opts.intervalMs ?? 30_000);
        },
        (error: EngramError) => {
          this.attempt++;
          // The network and an overloaded origin heal soon: back off. Anything else (a
          // refused token, an origin that refuses every push) waits for the interval or
          // the next write, which may be the one that heals it (a new token, an upgrade).
          const retryable =
            error.code === "SYNC_NETWORK" || error.code === "SYNC_UNAVAILABLE" || (error.code === "SYNC_UNAUTHORIZED" && typeof this.opts.token === "function");
          this.backingOff = retryable;
          const wait = retryable ? this.backoffMs(this.attempt) : (this.opts.intervalMs ?? 30_000);
          this.hooks.emit({ type: "sync-error", error, attempt: this.attempt, retryInMs: wait });
          // A write during the failed round already asked for the next one (`again`): that
          // round stays, unless the error is one to back off from.
          if (retryable || !this.timer) this.schedule(wait);
        },
      );
    }, ms);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private async runOnce(): Promise<SyncReport> {
    const start = await this.hooks.cursor();
    const report: SyncReport = {
      pushed: 0, duplicates: 0, pulled: 0, pulledOps: 0, refused: 0, cursor: start.cursor,
      proceduresCursor: start.procedures, libraryCursor: start.library, requests: 0, quarantined: 0,
    };
    const at: Cursors = { ...start };
    const per = this.opts.batchesPerRequest ?? 64;
    // After a refused push of several batches: one per request until the refused one is found.
    let single = false;
    // Parts of split batches the origin took in this run (seq → parts taken).
    const taken = new Map<number, number>();
    for (;;) {
      const budget = Math.min(this.opts.bytesPerRequest ?? BYTES_PER_REQUEST, this.maxBody === undefined ? Infinity : Math.floor(this.maxBody / 2));
      // Parts leave room for what encryption adds to the texts (at most a third, plus a
      // few dozen bytes per text) and for the frames around them.
      const stored = await this.hooks.outbox(single ? 1 : per, Math.max(1024, Math.floor(budget / 2)));
      const broken = stored.find((b) => b.broken !== undefined);
      if (broken?.broken) {
        await this.setAside(broken, broken.broken, report);
        continue;
      }
      const waiting = stored.filter((b) => b.part === undefined || b.part >= (taken.get(b.seq) ?? 0));
      // Stay under the origin's body limit (8 MiB by default): a large batch (the first
      // sync's seed, a part) goes in a request of its own, the rest waits for the next one.
      const outbox = underBytes(single ? waiting.slice(0, 1) : waiting, budget);
      // Each batch keeps the id its writer gave it, so a resend after a restart (a new
      // replica id) is still recognised by the origin; a part adds its number.
      const frames = outbox.map((b) => ({ id: b.parts === undefined ? b.id : `${b.id}.${b.part}of${b.parts}`, ops: b.bytes }));
      let res: Response;
      try {
        res = await this.request(encodeFrames(frames), at);
      } catch (e) {
        report.requests++;
        if (!(e instanceof OriginAnswer) || !REFUSED_CONTENT.has(e.status) || outbox.length === 0) throw e;
        if (e.maxBody !== undefined && (this.maxBody === undefined || e.maxBody < this.maxBody)) {
          this.maxBody = e.maxBody; // cut the parts to the limit the origin named, and resend
          continue;
        }
        if (outbox.length > 1) {
          single = true;
          continue;
        }
        // Refused alone. Its content is at fault only if the origin takes a push without
        // it (a token refused for everything must not set every batch aside).
        await this.request(encodeFrames([]), at);
        report.requests++;
        await this.setAside(outbox[0], e, report);
        single = false;
        continue;
      }
      report.requests++;
      // The origin stored them: they leave the outbox before anything else can fail (a
      // split batch when its last part is in).
      await this.hooks.accepted(outbox.filter((b) => b.parts === undefined || b.part === b.parts - 1).map((b) => b.seq));
      for (const b of outbox) if (b.part !== undefined) taken.set(b.seq, b.part + 1);
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
      // Done when nothing more is waiting on either side (in single steps: when the outbox is empty).
      const seqs = new Set(stored.map((b) => b.seq)).size;
      if (!more && outbox.length === waiting.length && (single ? waiting.length === 0 : seqs < per)) break;
    }
    this.hooks.emit({ type: "sync", report });
    return report;
  }

  private async setAside(batch: OutgoingBatch, error: EngramError, report: SyncReport): Promise<void> {
    await this.hooks.quarantine(batch.seq, error);
    report.quarantined++;
    this.hooks.emit({ type: "sync-quarantined", id: batch.id, error });
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
    const limit = Number(res.headers.get("x-engram-max-body") ?? NaN);
    const maxBody = res.status === 413 && Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
    const said = maxBody === undefined ? "" : ` (the origin takes at most ${maxBody} bytes a request)`;
    throw new OriginAnswer(code, `the origin answered ${res.status} ${detail}${said}`.trim(), res.status, maxBody);
  }
}

/** The leading batches whose bytes fit in `max` (always at least one). */
function underBytes(batches: OutgoingBatch[], max: number): OutgoingBatch[] {
  let bytes = 0;
  let n = 0;
  while (n < batches.length && (n === 0 || bytes + batches[n].bytes.length <= max)) bytes += batches[n++].bytes.length;
  return batches.slice(0, n);
}
