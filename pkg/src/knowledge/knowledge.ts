/**
 * What a user's memory knows beyond its records: the knowledge graph (relations, entity
 * attributes, named templates), the review queue of conflicting values, and the sealed PII
 * a redaction key opens. `Engram`'s methods of the same names delegate here.
 * @module
 */
import type { Lifetime } from "../store/lifetime.js";
import type { EntityRef, GraphAnswer, GraphQuery, Resolution, Scope, WriteOutcome } from "../types.js";

export class Knowledge {
  constructor(
    private readonly life: Lifetime,
    private readonly scope: Scope,
  ) {}

  /** Settle a value flagged for review. */
  async resolveReview(id: string, decision: Exclude<Resolution, "flag">): Promise<WriteOutcome> {
    return this.life.mutate("review", async () => {
      const out = this.life.handle.resolveReview(this.scope, id, decision, this.life.now()) as WriteOutcome;
      return { value: out, ids: [id, ...out.superseded] };
    });
  }

  /** A memory's text with its sealed PII opened by `key`. */
  reveal(id: string, key: Uint8Array): string {
    return this.life.call(() => this.life.handle.reveal(this.scope, id, key));
  }

  /** Add or remove the relation `from —rel→ to`. */
  async relate(from: EntityRef, rel: string, to: EntityRef, opts: { present?: boolean; record?: string }): Promise<void> {
    await this.life.mutate("graph", async () => {
      this.life.handle.relate(this.scope, { from, rel, to, present: opts.present ?? true, record: opts.record ?? null }, this.life.now());
      return { value: undefined, ids: [] };
    });
  }

  /** Set an attribute of an entity. */
  async setEntityAttribute(entity: EntityRef, attribute: string, value: string): Promise<void> {
    await this.life.mutate("graph", async () => {
      this.life.handle.setEntityAttribute(this.scope, entity, attribute, value, this.life.now());
      return { value: undefined, ids: [] };
    });
  }

  /** Answer a named graph template. */
  graph(query: GraphQuery): GraphAnswer {
    return this.life.call(() => this.life.handle.graphQuery(this.scope, query) as GraphAnswer);
  }
}
