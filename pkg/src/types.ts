/**
 * Plain objects that cross the boundary. Field names match the core's (camelCase);
 * times are milliseconds since the Unix epoch.
 * @module
 */

/** What a memory is. */
export type Kind = "message" | "fact" | "preference" | "event" | "episode" | "instruction" | "task" | "pattern" | "summary" | "chunk" | "document";
/** Which layer a memory lives in. */
export type Layer = "working" | "episodic" | "semantic" | "archival" | "procedural";
/** Who produced a memory. No memory renders as an instruction, whatever its source: only the tenant's procedures (`engram.procedures`) do. */
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
  /** When the statement was made, if before now: a statement older than the key's current value does not replace it. */
  observedAt?: number;
  /** Settle a conflict with the key's current value this way instead of by the policy's rules. */
  onConflict?: Resolution;
  /** A current memory this one replaces (for memories without a key). */
  replaces?: string;
  /** A precomputed embedding; otherwise the configured embedder is used. */
  embedding?: Float32Array;
}

/** How a conflict between a new value and the current value of its key is settled. */
export type Resolution = "keep-new" | "keep-old" | "merge" | "flag";

/** A PII value sealed with the user's redaction key (see `Engram.reveal`). */
export interface SealedValue {
  placeholder: string;
  kind: PiiKind;
  cipher: string;
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
  /** A conflicting value waiting for review: stored, never recalled, until resolved. */
  pendingReview: boolean;
  /** PII sealed with the user's redaction key; empty when redaction is irreversible. */
  sealed: SealedValue[];
}

/** A kind of PII the write path redacts. */
export type PiiKind = "secret" | "api-key" | "china-id" | "card" | "iban" | "email" | "phone" | "ip";

/**
 * What `remember` did. `dropped`: the PII policy of the memory's tier refused it (`id` is
 * empty). `rejected`: it lost a conflict and is kept for audit only. `flagged`: it waits for review.
 */
export interface WriteOutcome {
  id: string;
  action: "inserted" | "duplicate" | "reinforced" | "dropped" | "rejected" | "flagged";
  similarity: number | null;
  superseded: string[];
  /** PII kinds replaced by placeholders (or, when dropped, found). */
  redacted: PiiKind[];
  /** How a conflict with the key's current value was settled, if there was one. */
  conflict: Resolution | null;
}

/** Why a memory was recalled. */
export interface ScoreParts {
  /** [1-based rank, cosine] in the vector channel. */
  vector: [number, number] | null;
  /** [1-based rank, BM25 score] in the lexical channel. */
  lexical: [number, number] | null;
  /** 1-based rank in the exact-key channel. */
  key: number | null;
  /** 1-based rank in the graph channel (records linked to entities the query names). */
  graph: number | null;
  /** 1-based rank in the date channel (memories written within the period the query names, e.g. "on May 3, 2023"). */
  date: number | null;
  /** Reciprocal-rank fusion of the channels' ranks. */
  fused: number;
  /** The time factor of decay, in [0, 1] (1 for a keyed fact's value in force). */
  decay: number;
  importance: number;
  /** `importance × max(decay, 0.3)`: what orders the hits (`score = fused × weight`); under the weak threshold a memory comes after the rest. */
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
  /** Every version: superseded, rejected and under review (the audit trail). */
  includeSuperseded?: boolean;
  includeExpired?: boolean;
  /** Only the values waiting for review. */
  pendingReview?: boolean;
}

/** One end of a relation. */
export interface EntityRef {
  name: string;
  kind: string;
}

/** An entity of the graph, with its attributes. */
export interface Entity {
  id: string;
  name: string;
  kind: string;
  attributes: Record<string, string>;
}

/** The named graph templates (parameters are bound, never query text). */
export type GraphQuery =
  | { template: "neighbours"; entity: string; relation?: string | null }
  | { template: "path"; from: string; to: string; maxDepth: number }
  | { template: "reachable"; entity: string; relations: string[]; maxDepth: number }
  | { template: "shared-tasks"; a: string; b: string }
  | { template: "projects-under"; initiative: string; maxDepth: number };

/** A graph answer: entities and, for paths, the chain of entity ids. */
export interface GraphAnswer {
  entities: Entity[];
  path: string[];
}

/** A chat turn. */
export interface ChatTurn {
  role: Role;
  text: string;
}

/** A document to add or replace with `engram.documents.put`. */
export interface DocumentInput {
  /** Your id for it; putting the same id again replaces the document. */
  id: string;
  text: string;
  title?: string;
  /** Where it came from (a URL, a file name). */
  source?: string;
  tags?: string[];
  /** Anything JSON; stored as JSON text. */
  metadata?: unknown;
  /** The chunk budget in tokens (default 128) and the overlap between chunks (default 16). */
  chunkTokens?: number;
  chunkOverlap?: number;
}

/** A stored document. */
export interface Document {
  id: string;
  title: string;
  /** The whole text (PII redacted as stored); null in `documents.list()`. */
  text: string | null;
  source: string;
  tags: string[];
  metadata: unknown;
  /** The ids of its chunks, in order. */
  chunks: string[];
  createdAt: number;
  updatedAt: number;
}

/** A procedure the operator writes for the whole tenant (`engram.procedures.put`). */
export interface ProcedureInput {
  /** Your id for it; putting the same id again makes a new version. */
  id: string;
  /** A short name, one line. */
  name: string;
  /** What the agent should do. */
  text: string;
  /** When it applies, one line (searched with the name and text). */
  when?: string;
  tags?: string[];
}

/** A stored version of a procedure. */
export interface Procedure {
  id: string;
  name: string;
  text: string;
  when: string;
  tags: string[];
  /** The record id of this version. */
  version: string;
  /** False for a version a newer one replaced (in `procedures.history`). */
  current: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One chunk found by `engram.documents.search`: where it sits, never the whole document. */
export interface ChunkHit {
  chunk: string;
  document: string;
  title: string;
  /** 0-based position among the document's `count` chunks. */
  position: number;
  count: number;
  text: string;
  /** The ids of the chunks before and after it. */
  previous: string | null;
  next: string | null;
  score: number;
  parts: ScoreParts;
  /** True for a chunk of the tenant's library (`engram.library`), false for the user's own. */
  shared: boolean;
}

/** What the core wrote for a batch. */
export interface Written {
  turns: string[];
  remembered: WriteOutcome[];
  /**
   * The episode written for the session before the turns joined it, when it had idled past
   * its TTL (with `consolidation.episodes`): it summarises what was said before the pause,
   * and is rewritten abstractively in the background like the episode of `session.end()`.
   */
  episode: string | null;
}

/** A batch of local changes the origin refused for what it holds, set aside by sync. */
export interface QuarantinedBatch {
  /** The batch's id (the frame id the origin saw). */
  id: string;
  /** Its size in bytes, as stored. */
  bytes: number;
  /** The SDK's error code (`SYNC_REJECTED`, `SYNC_FORBIDDEN`) and the origin's answer. */
  code: string;
  message: string;
  /** When it was set aside (ms since the epoch). */
  at: number;
}
