/**
 * The worker's bindings and variables (see `wrangler.toml` at the repository root).
 * @module
 */
import type { UserObject } from "./api.js";

export interface Env {
  /** One Durable Object per user: the single writer of that user's memory. */
  USERS: DurableObjectNamespace<UserObject>;
  /** Workers Static Assets holding the token and embedding tables (never in the bundle). */
  ASSETS: Fetcher;
  /** D1, used as the users' store when `ENGRAM_STORE = "d1"` (still written only by each user's object). */
  DB?: D1Database;
  /** Workers AI, used when `ENGRAM_EMBEDDER = "workers-ai"` or `ENGRAM_EXTRACTOR_MODEL` is set. */
  AI?: { run(model: string, input: Record<string, unknown>): Promise<unknown> };
  /** HMAC key of the HS256 bearer tokens; the origin's `ENGRAM_SECRET` (a secret, ≥ 32 bytes). */
  ENGRAM_SECRET: string;
  /** The origin's base URL; unset: no sync. */
  ENGRAM_ORIGIN?: string;
  /** `"do"` (default: the object's own SQLite storage) or `"d1"`. */
  ENGRAM_STORE?: string;
  /** `"static"` (default: the static table from ASSETS), `"workers-ai"`, or `"none"`. */
  ENGRAM_EMBEDDER?: string;
  /** Workers AI embedding model (default `@cf/baai/bge-small-en-v1.5`, 384 d). */
  ENGRAM_AI_EMBED_MODEL?: string;
  /** Workers AI chat model for LLM extraction in `observe`; unset: rules only. */
  ENGRAM_EXTRACTOR_MODEL?: string;
  /** Largest request body in bytes (default 65536). */
  ENGRAM_MAX_BODY?: string;
  /** Write a snapshot every this many op batches (default 100). */
  ENGRAM_COMPACT_EVERY?: string;
  /** Milliseconds between a write and its background sync (default 250). */
  ENGRAM_SYNC_DEBOUNCE_MS?: string;
  /** Milliseconds between background pulls while the user is active (default 30000). */
  ENGRAM_SYNC_INTERVAL_MS?: string;
}
