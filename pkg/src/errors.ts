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

const DATA_CODES = new Set(["BAD_MAGIC", "UNSUPPORTED_VERSION", "TRUNCATED", "CHECKSUM", "DECODE", "TOKEN_TABLE"]);

/** Re-throw an error from the wasm core as the matching typed subclass. */
export function fromCore(e: unknown): EngramError {
  if (e instanceof EngramError) return e;
  if (e instanceof Error && typeof (e as { code?: unknown }).code === "string") {
    const code = (e as unknown as { code: string }).code;
    const Cls = DATA_CODES.has(code) ? EngramDataError : EngramInputError;
    return new Cls(code, e.message, { cause: e });
  }
  if (e instanceof WebAssembly.RuntimeError) {
    return new EngramFatalError("WASM_TRAP", `the wasm core trapped (${e.message}); rebuilt from storage`, { cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new EngramInputError("INVALID_INPUT", message, { cause: e });
}
