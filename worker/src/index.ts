/**
 * engram on Cloudflare Workers: an HTTP memory API for edge agents.
 *
 * The front worker authenticates (the origin's HS256 tokens), bounds and parses the body,
 * and hands the call to the user's Durable Object ({@link UserMemory}), the single writer
 * of that user's memory. It logs one JSON line per request: request id, operation, status,
 * duration, a hash of the user and counts — never memory text.
 *
 * | Method and path            | Operation    | Body / query                                   |
 * |----------------------------|--------------|------------------------------------------------|
 * | `POST /v1/remember`        | remember     | `{ text, kind?, key?, importance?, tags?, … }` or `{ memories: [ … ] }` (≤ 100) |
 * | `POST /v1/observe`         | observe      | `{ session, turns: [{ role, text }] }`         |
 * | `POST /v1/recall`          | recall       | `{ query, k?, kinds?, force? }`                |
 * | `POST /v1/context`         | context      | `{ query, budget, session?, k?, recentTurns? }`|
 * | `GET /v1/memories`         | list         | `?kinds=fact,preference&history=1&limit&offset`|
 * | `DELETE /v1/memories/{id}` | forget       |                                                |
 * | `POST /v1/forget`          | forget-user  |                                                |
 * | `POST /v1/sync`            | sync now     |                                                |
 * | `GET /v1/status`           | status       |                                                |
 * | `GET /healthz`             | (no auth)    |                                                |
 * @module
 */
import type { Op } from "./api.js";
import { AuthError, verify, type User } from "./auth.js";
import type { Env } from "./env.js";
import { HttpError, log, readJson, respond, toReply, userHash, type Reply } from "./http.js";

export { UserMemory } from "./user.js";

const ROUTES: Record<string, Op> = {
  "POST /v1/remember": "remember",
  "POST /v1/observe": "observe",
  "POST /v1/recall": "recall",
  "POST /v1/context": "context",
  "GET /v1/memories": "list",
  "POST /v1/forget": "forget-user",
  "POST /v1/sync": "sync",
  "GET /v1/status": "status",
};

function route(method: string, path: string): { op: Op; args: Record<string, unknown> } | undefined {
  const op = ROUTES[`${method} ${path}`];
  if (op) return { op, args: {} };
  const m = /^\/v1\/memories\/([^/]+)$/.exec(path);
  if (m && method === "DELETE") {
    try {
      return { op: "forget", args: { id: decodeURIComponent(m[1]) } };
    } catch {
      throw new HttpError(400, "BAD_REQUEST", "bad memory id in the path");
    }
  }
  return undefined;
}

function listArgs(url: URL): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  const kinds = url.searchParams.get("kinds");
  if (kinds) a.kinds = kinds.split(",").filter(Boolean);
  const h = url.searchParams.get("history");
  if (h === "1" || h === "true") a.history = true;
  for (const k of ["limit", "offset"]) {
    const v = url.searchParams.get(k);
    if (v !== null) a[k] = /^\d{1,15}$/.test(v) ? Number(v) : v;
  }
  return a;
}

function requestId(req: Request): string {
  const given = req.headers.get("x-request-id");
  return given && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : crypto.randomUUID();
}

export default {
  async fetch(req: Request, env: Env): Promise<Response> {
    const started = Date.now();
    const rid = requestId(req);
    const url = new URL(req.url);
    let op: string = "unknown";
    let who: User | undefined;
    let reply: Reply;
    try {
      if (url.pathname === "/healthz" && req.method === "GET") {
        reply = { status: 200, body: { ok: true } };
      } else {
        const r = route(req.method, url.pathname);
        if (!r) throw new HttpError(404, "NOT_FOUND", `no route ${req.method} ${url.pathname}`);
        op = r.op;
        if (!env.ENGRAM_SECRET || env.ENGRAM_SECRET.length < 32) throw new HttpError(500, "MISCONFIGURED", "ENGRAM_SECRET must be set (at least 32 bytes)");
        try {
          who = await verify(req.headers.get("authorization"), env.ENGRAM_SECRET);
        } catch (e) {
          if (e instanceof AuthError) throw new HttpError(401, "UNAUTHORIZED", e.message);
          throw e;
        }
        let args = r.args;
        if (req.method === "POST") {
          const body = await readJson(req, Number(env.ENGRAM_MAX_BODY) || 65_536);
          if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "BAD_REQUEST", "the body must be a JSON object");
          args = body as Record<string, unknown>;
        } else if (op === "list") args = listArgs(url);
        const stub = env.USERS.get(env.USERS.idFromName(JSON.stringify([who.tenant, who.user])));
        reply = (await stub.handle({ op: r.op, who, args, requestId: rid })) as Reply;
      }
    } catch (e) {
      reply = toReply(e);
      if (!(e instanceof HttpError)) log({ requestId: rid, op, error: e instanceof Error ? e.name : "unknown" });
    }
    const body = reply.body as { error?: { code?: string } } | undefined;
    log({
      requestId: rid,
      op,
      status: reply.status,
      ms: Date.now() - started,
      user: who ? await userHash(who.tenant, who.user) : null,
      ...(body?.error?.code ? { code: body.error.code } : {}),
      ...(reply.log ?? {}),
    });
    return respond(reply, rid);
  },
} satisfies ExportedHandler<Env>;
