/**
 * What the sync client may do with an `Engram`'s store ({@link SyncHooks}): read the
 * outbox and the cursor, and apply what it pulls through the write queue. With encryption
 * at rest, what leaves has opaque texts and what arrives is decrypted first (`opaque.ts`).
 * @module
 */
import type { Lifetime } from "../store/lifetime.js";
import type { OpenReport, Persistence } from "../store/persist.js";
import type { Scope } from "../types.js";
import { EngramDataError, EngramError } from "../errors.js";
import { TENANT_LOGS, type Cursors, type OutgoingBatch, type SyncErrorEvent, type SyncEvent, type SyncHooks, type SyncQuarantineEvent, type TenantLog } from "./client.js";
import { fromOrigin, opaqueContext, toOrigin } from "./opaque.js";

/** The keys sync seals with and opens with (they change with `Engram.rekey`). */
export interface SyncKeys {
  /** The store's key, if it is encrypted: what leaves is sealed with it. */
  current(): CryptoKey | undefined;
  /** Keys pulled texts are tried with: the current key, then earlier ones. */
  all(): CryptoKey[];
}

/** The sync client's hooks; `keys` are `open({ encryption })`'s, if any. */
export function syncHooks(life: Lifetime, persistence: Persistence, scope: Scope, replica: number, keys: SyncKeys): SyncHooks {
  const aad = opaqueContext(scope.tenant, scope.user);
  return {
    replica,
    outbox: async (max: number, partBytes: number) => {
      await life.lock.ensure(); // a sync writes (the outbox, the cursor, what it pulls): one writer
      await persistence.repairOutbox();
      const out: OutgoingBatch[] = [];
      for (const b of await persistence.pendingOutbox(max)) {
        try {
          // Split as stored (before encryption), so the parts are the same ops on every resend.
          const parts = b.bytes.length > partBytes ? (life.call(() => life.handle.splitOps(b.bytes, partBytes)) as Uint8Array[]) : [b.bytes];
          for (const [part, bytes] of parts.entries()) {
            // Encrypted: the outbox keeps batches as written; what leaves has opaque texts.
            const key = keys.current();
            const sent = key ? await toOrigin(bytes, key, aad) : bytes;
            out.push(parts.length === 1 ? { ...b, bytes: sent } : { ...b, bytes: sent, part, parts: parts.length });
          }
        } catch (e) {
          // Bytes that are not ops cannot be split or sealed: the client sets them aside.
          out.push({ ...b, broken: e instanceof EngramError ? e : new EngramDataError("DECODE", String(e)) });
        }
      }
      return out;
    },
    accepted: (seqs: number[]) => persistence.dropOutbox(seqs),
    quarantine: (seq: number, error: EngramError) => persistence.quarantine(seq, { code: error.code, message: error.message, at: life.now() }),
    // Stores synced before a tenant partition was pulled lack its cursor: theirs start at 0.
    cursor: async () => {
      const m = await persistence.getMeta<Partial<Cursors>>("sync");
      const tenant = Object.fromEntries(TENANT_LOGS.map((log) => [log, m?.[log] ?? 0])) as Record<TenantLog, number>;
      return { cursor: m?.cursor ?? 0, ...tenant };
    },
    setCursor: (c: Cursors) => persistence.putMeta("sync", c),
    apply: async (pulled: Uint8Array[]) => {
      // Opaque texts decrypted first: a batch that needs another key fails the pull whole.
      const batches: Uint8Array[] = [];
      for (const b of pulled) batches.push(await fromOrigin(b, keys.all(), aad));
      return life.mutate("pull", async () => {
        let n = 0;
        for (const b of batches) {
          n += life.handle.applyOps(b);
          await persistence.append(life.handle, b);
        }
        return { value: n, ids: [] };
      });
    },
    emit: (e: SyncEvent | SyncErrorEvent | SyncQuarantineEvent) => life.emit(e),
  };
}

/**
 * The first open with sync of a store that has history queues its whole state for the
 * origin, once: `stateOps()` is one op batch of every record, tombstone, forget, session
 * and graph fact (stamped as they were, so applying it anywhere changes only what is
 * missing). Without it the user's other devices would get only later changes. A write
 * made without sync later (not in the outbox) clears the mark, so the next sync seeds again.
 */
export async function seedSync(life: Lifetime, persistence: Persistence, opened: OpenReport): Promise<void> {
  const empty = opened.snapshot === "none" && opened.replayedBatches === 0;
  await persistence.seed(empty ? undefined : life.call(() => life.handle.stateOps() as Uint8Array[]));
}
