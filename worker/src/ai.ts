/**
 * Workers AI as engram's embedder (`ENGRAM_EMBEDDER = "workers-ai"`): the `env.AI` binding's
 * text-embedding models answer `{ data: number[][] }`. The model's id is recorded in the
 * store, which then refuses any other embedder (engram never mixes two models' vectors).
 * @module
 */
import { EngramIoError, type Embedder } from "engram";

/** What this embedder needs of the `AI` binding. */
export interface AiLike {
  run(model: string, input: Record<string, unknown>): Promise<unknown>;
}

/** Texts per Workers AI call (the embedding models take up to 100). */
const BATCH = 100;

export class WorkersAiEmbedder implements Embedder {
  readonly id: string;

  constructor(
    private readonly ai: AiLike,
    private readonly model = "@cf/baai/bge-small-en-v1.5",
    readonly dimension = 384,
  ) {
    this.id = `workers-ai:${model}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = texts.slice(i, i + BATCH);
      let res: unknown;
      try {
        res = await this.ai.run(this.model, { text: batch });
      } catch (e) {
        throw new EngramIoError("EMBEDDER", `Workers AI ${this.model} failed: ${(e as Error).message}`, { cause: e });
      }
      const data = (res as { data?: unknown } | null)?.data;
      if (!Array.isArray(data) || data.length !== batch.length) {
        throw new EngramIoError("EMBEDDER", `Workers AI ${this.model} returned ${Array.isArray(data) ? data.length : "no"} vectors for ${batch.length} texts`);
      }
      for (const v of data) {
        if (!Array.isArray(v) || v.length !== this.dimension || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
          throw new EngramIoError("EMBEDDER", `Workers AI ${this.model} returned a vector that is not ${this.dimension} finite numbers`);
        }
        out.push(Float32Array.from(v as number[]));
      }
    }
    return out;
  }
}
