/**
 * What {@link Engram.open}, {@link Engram.recall} and {@link Engram.buildContext} take, and
 * the events an `Engram` emits.
 * @module
 */
import type { Embedder } from "./embed/types.js";
import type { EncryptionOptions } from "./encryption.js";
import type { EngramError } from "./errors.js";
import type { Extractor } from "./knowledge/extract/llm.js";
import type { StorageAdapter } from "./storage/types.js";
import type { SyncOptions } from "./sync/client.js";
import type { EncodingName, TableSource } from "./context/tokens.js";
import type { Kind } from "./types.js";

/** Options of {@link Engram.open}. */
export interface OpenOptions {
  /** The user whose memory this is. Every call is scoped to this user. */
  user: string;
  /** The tenant (default `"default"`). */
  tenant?: string;
  /** The agent, when several agents share a user. */
  agent?: string;
  /** Where state is persisted (default: in memory). */
  storage?: StorageAdapter;
  /** Key prefix in storage (default: `engram/<tenant>/<user>/`). */
  namespace?: string;
  /**
   * Turns texts into vectors. Default: {@link defaultEmbedder} (a static table in the wasm
   * core, offline; its table loads on first use). `false`: no vectors — recall then uses
   * words, keys and the graph only.
   */
  embedder?: Embedder | false;
  /** Exact token counting: the encoding and where its table comes from, or `false` for estimates only. */
  tokenizer?: { encoding?: EncodingName; table?: TableSource } | false;
  /**
   * Core configuration overrides (see the core's `Config`), applied on every open — also to a
   * store restored from its snapshot, whose saved settings they replace. A store that holds
   * vectors keeps their `precision` ("Int8" or "F32"); naming another is `INVALID_INPUT`, as are
   * NaN or negative weights, `rrfK` and thresholds.
   */
  config?: Record<string, unknown>;
  /** Write a snapshot every this many op batches (default 100). */
  compactEvery?: number;
  /** Embed chat turns so they are recalled by meaning too (default true when an embedder is set). */
  embedTurns?: boolean;
  /** The clock (default `Date.now`). */
  now?: () => number;
  /**
   * An LLM extractor: `observe` then also learns from the turns in the background, and with
   * `consolidation.episodes`, an ended session's episode is rewritten by its `summarize`.
   */
  extractor?: Extractor;
  /**
   * Consolidation (off by default): compression of old turns into the session's rolling
   * summary, and episode summaries of ended sessions (see {@link ConsolidationOptions}).
   * Given to the core on every open and reload — settings are not in snapshots, so every
   * instance that should consolidate must be given them. Invalid numbers are `INVALID_INPUT`.
   */
  consolidation?: ConsolidationOptions;
  /**
   * 32 bytes only the user holds: PII is then sealed into records (reversible with
   * {@link Engram.reveal}) instead of replaced irreversibly. Kept in memory, never stored.
   */
  redactionKey?: Uint8Array;
  /**
   * Encryption at rest with a key the user holds (AES-256-GCM, WebCrypto): every value
   * written to `storage` is encrypted, and with `sync` the origin receives the text (and
   * embedding) of non-public memories and session summaries only as ciphertext. Ids,
   * stamps, scopes, kinds, fact keys, tags, graph edges and attributes and session state
   * stay readable: they drive last-writer-wins, forget and the origin's views. A store
   * opened with the wrong key, an encrypted store opened without one, and a plaintext
   * store opened with one are `ENCRYPTION_KEY` errors; nothing is changed.
   */
  encryption?: EncryptionOptions;
  /**
   * Sync with an engram origin: local changes are kept in a persisted outbox until the
   * origin accepts them, and changes from the user's other devices are pulled and applied.
   * Background by default; {@link Engram.sync} syncs now.
   */
  sync?: SyncOptions;
}

/**
 * The core's `Consolidation` settings (camelCase). Absent or null parts are off; absent
 * fields take the core's defaults. Fields this SDK does not name are passed to the core as
 * they are (its newer settings).
 */
export interface ConsolidationOptions {
  /** Fold the oldest turns past the recent window into the rolling summary once they exceed a token threshold. */
  compression?: {
    /** Tokens of unfolded turns past the window (key events aside) above which they fold (default 500). */
    thresholdTokens?: number;
    /** The rolling summary's budget in tokens (default 250, at least 8). */
    summaryTokens?: number;
    /** A turn above this importance is a key event and stays in the window (default 0.7). */
    keyImportance?: number;
    /** Key events kept at most (default 10). */
    keyEvents?: number;
    /** Folded turns stay recallable as episodic memories (`keep`, default) or are deleted (`remove`). */
    folded?: "keep" | "remove";
  } | null;
  /** Summarise ended (or idle) sessions into `episode` memories citing their turns (`turn:<id>` tags). */
  episodes?: {
    /** The episode's budget in tokens (default 200, at least 8). */
    budgetTokens?: number;
    /** Lines weighing less are left out (default 0.4). */
    minImportance?: number;
  } | null;
  [setting: string]: unknown;
}

/** Options of {@link Engram.recall}. */
export interface RecallOptions {
  k?: number;
  kinds?: Kind[];
  /** Retrieve even when the router classifies the query as small talk. */
  force?: boolean;
}

/** Options of {@link Engram.buildContext}. */
export interface ContextOptions {
  /** Exact token budget of the returned text (default 900). */
  budget?: number;
  /** Include this session's recent turns and summary. */
  session?: string;
  k?: number;
  recentTurns?: number;
  /** Document chunks to include (default 4; 0 for none), in their own `[documents]` section. */
  archivalK?: number;
  /** The share of `budget` document chunks may take at most (default 0.3). */
  archivalShare?: number;
  /** The tenant's procedures rendered as instructions at most (default 8): all of them when there are this many or fewer, else the best matches of the query by words. */
  procedureLimit?: number;
}

/** A change, emitted after the core call returned and its ops were persisted. */
export interface ChangeEvent {
  type: "remember" | "turn" | "forget" | "forget-user" | "import" | "session" | "learn" | "review" | "graph" | "pull" | "document" | "episode" | "procedure" | "profile";
  ids: string[];
}

/**
 * A background task failed (an extractor's answer was rejected, its endpoint failed);
 * nothing was written for it. `episode`: an abstractive summary, the extractive episode stays.
 */
export interface ErrorEvent {
  type: "error";
  task: "learn" | "episode";
  error: EngramError;
}
