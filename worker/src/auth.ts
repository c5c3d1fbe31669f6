/**
 * HS256 bearer tokens in the origin's format: a JWT whose claims are
 * `{ tenant, sub, exp }` (exp in seconds), signed with `ENGRAM_SECRET`. The same token
 * works against the worker and the origin; the worker also mints short-lived ones to sync
 * a user's memory to the origin.
 * @module
 */

/** Who a request is for. */
export interface User {
  tenant: string;
  user: string;
}

/** Why a token was refused (always HTTP 401, code `UNAUTHORIZED`). */
export class AuthError extends Error {}

const LEEWAY_S = 5;
const enc = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function key(secret: string): Promise<CryptoKey> {
  let k = keys.get(secret);
  if (!k) {
    k = crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, k);
  }
  return k;
}

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unB64url(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new AuthError("token part is not base64url");
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "==".slice(0, (4 - (s.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function json(bytes: Uint8Array, what: string): Record<string, unknown> {
  try {
    const v = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new AuthError(`token ${what} is not a JSON object`);
}

/** The user an `Authorization: Bearer <jwt>` header names, or an {@link AuthError}. */
export async function verify(header: string | null, secret: string, nowS = Date.now() / 1000): Promise<User> {
  if (!header) throw new AuthError("missing Authorization header");
  if (!header.startsWith("Bearer ")) throw new AuthError("Authorization must be `Bearer <token>`");
  const parts = header.slice(7).trim().split(".");
  if (parts.length !== 3) throw new AuthError("token is not a JWT (three dot-separated parts)");
  const [h, p, s] = parts;
  if (json(unB64url(h), "header").alg !== "HS256") throw new AuthError("token algorithm must be HS256");
  const ok = await crypto.subtle.verify("HMAC", await key(secret), unB64url(s), enc.encode(`${h}.${p}`));
  if (!ok) throw new AuthError("token signature does not match");
  const c = json(unB64url(p), "claims");
  if (typeof c.tenant !== "string" || typeof c.sub !== "string" || typeof c.exp !== "number" || !Number.isFinite(c.exp)) {
    throw new AuthError("token claims need tenant, sub and a numeric exp");
  }
  if (c.exp + LEEWAY_S < nowS) throw new AuthError("token expired");
  if (!validId(c.tenant) || !validId(c.sub)) throw new AuthError("token names an invalid tenant or user");
  return { tenant: c.tenant, user: c.sub };
}

/** Tenant and user ids as the core checks them: 1–256 bytes, no control characters. */
function validId(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return s.length > 0 && enc.encode(s).length <= 256 && !/[\u0000-\u001f\u007f-\u009f]/.test(s);
}

/** A token for `u` valid for `ttlS` seconds. */
export async function mint(u: User, secret: string, ttlS: number, nowS = Date.now() / 1000): Promise<string> {
  const head = b64url(enc.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));
  const body = b64url(enc.encode(JSON.stringify({ tenant: u.tenant, sub: u.user, exp: Math.floor(nowS) + ttlS })));
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", await key(secret), enc.encode(`${head}.${body}`)));
  return `${head}.${body}.${b64url(sig)}`;
}
