/**
 * A {@link StorageAdapter} that encrypts every value it stores: `"ENGX"`, a version byte,
 * a random 12-byte IV, then the AES-GCM ciphertext of the value with its key name as
 * additional data — so a value moved to another key (or another store's namespace) does
 * not open. Key names, value sizes, `list`, `delete` and `lock` are the inner adapter's.
 *
 * A store remembers that it is encrypted: `meta/encryption` holds a known value sealed
 * with the store's key, checked on every open by {@link encryptedStore}.
 * @module
 */
import { EngramDataError, EngramInputError } from "../errors.js";
import { decrypt, encrypt, fromBase64, importEncryptionKey, keyError, toBase64, utf8, type StoreKey } from "../encryption.js";
import type { StorageAdapter, StorageLock } from "../storage/types.js";

const MAGIC = [0x45, 0x4e, 0x47, 0x58]; // "ENGX"
const VERSION = 1;
const HEAD = MAGIC.length + 1;
/** The marker's key (under the store's prefix) and what it holds. */
const MARK = "meta/encryption";
const MARK_VALUE = "engram encrypted store v1";
/** The note of a key rotation under way (plain JSON of two sealed keys) and their additional data. */
const REKEY = "meta/rekey";
const REKEY_AAD = utf8("engram rekey v1");

/**
 * Every value under `prefix` that opens with `from` sealed again with `to`, then the
 * rotation's note deleted. Idempotent: a value already sealed with `to` is left; one that
 * opens with neither (damaged) is left for the open that reads it to report.
 */
async function finishRekey(inner: StorageAdapter, prefix: string, from: CryptoKey, to: CryptoKey): Promise<void> {
  const note = `${prefix}${REKEY}`;
  for (const k of await inner.list(prefix)) {
    if (k === note) continue;
    const v = await inner.get(k);
    if (v === undefined || (await unseal(to, k, v).then(() => true, () => false))) continue;
    const plain = await unseal(from, k, v).catch(() => undefined);
    if (plain) await inner.put(k, await seal(to, k, plain));
  }
  await inner.delete(note);
}

/**
 * A rotation an earlier process began and did not finish, finished with `given` (either of
 * its two keys): the store's key afterwards, or undefined when there was none. A `given`
 * that is neither key is `ENCRYPTION_KEY`.
 */
async function resumeRekey(storage: StorageAdapter, prefix: string, given: StoreKey): Promise<StoreKey | undefined> {
  const bytes = await storage.get(`${prefix}${REKEY}`);
  if (!bytes) return undefined;
  let note: { toNew?: string; toOld?: string };
  try {
    note = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    note = {};
  }
  const open = (s: string | undefined) => (s ? decrypt(given.key, fromBase64(s), REKEY_AAD).catch(() => undefined) : Promise.resolve(undefined));
  const old = await open(note.toOld);
  if (old) {
    // `given` is the new key: values still sealed with the old one are sealed again.
    await finishRekey(storage, prefix, await importEncryptionKey({ key: old }), given.key);
    return given;
  }
  const next = await open(note.toNew);
  if (next) {
    const to: StoreKey = { key: await importEncryptionKey({ key: next }), raw: next };
    await finishRekey(storage, prefix, given.key, to.key);
    return to;
  }
  throw keyError(`the store "${prefix}" is being given a new key and opens with neither the old nor the new one`);
}

/** `value` sealed with `key` as stored under `name`. */
async function seal(key: CryptoKey, name: string, value: Uint8Array): Promise<Uint8Array> {
  const sealed = await encrypt(key, value, utf8(name));
  const out = new Uint8Array(HEAD + sealed.length);
  out.set(MAGIC, 0);
  out[4] = VERSION;
  out.set(sealed, HEAD);
  return out;
}

/** The plaintext of a value stored under `name`; `CHECKSUM` when it does not open with `key`. */
async function unseal(key: CryptoKey, name: string, v: Uint8Array): Promise<Uint8Array> {
  if (v.length < HEAD || MAGIC.some((b, i) => v[i] !== b) || v[4] !== VERSION) {
    throw new EngramDataError("CHECKSUM", `stored value ${name} is not encrypted (or is from a newer version): corrupt, or written without the key`);
  }
  try {
    return await decrypt(key, v.subarray(HEAD), utf8(name));
  } catch (e) {
    throw new EngramDataError("CHECKSUM", `stored value ${name} fails its authentication tag: altered or corrupt`, { cause: e });
  }
}

/** Values encrypted with `key` over any adapter. */
export class EncryptedStorage implements StorageAdapter {
  /** The inner adapter's lock, when it has one. */
  readonly lock?: (name: string) => Promise<StorageLock>;
  /** Set when opening found the store's encryption mark damaged and wrote it again. */
  repairedMark = false;
  /** Set when opening finished a key rotation an earlier process began (the store's key is now the new one). */
  finishedRekey = false;

  constructor(
    private readonly inner: StorageAdapter,
    private current: StoreKey,
  ) {
    if (inner.lock) this.lock = (name) => inner.lock!(name);
  }

