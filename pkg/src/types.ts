/**
 * Plain objects that cross the boundary. Field names match the core's (camelCase);
 * times are milliseconds since the Unix epoch.
 * @module
 */

/** What a memory is. */
export type Kind = "message" | "fact" | "preference" | "event" | "episode" | "instruction" | "task" | "pattern" | "summary";
/** Which layer a memory lives in. */
export type Layer = "working" | "episodic" | "semantic" | "archival" | "procedural";
/** Who produced a memory. Only `system` instructions are rendered as instructions. */
export type Source = "system" | "user" | "assistant" | "tool" | "rule-extracted" | "llm-extracted";
/** Privacy tier. */
export type Sensitivity = "public" | "session" | "personal";
/** A chat role. */
export type Role = "user" | "assistant" | "tool" | "system";

/** A supersession key: a newer fact with the same key replaces the older one. */
export interface FactKey {
  subject: string;
  attribute: string;
}

/** The scope of a memory. */
export interface Scope {
  tenant: string;
  user: string;
  agent?: string | null;
  session?: string | null;
}

/** A memory to remember. Only `text` is required. */
export interface MemoryInput {
  text: string;
  kind?: Kind;
  layer?: Layer;
  key?: FactKey;
  importance?: number;
  confidence?: number;
  source?: Source;
  tags?: string[];
  sensitivity?: Sensitivity;
  ttlMs?: number;
  id?: string;
  /** A precomputed embedding; otherwise the configured embedder is used. */
  embedding?: Float32Array;
}

/** A stored memory. */
export interface MemoryRecord {
  id: string;
  scope: Scope;
  kind: Kind;
  layer: Layer;
  text: string;
  key: FactKey | null;
  importance: number;
  confidence: number;
  source: Source;
  tags: string[];
  createdAt: number;
  updatedAt: number;
  lastAccessedAt: number;
  timesSeen: number;
  validFrom: number;
  validTo: number | null;
  supersededBy: string | null;
  expiresAt: number | null;
  sensitivity: Sensitivity;
}

/** A kind of PII the write path redacts. */
export type PiiKind = "secret" | "api-key" | "china-id" | "card" | "iban" | "email" | "phone" | "ip";

/** What `remember` did. `dropped`: the PII policy of the memory's tier refused it (`id` is empty). */
export interface WriteOutcome {
  id: string;
  action: "inserted" | "duplicate" | "reinforced" | "dropped";
  similarity: number | null;
  superseded: string[];
  /** PII kinds replaced by placeholders (or, when dropped, found). */
  redacted: PiiKind[];
}

/** Why a memory was recalled. */
export interface ScoreParts {
  /** [1-based rank, cosine] in the vector channel. */
  vector: [number, number] | null;
  /** [1-based rank, BM25 score] in the lexical channel. */
  lexical: [number, number] | null;
  key: number | null;
  fused: number;
  decay: number;
  importance: number;
  weight: number;
}

/** One recalled memory. */
export interface Hit {
  record: MemoryRecord;
  score: number;
  parts: ScoreParts;
}

/** The router's decision. */
export type Route = "retrieve" | "small-talk" | "empty";

/** The result of `recall`. */
export interface Recall {
  route: Route;
  hits: Hit[];
}

/** The result of `buildContext`. */
export interface Context {
  text: string;
  tokens: number;
  /** True when `tokens` is an exact tiktoken count, false while the table is still loading. */
  exact: boolean;
  included: string[];
  dropped: string[];
  route: Route;
}

/** A token count and whether it is exact. */
export interface TokenCount {
  tokens: number;
  exact: boolean;
}

/** Which memories `list` returns. */
export interface ListFilter {
  kinds?: Kind[];
  includeSuperseded?: boolean;
  includeExpired?: boolean;
}

/** A chat turn. */
export interface ChatTurn {
  role: Role;
  text: string;
}
