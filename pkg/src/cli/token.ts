/**
 * Mint an origin token: the HS256 JWT `engram-origin` checks (`crates/engram-origin/src/auth.rs`),
 * header `{"alg":"HS256","typ":"JWT"}`, claims `{tenant, sub, exp}` (seconds), base64url
 * without padding, signed with `ENGRAM_SECRET` (at least 32 bytes, as the origin requires).
 * Mint tokens in your backend; this helper is for development and scripts.
 * @module
 */
import { createHmac } from "node:crypto";
import { EngramInputError } from "../entrypoints/node.js";

/** What a token names and how long it lives. */
export interface MintOptions {
  secret: string;
  tenant: string;
  user: string;
  /** Lifetime in seconds (default 3600, like `engram-origin token`). */
  ttlSeconds?: number;
  /** Seconds since the epoch (default now). */
  now?: number;
}

/** A signed token for `user` of `tenant`. Throws `INVALID_INPUT` for a short secret or a bad id. */
export function mintToken(o: MintOptions): string {
  if (Buffer.byteLength(o.secret ?? "") < 32) throw new EngramInputError("INVALID_INPUT", "ENGRAM_SECRET must be at least 32 bytes (the origin refuses shorter ones)");
  checkId("tenant", o.tenant);
  checkId("user", o.user);
  const ttl = o.ttlSeconds ?? 3600;
  if (!Number.isSafeInteger(ttl) || ttl <= 0) throw new EngramInputError("INVALID_INPUT", `ttl must be a positive whole number of seconds, got ${ttl}`);
  const exp = (o.now ?? Math.floor(Date.now() / 1000)) + ttl;
  const b64 = (s: string) => Buffer.from(s).toString("base64url");
  const signed = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(JSON.stringify({ tenant: o.tenant, sub: o.user, exp }))}`;
  return `${signed}.${createHmac("sha256", o.secret).update(signed).digest("base64url")}`;
}

/** The origin's rule for ids (`Scope::validate`): non-empty, at most 256 bytes, no control characters. */
function checkId(what: string, v: string): void {
  if (typeof v !== "string" || v.length === 0) throw new EngramInputError("INVALID_INPUT", `${what} must not be empty`);
  if (Buffer.byteLength(v) > 256) throw new EngramInputError("INVALID_INPUT", `${what} is longer than 256 bytes`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(v)) throw new EngramInputError("INVALID_INPUT", `${what} must not contain control characters`);
}