  /** The key values are read and written with. */
  get key(): CryptoKey {
    return this.current.key;
  }

  /** The value under `key`; a value that does not open with this key is `CHECKSUM` (altered or corrupt). */
  async get(key: string): Promise<Uint8Array | undefined> {
    const v = await this.inner.get(key);
    return v === undefined ? undefined : unseal(this.current.key, key, v);
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    await this.inner.put(key, await seal(this.current.key, key, value));
  }

  /**
   * Seal every value of the store under `prefix` with `next` instead ({@link Engram.rekey}).
   * First a note holding each key sealed with the other, so that a process stopped at any
   * point leaves a store that opens with either key and finishes the rotation; then every
   * value, then the note is deleted. The caller holds the store's writer lock.
   */
  async rekey(prefix: string, next: StoreKey): Promise<void> {
    const old = this.current;
    if (!old.raw || !next.raw) throw new EngramInputError("INVALID_INPUT", "rekey needs both keys' bytes: open with a 32-byte key (or an extractable CryptoKey) and pass one");
    const note = { v: 1, toNew: toBase64(await encrypt(old.key, next.raw, REKEY_AAD)), toOld: toBase64(await encrypt(next.key, old.raw, REKEY_AAD)) };
    await this.inner.put(`${prefix}${REKEY}`, utf8(JSON.stringify(note)));
    await finishRekey(this.inner, prefix, old.key, next.key);
    this.current = next;
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
}

/** Whether a value of the store other than its mark opens with `store`'s key (a few tried). */
async function opensAnother(storage: StorageAdapter, store: EncryptedStorage, prefix: string, markKey: string): Promise<boolean> {
  const keys = (await storage.list(prefix)).filter((k) => k !== markKey).slice(0, 8);
  for (const k of keys) {
    try {
      if ((await store.get(k)) !== undefined) return true;
    } catch {
      // damaged too, or another key: try the next
    }
  }
  return false;
}

/** Whether the store's newest snapshot (or else its first op batch) is a sealed value: an encrypted store whose mark is gone. */
async function looksEncrypted(storage: StorageAdapter, prefix: string): Promise<boolean> {
  const first = (await storage.get(`${prefix}snapshot/current`)) ?? (await storage.list(`${prefix}ops/`).then((keys) => (keys[0] ? storage.get(keys[0]) : undefined)));
  return first !== undefined && first.length >= HEAD && MAGIC.every((b, i) => first[i] === b);
}

/**
 * The adapter a store under `prefix` is read and written through: `storage` itself
 * without a key, an {@link EncryptedStorage} with one. Refused with `ENCRYPTION_KEY`,
 * before anything is read or written: an encrypted store opened without a key or with
 * another key, and a store with plaintext data opened with a key. A new store opened with
 * a key is marked encrypted.
 */
export async function encryptedStore(storage: StorageAdapter, prefix: string, given: StoreKey | undefined): Promise<StorageAdapter> {
  const markKey = `${prefix}${MARK}`;
  const resumed = given && (await resumeRekey(storage, prefix, given));
  const mark = await storage.get(markKey);
  const key = resumed ?? given;
  if (!key) {
    if (mark || (await looksEncrypted(storage, prefix)) || (await storage.get(`${prefix}${REKEY}`))) throw keyError(`the store "${prefix}" is encrypted: open it with encryption: { key }, the key it was written with`);
    return storage;
  }
  const store = new EncryptedStorage(storage, key);
  store.finishedRekey = resumed !== undefined;
  if (!mark && (await looksEncrypted(storage, prefix))) {
    // The mark is gone but the values are sealed: with this key (one of them opens) the
    // mark is written again and reported, else the key is another.
    if (!(await opensAnother(storage, store, prefix, markKey))) {
      throw keyError(`the store "${prefix}" was encrypted with another key: open it with the key it was written with (nothing was changed)`);
    }
    await store.put(markKey, utf8(MARK_VALUE));
    store.repairedMark = true;
    return store;
  }
  if (mark) {
    let value: Uint8Array | undefined;
    try {
      value = await store.get(markKey);
    } catch (e) {
      // A damaged mark and another key look alike; the store's other values tell them
      // apart: when one of them opens with this key, the key is right and the mark is
      // written again (and reported), else the key is another.
      if (!(await opensAnother(storage, store, prefix, markKey))) {
        throw keyError(`the store "${prefix}" was encrypted with another key: open it with the key it was written with (nothing was changed)`, e);
      }
      await store.put(markKey, utf8(MARK_VALUE));
      store.repairedMark = true;
      return store;
    }
    if (new TextDecoder().decode(value) !== MARK_VALUE) throw keyError(`the store "${prefix}" has an unknown encryption marker`);
    return store;
  }
  if ((await storage.list(prefix)).length > 0) {
    throw keyError(`the store "${prefix}" holds data written without encryption: open it without a key, or use a new namespace for the encrypted store`);
  }
  await store.put(markKey, utf8(MARK_VALUE));
  return store;
}
