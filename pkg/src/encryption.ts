/**
 * Encryption at rest with a key the user holds: AES-256-GCM through WebCrypto
 * (`crypto.subtle`: Node 20+, browsers, workerd), a random 12-byte IV per value. What is
 * encrypted where is described in {@link EncryptionOptions}; the storage side is
 * `storage/encrypted.ts`, the sync side `sync/opaque.ts`.
 * @module
 */
import { EngramInputError } from "./errors.js";

/** Options of encryption at rest ({@link OpenOptions.encryption}). */
export interface EncryptionOptions {
  /**
   * 32 bytes (AES-256), or an AES-GCM `CryptoKey` allowed to encrypt and decrypt. Kept in
   * memory, never stored: a store written with it cannot be read without it, and a lost
   * key is lost data. Every device of a user that syncs needs the same key.
   */
  key: Uint8Array | CryptoKey;
  /**
   * Keys the user's memories were sealed with before a {@link Engram.rekey} (on this or
   * another device): what the origin still holds sealed with one of them is read with it.
   * The store itself is always read and written with `key`.
   */
  previousKeys?: (Uint8Array | CryptoKey)[];
}

/** A key as the store uses it, with its bytes where they are known (a 32-byte key, or an extractable `CryptoKey`). */
export interface StoreKey {
  key: CryptoKey;
  raw: Uint8Array | undefined;
}

/** `key` checked and imported, with its bytes where they can be had ({@link StoreKey}). */
export async function importStoreKey(key: unknown): Promise<StoreKey> {
  const k = await importEncryptionKey({ key } as EncryptionOptions);
  if (key instanceof Uint8Array) return { key: k, raw: key.slice() };
  const raw = k.extractable ? new Uint8Array(await crypto.subtle.exportKey("raw", k)) : undefined;
  return { key: k, raw };
}

/** The `EngramInputError` code of every key problem: no key, another key, a key where none was used. */
export const KEY_ERROR = "ENCRYPTION_KEY";

/** An `ENCRYPTION_KEY` error with `message`. */
export function keyError(message: string, cause?: unknown): EngramInputError {
  return new EngramInputError(KEY_ERROR, message, cause === undefined ? undefined : { cause });
}

const IV = 12;

/** The AES-GCM key of `opts`, checked: 32 bytes, or a `CryptoKey` usable for both directions. */
export async function importEncryptionKey(opts: EncryptionOptions): Promise<CryptoKey> {
  const key = (opts as { key?: unknown } | null)?.key;
  if (key instanceof Uint8Array) {
    if (key.length !== 32) throw new EngramInputError("INVALID_INPUT", `encryption.key must be 32 bytes, got ${key.length}`);
    return crypto.subtle.importKey("raw", key.slice(), { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
  }
  const k = key as CryptoKey | undefined;
  if (typeof CryptoKey !== "undefined" && k instanceof CryptoKey) {
    if (k.algorithm.name !== "AES-GCM" || !k.usages.includes("encrypt") || !k.usages.includes("decrypt")) {
      throw new EngramInputError("INVALID_INPUT", "encryption.key must be an AES-GCM CryptoKey with the usages encrypt and decrypt");
    }
    return k;
  }
  throw new EngramInputError("INVALID_INPUT", "encryption.key must be a 32-byte Uint8Array or an AES-GCM CryptoKey");
}

/** IV (12 random bytes) followed by the AES-GCM ciphertext and tag of `plain`, bound to `aad`. */
export async function encrypt(key: CryptoKey, plain: Uint8Array, aad: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(IV));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad as BufferSource }, key, plain as BufferSource));
  const out = new Uint8Array(IV + ct.length);
  out.set(iv, 0);
  out.set(ct, IV);
  return out;
}

/** The plaintext of {@link encrypt}'s output; rejects (an `OperationError`) on another key, `aad` or altered bytes. */
export async function decrypt(key: CryptoKey, sealed: Uint8Array, aad: Uint8Array): Promise<Uint8Array> {
  if (sealed.length < IV + 16) throw new Error("too short for AES-GCM");
  const iv = sealed.subarray(0, IV);
  return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: iv as BufferSource, additionalData: aad as BufferSource }, key, sealed.subarray(IV) as BufferSource));
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Standard base64 (browsers, Node and workerd all have `btoa`/`atob`). */
export function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The bytes of a base64 string; throws on characters outside the alphabet. */
export function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
