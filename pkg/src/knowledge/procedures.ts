/**
 * Procedural memory: `engram.procedures.put/get/list/history/delete`. Procedures are the
 * operator's instructions for the whole tenant (seed 001's skills layer), kept in the
 * tenant's own partition of the core, never in the user's memory: `remember` and the
 * extractors refuse the `instruction` kind, and `buildContext` renders only procedures —
 * all of them when few, the best matches of the query by words when many — as
 * `<agent-instructions>`, outside the untrusted memory block. Writes are persisted like
 * every write; see the core's `engram::procedures`.
 *
 * A store that syncs with an origin does not write procedures: its sync pushes with the
 * user's token, which the origin refuses for the tenant's procedures (a user must not be
 * able to plant one). Write them in a store without sync. A synced store reads them: each
 * `sync()` pulls the tenant's procedures read-only, after a cursor of their own.
 * @module
 */
import { EngramInputError } from "../errors.js";
import type { Lifetime } from "../store/lifetime.js";
import type { Procedure, ProcedureInput } from "../types.js";
import { checkText } from "../write/remember.js";

export class Procedures {
  constructor(
    private readonly life: Lifetime,
    private readonly tenant: string,
    private readonly synced: boolean,
  ) {}

  /** Add or replace procedure `p.id`; resolves with the version in force (unchanged when the same procedure is put again). */
  async put(p: ProcedureInput): Promise<Procedure> {
    if (typeof p !== "object" || p === null) throw new EngramInputError("INVALID_INPUT", "procedures.put(p) needs { id, name, text }");
    checkText(p.id, "procedure id");
    checkText(p.name, "procedure name");
    checkText(p.text, "procedure text");
    if (p.when !== undefined) checkText(p.when, "procedure when", true);
    this.refuseSynced();
    const input = { id: p.id, name: p.name, text: p.text, when: p.when ?? "", tags: p.tags ?? [] };
    return this.life.mutate("procedure", async () => ({ value: this.life.handle.putProcedure(this.tenant, input, this.life.now()) as Procedure, ids: [p.id] }));
  }

  /** The version in force of procedure `id`; rejects with `NOT_FOUND` when there is none. */
  async get(id: string): Promise<Procedure> {
    await this.life.ready();
    return this.life.call(() => this.life.handle.getProcedure(this.tenant, id) as Procedure);
  }

  /** The tenant's procedures in force, by id. */
  async list(): Promise<Procedure[]> {
    await this.life.ready();
    return this.life.call(() => this.life.handle.listProcedures(this.tenant) as Procedure[]);
  }

  /** Every version of procedure `id`, oldest first (the audit trail). */
  async history(id: string): Promise<Procedure[]> {
    await this.life.ready();
    return this.life.call(() => this.life.handle.procedureHistory(this.tenant, id) as Procedure[]);
  }

  /** Delete procedure `id` with all its versions; false when there was none. */
  async delete(id: string): Promise<boolean> {
    checkText(id, "procedure id");
    this.refuseSynced();
    return this.life.mutate("procedure", async () => ({ value: this.life.handle.deleteProcedure(this.tenant, id, this.life.now()) as boolean, ids: [id] }));
  }

  private refuseSynced(): void {
    if (this.synced) {
      throw new EngramInputError("INVALID_INPUT", "this store syncs with the user's token, which the origin refuses for the tenant's procedures; write procedures in a store without sync");
    }
  }
}
