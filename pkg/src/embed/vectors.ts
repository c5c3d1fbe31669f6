/**
 * How the SDK calls an embedder: batches, typed errors, a count check, and the rule that an
 * all-zero vector means "no vector" (the default embedder declines texts it cannot represent).
 * @module
 */
import { EngramError, EngramIoError } from "../errors.js";
import type { Embedder } from "./types.js";

/** `count` vectors of `dim` from the core's concatenated output (views, no copy). */
export function splitRows(flat: Float32Array, count: number, dim: number): Float32Array[] {
  return Array.from({ length: count }, (_, i) => flat.subarray(i * dim, (i + 1) * dim));
}

export class Vectors {
  constructor(readonly embedder: Embedder | undefined) {}

  /** One vector per text, or undefined where there is no embedder or it declined. */
  async many(texts: string[]): Promise<(Float32Array | undefined)[]> {
    const emb = this.embedder;
    if (!emb || texts.length === 0) return texts.map(() => undefined);
    let out: Float32Array[];
    try {
      out = await emb.embed(texts);
    } catch (e) {
      throw e instanceof EngramError ? e : new EngramIoError("EMBEDDER", `embedder ${emb.id} failed: ${String(e)}`, { cause: e });
    }
    if (out.length !== texts.length) throw new EngramIoError("EMBEDDER", `embedder ${emb.id} returned ${out.length} vectors for ${texts.length} texts`);
    return out.map((v) => (usable(v) ? v : undefined));
  }

  async one(text: string): Promise<Float32Array | undefined> {
    return (await this.many([text]))[0];
  }

  /** A query's vector; none for an empty query. */
  async query(query: string): Promise<Float32Array | undefined> {
    return query.trim().length === 0 ? undefined : this.one(query);
  }
}

/** An all-zero vector is how an embedder says it cannot represent a text: store none. */
function usable(v: Float32Array | undefined): v is Float32Array {
  return v !== undefined && v.some((x) => x !== 0);
}
