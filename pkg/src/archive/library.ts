/**
 * The tenant library: `engram.library.put/get/list/delete`, the documents the operator
 * shares with every user of the tenant (a handbook, a product manual). They live in the
 * tenant's own partition of the core, never in a user's memory, and are written through
 * the user documents' own pipeline (check, redact, chunk, embed the new chunks, commit);
 * see the core's `archive::library`. `documents.search` and `buildContext`'s documents
 * section read their chunks beside the user's own, ranked together, each hit saying
 * `shared: true`; they are data inside the untrusted block, never instructions.
 * Forgetting a user leaves the library.
 *
 * As for procedures, a store that syncs with an origin does not write the library: its
 * sync pushes with the user's token, which the origin refuses for the tenant's partitions.
 * Write it in a store without sync (an operator's console, pushing with a token naming
 * `~library`). A synced store reads it: each `sync()` pulls the library read-only, after a
 * cursor of its own.
 * @module
 */
import type { Vectors } from "../embed/vectors.js";
import { EngramInputError } from "../errors.js";
import type { Lifetime } from "../store/lifetime.js";
import { parsed, putDocument, type RawDocument } from "./documents.js";
import type { Document, DocumentInput } from "../types.js";
import { checkText } from "../write/remember.js";

export class Library {
  constructor(
    private readonly life: Lifetime,
    private readonly vectors: Vectors,
    private readonly tenant: string,
    private readonly synced: boolean,
  ) {}

  /**
   * Add or replace library document `doc.id`: only the chunks whose text changed are
   * written (and embedded); chunks the new version no longer has are deleted everywhere.
   * Resolves with the ids of its chunks, in order.
   */
  async put(doc: DocumentInput): Promise<string[]> {
    this.refuseSynced();
    return putDocument(this.life, this.vectors, doc, "library.put", (input) => this.life.handle.prepareLibrary(this.tenant, [input], this.life.now()));
  }

  /** Library document `id` with its whole text; rejects with `NOT_FOUND` when there is none. */
  async get(id: string): Promise<Document> {
    await this.life.ready();
    return this.life.call(() => parsed(this.life.handle.getLibraryDocument(this.tenant, id) as RawDocument));
  }

  /** The library's documents, without their texts, oldest first. */
  async list(): Promise<Document[]> {
    await this.life.ready();
    return this.life.call(() => (this.life.handle.listLibraryDocuments(this.tenant) as RawDocument[]).map(parsed));
  }

  /** Delete library document `id` and all its chunks, here and (through sync) everywhere; false when there was none. */
  async delete(id: string): Promise<boolean> {
    checkText(id, "document id");
    this.refuseSynced();
    return this.life.mutate("document", async () => ({ value: this.life.handle.deleteLibraryDocument(this.tenant, id, this.life.now()) as boolean, ids: [id] }));
  }

  private refuseSynced(): void {
    if (this.synced) {
      throw new EngramInputError("INVALID_INPUT", "this store syncs with the user's token, which the origin refuses for the tenant's library; write the library in a store without sync");
    }
  }
}
