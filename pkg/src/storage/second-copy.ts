/**
 * A second copy of an IndexedDB database's values, in the origin private file system
 * (OPFS): the browser may delete a whole IndexedDB database it finds corrupt (Chromium does,
 * after some kills; see `indexeddb.ts`), and OPFS is another store it leaves alone. Every
 * value `IndexedDbStorage` writes is written here too before the write resolves, so an
 * acknowledged write survives such a deletion; the open that finds the database gone puts
 * the copy back.
 *
 * One file per value, `<name>/<store>/<file>`: the file holds the value's key (u16 LE
 * length, UTF-8) then the value, written through `createWritable` (a swap file, moved into
 * place on close). The copy counts only once it is `complete` (a marker file written after
 * it was filled from the database); a write to it that fails removes the marker, so a copy
 * missing a value is never put back.
 * @module
 */

/** Where the copies live in the origin private file system. */
const ROOT = "engram-copy";
const COMPLETE = ".complete";

export class SecondCopy {
  private constructor(
    private readonly dir: FileSystemDirectoryHandle,
    /** Whether the copy holds every value of the database (see the module). */
    public complete: boolean,
  ) {}

  /** The copy of database `name`'s object store `store`; undefined where OPFS or writable files are missing. */
  static async open(name: string, store: string): Promise<SecondCopy | undefined> {
    try {
      if (typeof FileSystemFileHandle === "undefined" || typeof (FileSystemFileHandle.prototype as { createWritable?: unknown }).createWritable !== "function") return undefined;
      const root = await (globalThis as { navigator?: Navigator }).navigator?.storage?.getDirectory?.();
      if (!root) return undefined;
      const top = await root.getDirectoryHandle(ROOT, { create: true });
      const db = await top.getDirectoryHandle(encodeURIComponent(name), { create: true });
      const dir = await db.getDirectoryHandle(encodeURIComponent(store), { create: true });
      const probe = await dir.getFileHandle(COMPLETE, { create: false }).then(
        () => true,
        () => false,
      );
      return new SecondCopy(dir, probe);
    } catch {
      return undefined;
    }
  }

  /** Forget the copies of database `name` (with `IndexedDbStorage.destroy`). */
  static async remove(name: string): Promise<void> {
    try {
      const root = await navigator.storage.getDirectory();
      const top = await root.getDirectoryHandle(ROOT);
      await top.removeEntry(encodeURIComponent(name), { recursive: true });
    } catch {
      // nothing to forget
    }
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    const k = new TextEncoder().encode(key);
    const body = new Uint8Array(2 + k.length + value.length);
    new DataView(body.buffer).setUint16(0, k.length, true);
    body.set(k, 2);
    body.set(value, 2 + k.length);
    const file = await this.dir.getFileHandle(await fileName(key), { create: true });
    const w = await file.createWritable();
    await w.write(body);
    await w.close();
  }

  async delete(key: string): Promise<void> {
    await this.dir.removeEntry(await fileName(key)).catch((e: unknown) => {
      if ((e as { name?: string })?.name !== "NotFoundError") throw e;
    });
  }

  /** Every value of the copy, with its key. */
  async *entries(): AsyncGenerator<[string, Uint8Array]> {
    for await (const [n, handle] of (this.dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
      if (handle.kind !== "file" || n === COMPLETE || n.endsWith(".crswap")) continue;
      const bytes = new Uint8Array(await (await (handle as FileSystemFileHandle).getFile()).arrayBuffer());
      if (bytes.length < 2) continue;
      const len = new DataView(bytes.buffer).getUint16(0, true);
      if (bytes.length < 2 + len) continue;
      yield [new TextDecoder().decode(bytes.subarray(2, 2 + len)), bytes.subarray(2 + len)];
    }
  }

  /** The copy holds every value: it may be put back. */
  async markComplete(): Promise<void> {
    await this.dir.getFileHandle(COMPLETE, { create: true });
    this.complete = true;
  }

  /** A write to the copy failed: it may no longer be put back (the next open fills it again). */
  async invalidate(): Promise<void> {
    this.complete = false;
    await this.dir.removeEntry(COMPLETE).catch(() => undefined);
  }
}

/** A file name for `key`: the key itself, escaped, when short; else its SHA-256. */
async function fileName(key: string): Promise<string> {
  const escaped = encodeURIComponent(key);
  if (escaped.length <= 180) return escaped;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  return `h-${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
