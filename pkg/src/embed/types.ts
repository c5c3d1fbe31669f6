/**
 * The embedder contract. engram refuses to mix embedders in one store: the first
 * embedder's `id` and `dimension` are recorded, and another is an error.
 * @module
 */

/** Turns texts into vectors. */
export interface Embedder {
  /** A stable id naming the model (and its version), e.g. `"openai:text-embedding-3-small"`. */
  readonly id: string;
  /** Length of every vector it returns. */
  readonly dimension: number;
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}
