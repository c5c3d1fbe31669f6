/**
 * Errors thrown by engram. Every error has a stable `code`; the core's codes pass through
 * unchanged (`DIMENSION_MISMATCH`, `CHECKSUM`, …).
 * @module
 */

/** Base class of every engram error. */
export class EngramError extends Error {
  /** Stable machine-readable code, e.g. `"INVALID_INPUT"`. */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EngramError";
    this.code = code;
  }
}

/** Bad input from the caller: wrong type, dimension, size or range. The instance stays usable. */
export class EngramInputError extends EngramError {}
/** Stored or received bytes are corrupt, truncated or from a newer version. */
export class EngramDataError extends EngramError {}
/** The wasm instance trapped; the SDK rebuilt it from storage. The failed call did not happen. */
export class EngramFatalError extends EngramError {}
/** A storage adapter or an embedder failed. */
export class EngramIoError extends EngramError {}

/**
 * The class of every code the core can return (`Error::code()` in
 * crates/engram-core/src/error.rs; a test fails when one is missing here). Unusable bytes
 * (stored, received, or a table or model loaded) are data errors; everything else the
 * caller can fix by changing what it passes.
 * @internal
 */
export const CODE_CLASSES: Readonly<Record<string, typeof EngramError>> = {
  INVALID_INPUT: EngramInputError,
  DIMENSION_MISMATCH: EngramInputError,
  BAD_EMBEDDING: EngramInputError,
  TEXT_TOO_LARGE: EngramInputError,
  NOT_FOUND: EngramInputError,
  TOKENIZE: EngramInputError,
  REDACTION_KEY: EngramInputError,
  BAD_MAGIC: EngramDataError,
  UNSUPPORTED_VERSION: EngramDataError,
  TRUNCATED: EngramDataError,
  CHECKSUM: EngramDataError,
  DECODE: EngramDataError,
  TOKEN_TABLE: EngramDataError,
  EMBED_TABLE: EngramDataError,
  EMBED_MODEL: EngramDataError,
  // The binding's own: a core value it could not hand to JS.
  ENCODE: EngramDataError,
  // The SDK's own: a store or pulled memories that need another encryption key (or one).
  ENCRYPTION_KEY: EngramInputError,
};

/**
 * Errors wasm-bindgen raises when a handle is no longer safe to use: a JS exception (a stack
 * overflow, a throwing getter) unwound through Rust while it held the handle's borrow, so
 * the borrow is never released. Every later call on that handle fails, so it is fatal.
 */
const POISONED = /recursive use of an object detected|attempted to take ownership of Rust value while it was borrowed|null pointer passed to rust/;

/** Re-throw an error from the wasm core as the matching typed subclass. */
export function fromCore(e: unknown): EngramError {
  if (e instanceof EngramError) return e;
  if (e instanceof Error && typeof (e as { code?: unknown }).code === "string") {
    const code = (e as unknown as { code: string }).code;
    const Cls = CODE_CLASSES[code] ?? EngramInputError;
    return new Cls(code, e.message, { cause: e });
  }
  if (e instanceof WebAssembly.RuntimeError) {
    return new EngramFatalError("WASM_TRAP", `the wasm core trapped (${e.message}); rebuilt from storage`, { cause: e });
  }
  if (e instanceof Error && (POISONED.test(e.message) || (e instanceof RangeError && /call stack/i.test(e.message)))) {
    return new EngramFatalError("WASM_TRAP", `a call into the wasm core failed and left it unusable (${e.message}); rebuilt from storage`, { cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new EngramInputError("INVALID_INPUT", message, { cause: e });
}
