/**
 * Encrypted sync: what the origin receives of a record that is not public (and of a
 * session summary) is its metadata — ids, stamps, scope, kind, keys, tags — and, for its
 * text, `engram-opaque:v1:` + base64 of an AES-GCM ciphertext; its embedding is not sent.
 * The core cuts batches into payloads and puts texts back (one codec for op batches);
 * this file only encrypts and decrypts. Each ciphertext is bound to the user, and each
 * payload names its record, so the origin cannot move one onto another.
 * @module
 */
import { opaqueJoin, opaqueParts } from "../core.js";
import { decrypt, encrypt, fromBase64, keyError, toBase64, utf8 } from "../encryption.js";
import { fromCore } from "../errors.js";

const PREFIX = "engram-opaque:v1:";
const NEEDLE = utf8(PREFIX);

/** Additional data of every ciphertext of `tenant`'s `user`. */
export function opaqueContext(tenant: string, user: string): Uint8Array {
  return utf8(`${PREFIX}${JSON.stringify([tenant, user])}`);
}

/** A local op batch as the origin may see it. */
export async function toOrigin(batch: Uint8Array, key: CryptoKey, aad: Uint8Array): Promise<Uint8Array> {
  const payloads = core(() => opaqueParts(batch, true));
  if (payloads.length === 0) return batch;
  const texts = await Promise.all(payloads.map(async (p) => utf8(PREFIX + toBase64(await encrypt(key, p, aad)))));
  return core(() => opaqueJoin(batch, true, texts));
}

/**
 * A pulled op batch as it was written: opaque texts decrypted with the first of `keys`
 * they open with. A batch with opaque texts and no key, or none they open with, is
 * `ENCRYPTION_KEY` (nothing is applied).
 */
export async function fromOrigin(batch: Uint8Array, keys: CryptoKey[], aad: Uint8Array): Promise<Uint8Array> {
  // Strings are plain UTF-8 in the core's codec: no prefix in the bytes, no opaque text.
  if (!contains(batch, NEEDLE)) return batch;
  const texts = core(() => opaqueParts(batch, false)).map((t) => new TextDecoder().decode(t));
  if (texts.length === 0) return batch;
  if (keys.length === 0) throw keyError("the origin holds memories another device of this user encrypted: open with encryption: { key }, the same key");
  const payloads = await Promise.all(
    texts.map(async (t) => {
      const sealed = fromBase64(t.slice(PREFIX.length));
      // The store's key first, then the keys it had before a rotation (`previousKeys`).
      let last: unknown;
      for (const key of keys) {
        try {
          return await decrypt(key, sealed, aad);
        } catch (e) {
          last = e;
        }
      }
      throw keyError("memories pulled from the origin do not open with this encryption key (nor a previous one): every device of a user needs the same key; after a rekey, pass the old one in encryption.previousKeys", last);
    }),
  );
  return core(() => opaqueJoin(batch, false, payloads));
}

function core<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw fromCore(e);
  }
}

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  for (let i = hay.indexOf(first); i !== -1 && i + needle.length <= hay.length; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}
