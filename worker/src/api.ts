/**
 * The contract between the front worker (`index.ts`) and each user's Durable Object
 * (`user.ts`): the operations, one call, and the object's RPC surface. Both sides and
 * `env.ts` import it, so none of them imports another for types.
 * @module
 */
import type { User } from "./auth.js";
import type { Reply } from "./http.js";

/** The operations of the HTTP API, as the front worker names them. */
export type Op = "remember" | "observe" | "recall" | "context" | "list" | "forget" | "forget-user" | "sync" | "status";

/** One call from the front worker. */
export interface Call {
  op: Op;
  who: User;
  args: Record<string, unknown>;
  requestId: string;
}

/** What the front worker calls on a user's object (implemented by `UserMemory`). */
export interface UserObject extends Rpc.DurableObjectBranded {
  /** Serve one call; every failure becomes a JSON error reply. */
  handle(call: Call): Promise<Reply>;
}
