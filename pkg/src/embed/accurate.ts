/**
 * The accurate embedder: all-MiniLM-L6-v2 (or another BERT sentence encoder with mean
 * pooling) run in full inside the wasm core, from the model's own `model.safetensors` and
 * `vocab.txt`. Its vectors are sentence-transformers' (cosine ≥ 0.9999); it costs a
 * transformer pass per text (tens of milliseconds in wasm) and ~90 MB of weights, which are
 * not packaged: point it at files you host or read. Choose it over the default table when
 * recall matters more than speed; in a browser, run it in a Worker.
 * @module
 */
import { BertEmbedderCore, loadCore, type CoreBertEmbedder } from "../core.js";
import { EngramIoError, fromCore } from "../errors.js";
import { readSource, type TableSource } from "../context/tokens.js";
import type { Embedder } from "./types.js";
import { splitRows } from "./vectors.js";

/** Where the model comes from, and what its files do not say. */
export interface AccurateEmbedderOptions {
  /** `model.safetensors` (F32, BERT layout): bytes, a URL to fetch, or a loader. */
  weights: TableSource;
  /** `vocab.txt`, one WordPiece token per line: bytes, a URL to fetch, or a loader. */
  vocab: TableSource;
  /** Names the model in the store. Required for weights other than all-MiniLM-L6-v2's
   * published ones (a store must never mix two models' vectors under one id). */
  id?: string;
  /** Hidden size (default 384). */
  dimension?: number;
  /** Attention heads (default 12). */
  heads?: number;
  /** Tokens read per text, `[CLS]`/`[SEP]` included (default 256). */
  maxTokens?: number;
}

const MINILM_ID = "engram-bert:all-minilm-l6-v2";
/** The core's id of all-MiniLM-L6-v2's published `model.safetensors` (layers, width, CRC-32). */
const MINILM_WEIGHTS = "engram-bert-6x384-17279aed";

/** An embedder that runs a BERT encoder in the wasm core; the model loads on first use. */
export class AccurateEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  private model: Promise<CoreBertEmbedder> | undefined;

  constructor(private readonly opts: AccurateEmbedderOptions) {
    this.id = opts.id ?? MINILM_ID;
    this.dimension = opts.dimension ?? 384;
  }

  /** Resolves once the model is loaded (the first `embed` does this anyway). */
  async ready(): Promise<void> {
    await this.core();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const core = await this.core();
    return splitRows(core.embedMany(texts), texts.length, this.dimension);
  }

  private core(): Promise<CoreBertEmbedder> {
    this.model ??= this.load().catch((e: unknown) => {
      this.model = undefined;
      throw e instanceof Error && "code" in e ? e : new EngramIoError("EMBED_MODEL", `cannot load the embedding model: ${String(e)}`, { cause: e });
    });
    return this.model;
  }

  private async load(): Promise<CoreBertEmbedder> {
    const [weights, vocab] = await Promise.all([readSource(this.opts.weights, "model weights"), readSource(this.opts.vocab, "vocabulary"), loadCore()]);
    let model: CoreBertEmbedder;
    try {
      model = BertEmbedderCore.fromSafetensors(weights, new TextDecoder().decode(vocab), this.opts.heads, this.opts.maxTokens);
    } catch (e) {
      throw fromCore(e);
    }
    const [dim, weightsId] = [model.dim, model.id];
    const problem =
      dim !== this.dimension ? `the model has ${dim} dimensions, expected ${this.dimension}`
      : this.opts.id === undefined && weightsId !== MINILM_WEIGHTS ? `these weights (${weightsId}) are not all-MiniLM-L6-v2's published ones: pass an id naming the model`
      : undefined;
    if (problem) {
      model.free();
      throw new EngramIoError("EMBED_MODEL", problem);
    }
    return model;
  }
}

/** The accurate embedder for all-MiniLM-L6-v2's files (or another model's, with options). */
export function accurateEmbedder(opts: AccurateEmbedderOptions): AccurateEmbedder {
  return new AccurateEmbedder(opts);
}
