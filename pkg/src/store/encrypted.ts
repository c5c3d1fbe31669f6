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
import { EngramDataError } from "../errors.js";
import { decrypt, encrypt, keyError, utf8 } from "../encryption.js";
import type { StorageAdapter, StorageLock } from "./types.js";

const MAGIC = [0x45, 0x4e, 0x47, 0x58]; // "ENGX"
const VERSION = 1;
const HEAD = MAGIC.length + 1;
/** The marker's key (under the store's prefix) and what it holds. */
const MARK = "meta/encryption";
const MARK_VALUE = "engram encrypted store v1";

/** Values encrypted with `key` over any adapter. */
export class EncryptedStorage implements StorageAdapter {
  /** The inner adapter's lock, when it has one. */
  readonly lock?: (name: string) => Promise<StorageLock>;
  /** Set when opening found the store's encryption mark damaged and wrote it again. */
  repairedMark = false;

  constructor(
    private readonly inner: StorageAdapter,
    private readonly key: CryptoKey,
  ) {
    if (inner.lock) this.lock = (name) => inner.lock!(name);
  }

  /** The value under `key`; a value that does not open with this key is `CHECKSUM` (altered or corrupt). */
  async get(key: string): Promise<Uint8Array | undefined> {
    const v = await this.inner.get(key);
    if (v === undefined) return undefined;
    if (v.length < HEAD || MAGIC.some((b, i) => v[i] !== b) || v[4] !== VERSION) {
      throw new EngramDataError("CHECKSUM", `stored value ${key} is not encrypted (or is from a newer version): corrupt, or written without the key`);
    }
    try {
      return await decrypt(this.key, v.subarray(HEAD), utf8(key));
    } catch (e) {
      throw new EngramDataError("CHECKSUM", `stored value ${key} fails its authentication tag: altered or corrupt`, { cause: e });
    }
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    const sealed = await encrypt(this.key, value, utf8(key));
    const out = new Uint8Array(HEAD + sealed.length);
    out.set(MAGIC, 0);
    out[4] = VERSION;
    out.set(sealed, HEAD);
    await this.inner.put(key, out);
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
export async function encryptedStore(storage: StorageAdapter, prefix: string, key: CryptoKey | undefined): Promise<StorageAdapter> {
  const markKey = `${prefix}${MARK}`;
  const mark = await storage.get(markKey);
  if (!key) {
    if (mark || (await looksEncrypted(storage, prefix))) throw keyError(`the store "${prefix}" is encrypted: open it with encryption: { key }, the key it was written with`);
    return storage;
  }
  const store = new EncryptedStorage(storage, key);
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
