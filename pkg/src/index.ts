/**
 * engram — local-first memory for AI agents.
 *
 * Import from `"engram"`; the package's conditional exports pick the entry point for
 * Node, browsers or Cloudflare Workers, which differ only in how they load the wasm core
 * and the token tables.
 * @module
 */
export { Engram } from "./engram.js";
export type { OpenOptions, RecallOptions, ContextOptions, ChangeEvent, ErrorEvent, ConsolidationOptions } from "./options.js";
export type { EndReport } from "./consolidate/episodes.js";
export { parseEpisode, episodeMessages, EPISODE_SCHEMA, type EpisodeRequest } from "./knowledge/extract/episode.js";
export { OpenAiExtractor, WorkersAiExtractor, extractionMessages, type Extractor, type ExtractionRequest, type ShownMemory, type OpenAiExtractorOptions, type WorkersAiLike } from "./knowledge/extract/llm.js";
export { parseOperations, OPERATIONS_SCHEMA, EXTRACTABLE_KINDS, type Operation, type ProposedMemory } from "./knowledge/extract/operations.js";
export type { LearnReport } from "./knowledge/learn.js";
export type { FeedbackInput, FeedbackReport } from "./knowledge/feedback.js";
export type { Profile, ProfileUpdate, ProfileSettings, ProfileRule, ProfileFact, ProfileValue } from "./knowledge/profile.js";
export { Session, type SessionMetadata } from "./store/session.js";
export type { SyncOptions, SyncReport, SyncEvent, SyncErrorEvent, SyncQuarantineEvent } from "./sync/client.js";
export { encodeFrames, decodeFrames, type Frame } from "./sync/frames.js";
export type { StorageAdapter } from "./storage/types.js";
export type { EncryptionOptions } from "./encryption.js";
export { MemoryStorage } from "./storage/memory.js";
export { IndexedDbStorage } from "./storage/indexeddb.js";
export { KvStorage, D1Storage, type KvNamespaceLike, type D1DatabaseLike } from "./storage/cloudflare.js";
export type { Embedder } from "./embed/types.js";
export { OpenAiEmbedder, type OpenAiEmbedderOptions } from "./embed/openai.js";
export { StaticEmbedder, defaultEmbedder, DEFAULT_EMBED_TABLE } from "./embed/static.js";
export { AccurateEmbedder, accurateEmbedder, type AccurateEmbedderOptions } from "./embed/accurate.js";
export { loadTokenizer, type EncodingName, type TableSource } from "./context/tokens.js";
export { EngramError, EngramInputError, EngramDataError, EngramFatalError, EngramIoError } from "./errors.js";
export type * from "./types.js";
