/**
 * Archival documents: `engram.documents.put/get/list/delete/search`. A document is
 * chunked by the core under an exact token budget and its chunks recalled like memories
 * (words and vectors), never whole; see the core's `archive` module. Writes run through
 * the core's one pipeline inside one `mutate`: `prepareDocuments` (check, redact, chunk,
 * name the new chunks to embed), the embedder, then `commit` with the vectors.
 * @module
 */
import type { Vectors } from "../embed/vectors.js";
import { EngramInputError } from "../errors.js";
import type { Lifetime } from "../store/lifetime.js";
import type { ChunkHit, Document, DocumentInput, Scope } from "../types.js";
import { checkText } from "../write/remember.js";

const MAX_DOCUMENT = 2 * 1024 * 1024;

/** Options of {@link Documents.search}. */
export interface DocumentSearchOptions {
  /** How many chunks (default 8). */
  k?: number;
}

export class Documents {
  constructor(
    private readonly life: Lifetime,
    private readonly vectors: Vectors,
    private readonly scope: Scope,
  ) {}

  /**
   * Add or replace document `doc.id`: only the chunks whose text changed are written (and
   * embedded); chunks the new version no longer has are deleted everywhere. Resolves with
   * the ids of its chunks, in order.
   */
  async put(doc: DocumentInput): Promise<string[]> {
    return putDocument(this.life, this.vectors, doc, "documents.put", (input) => this.life.handle.prepareDocuments(this.scope, [input], this.life.now()));
  }

  /** Document `id` with its whole text; rejects with `NOT_FOUND` when there is none. */
  async get(id: string): Promise<Document> {
    await this.life.ready();
    return this.life.call(() => parsed(this.life.handle.getDocument(this.scope, id) as RawDocument));
  }

  /** This user's documents, without their texts, oldest first. */
  async list(): Promise<Document[]> {
    await this.life.ready();
    return this.life.call(() => (this.life.handle.listDocuments(this.scope) as RawDocument[]).map(parsed));
  }

  /** Delete document `id` and all its chunks, here and (through sync) everywhere; false when there was none. */
  async delete(id: string): Promise<boolean> {
    return this.life.mutate("document", async () => ({ value: this.life.handle.deleteDocument(this.scope, id, this.life.now()) as boolean, ids: [id] }));
  }

  /**
   * The chunks relevant to `query` — this user's and the tenant's library's
   * (`engram.library`), ranked together — each with its document, position, neighbours
   * and `shared` (true for a library chunk: read its document with `library.get`).
   */
  async search(query: string, opts: DocumentSearchOptions = {}): Promise<ChunkHit[]> {
    checkText(query, "query", true);
    const vector = await this.vectors.query(query);
    await this.life.ready();
    return this.life.call(() => this.life.handle.searchDocuments(this.scope, { text: query, k: opts.k ?? 8, force: true }, vector, this.life.now()) as ChunkHit[]);
  }
}

/**
 * The one document write, for a user's documents and the tenant's library alike: check
 * `doc`, then in one `mutate` the core's `prepare` (given: which partition), the embedder
 * for the new chunks, and `commit`. Resolves with the ids of its chunks, in order.
 */
export function putDocument(life: Lifetime, vectors: Vectors, doc: DocumentInput, what: string, prepare: (input: unknown) => unknown): Promise<string[]> {
  if (typeof doc !== "object" || doc === null) throw new EngramInputError("INVALID_INPUT", `${what}(doc) needs { id, text }`);
  checkText(doc.id, "document id");
  if (typeof doc.text !== "string") checkText(doc.text, "document text");
  // Refused before it is copied into wasm memory (which never shrinks): a string of more
  // UTF-16 units than the byte limit is over it (the core checks the exact byte count).
  if (doc.text.length > MAX_DOCUMENT) {
    throw new EngramInputError("TEXT_TOO_LARGE", `document text is ${doc.text.length} characters; the limit is ${MAX_DOCUMENT} bytes`);
  }
  const input = { ...doc, metadata: doc.metadata === undefined ? "" : JSON.stringify(doc.metadata) };
  return life.mutate("document", async () => {
    const { id, texts } = prepare(input) as { id: number; texts: string[] };
    const out = life.handle.commit(id, await vectors.many(texts), life.now()) as { documents: string[][] };
    return { value: out.documents[0] ?? [], ids: [doc.id] };
  });
}

export type RawDocument = Omit<Document, "metadata"> & { metadata: string };

/** The core keeps metadata as the JSON text it was given. */
export function parsed(d: RawDocument): Document {
  let metadata: unknown = undefined;
  if (d.metadata !== "") {
    try {
      metadata = JSON.parse(d.metadata);
    } catch {
      metadata = d.metadata;
    }
  }
  return { ...d, metadata };
}
