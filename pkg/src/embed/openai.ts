import { EngramIoError } from "../errors.js";
import type { Embedder } from "./types.js";

/** Options of {@link OpenAiEmbedder}. */
export interface OpenAiEmbedderOptions {
  /** Base URL of an OpenAI-compatible API, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimension: number;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

/** An embedder for any OpenAI-compatible `/embeddings` endpoint. */
export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  constructor(private readonly opts: OpenAiEmbedderOptions) {
    if (!Number.isInteger(opts.dimension) || opts.dimension <= 0) throw new EngramIoError("INVALID_INPUT", "dimension must be a positive integer");
    this.id = `openai-compatible:${opts.model}:${opts.dimension}`;
    this.dimension = opts.dimension;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const size = this.opts.batchSize ?? 64;
    for (let i = 0; i < texts.length; i += size) out.push(...(await this.request(texts.slice(i, i + size))));
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const f = this.opts.fetch ?? fetch;
    const res = await f(`${this.opts.baseUrl.replace(/\/$/, "")}/embeddings`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: this.opts.model, input, dimensions: this.opts.dimension }),
    });
    if (!res.ok) {
      const body = await res.text().catch(() => "");
      throw new EngramIoError("EMBEDDER_HTTP", `embedder answered ${res.status}: ${body.slice(0, 200)}`);
    }
    const json = (await res.json()) as { data?: { index?: number; embedding?: unknown }[] };
    if (!Array.isArray(json.data) || json.data.length !== input.length) {
      throw new EngramIoError("EMBEDDER_RESPONSE", `expected ${input.length} embeddings, got ${Array.isArray(json.data) ? json.data.length : "none"}`);
    }
    const rows = [...json.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return rows.map((row, i) => {
      const e = row.embedding;
      if (!Array.isArray(e) || e.length !== this.dimension || !e.every((x) => typeof x === "number" && Number.isFinite(x))) {
        throw new EngramIoError("EMBEDDER_RESPONSE", `embedding ${i} is not ${this.dimension} finite numbers`);
      }
      return Float32Array.from(e as number[]);
    });
  }
}
