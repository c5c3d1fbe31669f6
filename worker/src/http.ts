/**
 * JSON in and out: errors as `{ error: { code, message }, requestId }` (the origin's shape,
 * the SDK's codes), bounded bodies, and one structured log line per request that never
 * holds memory text.
 * @module
 */
import { EngramDataError, EngramError, EngramFatalError, EngramInputError, EngramIoError } from "engram";

/** An error with an HTTP status and a stable code. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A plain result crossing from the user's object back to the front worker. */
export interface Reply {
  status: number;
  body: unknown;
  /** Counts for the log line (never text). */
  log?: Record<string, number | string | boolean>;
}

/** The status and code of any error thrown while serving a request. */
export function toReply(e: unknown): Reply {
  if (e instanceof HttpError) return { status: e.status, body: { error: { code: e.code, message: e.message } } };
  if (e instanceof EngramError) {
    const status =
      e.code === "TEXT_TOO_LARGE" ? 413
      : e instanceof EngramInputError ? 400
      : e.code === "SYNC_UNAUTHORIZED" || e.code === "SYNC_FORBIDDEN" || e.code === "SYNC_REJECTED" || e.code === "SYNC_BODY" ? 502
      : e instanceof EngramIoError ? 503
      : e instanceof EngramDataError || e instanceof EngramFatalError ? 500
      : 500;
    return { status, body: { error: { code: e.code, message: e.message } } };
  }
  return { status: 500, body: { error: { code: "INTERNAL", message: "internal error" } } };
}

/** A JSON response carrying the request id. */
export function respond(r: Reply, requestId: string): Response {
  const body = r.body && typeof r.body === "object" && "error" in (r.body as object) ? { ...(r.body as object), requestId } : r.body;
  return new Response(JSON.stringify(body), {
    status: r.status,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
  });
}

/** The request body as JSON, refusing more than `max` bytes (declared or streamed). */
export async function readJson(req: Request, max: number): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > max) throw new HttpError(413, "PAYLOAD_TOO_LARGE", `request body larger than ${max} bytes`);
  const reader = req.body?.getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.byteLength;
      if (n > max) {
        await reader.cancel();
        throw new HttpError(413, "PAYLOAD_TOO_LARGE", `request body larger than ${max} bytes`);
      }
      parts.push(value);
    }
  }
  if (n === 0) return {};
  const bytes = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    throw new HttpError(400, "BAD_REQUEST", "the body is not UTF-8 JSON");
  }
}

/** A short, stable, non-reversible name for a user in logs. */
export async function userHash(tenant: string, user: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${tenant}\u0000${user}`)));
  return Array.from(d.subarray(0, 6), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One JSON log line: ids, operation, status, timings and counts — never memory text. */
export function log(fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ t: new Date().toISOString(), ...fields }));
}
