import { openDB, type IDBPDatabase } from "idb";
import { EngramIoError } from "../errors.js";
import { SecondCopy } from "./second-copy.js";
import type { StorageAdapter } from "./types.js";

/**
 * DOM's `IDBFactory` (e.g. `fake-indexeddb`'s `indexedDB`) where the DOM lib is loaded;
 * elsewhere (a Worker or Node app without it) `never`: there is no IndexedDB to give.
 * Declared so that these types check without the DOM lib.
 */
export type IndexedDBFactory = typeof globalThis extends { indexedDB: infer F } ? F : never;

/**
 * IndexedDB storage for browsers (through the `idb` package). One object store of
 * `Uint8Array` values; each call is its own transaction, complete when the promise resolves —
 * written with `durability: "strict"`, so resolved means flushed to disk (like the fsync of
 * `NodeFileStorage`), not merely handed to the OS.
 *
 * A browser may delete a database it finds corrupt: Chromium does so when its LevelDB log
 * fails a checksum, which a kill of the browser between two of its own writes can leave
 * behind (see the README's *Storage*). Where the origin private file system exists
 * (`navigator.storage.getDirectory()`, every current browser) this adapter notes each
 * database it opens there, in another store than IndexedDB's, written at once, so it can
 * tell such a deletion from a store that never existed:
 * {@link IndexedDbStorage.discarded} (and `Engram`'s `openReport.storageLost`) say so,
 * instead of the store opening silently empty. Delete a database on purpose with
 * {@link IndexedDbStorage.destroy}, which forgets the note too.
 *
 * There too it keeps a second copy of every value (`second-copy.ts`), written before a
 * write resolves: the open that finds the database deleted puts the copy back
 * ({@link IndexedDbStorage.restored}), so the acknowledged writes are not lost with it.
 * `{ secondCopy: false }` turns it off (each write then costs one write, not two).
 */
/** Options of {@link IndexedDbStorage}. */
export interface IndexedDbOptions {
  /** Keep a second copy of every value in the origin private file system (default true where it exists). */
  secondCopy?: boolean;
}

export class IndexedDbStorage implements StorageAdapter {
  private db: Promise<IDBPDatabase>;
  private lost = false;
  private copy: SecondCopy | undefined;
  private restoredKeys = 0;
  constructor(name = "engram", private readonly store = "kv", factory?: IndexedDBFactory, options: IndexedDbOptions = {}) {
    const storeName = store;
    let created = false;
    const open = () =>
      openDB(name, 1, {
        upgrade(db, oldVersion) {
          created = oldVersion === 0;
          if (!db.objectStoreNames.contains(storeName)) db.createObjectStore(storeName);
        },
      });
    if (factory) {
      const g = globalThis as { indexedDB?: IDBFactory };
      const saved = g.indexedDB;
      g.indexedDB = factory;
      try {
        this.db = open();
      } finally {
        g.indexedDB = saved;
      }
    } else {
      // The note lives beside the page's own indexedDB; a custom factory has no such origin.
      this.db = open().then(async (db) => {
        // Bounded: a file system that never answers must not hold every storage call.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), NOTE_TIMEOUT_MS)));
        this.lost = await Promise.race([noteDatabase(name, created), late]).finally(() => clearTimeout(timer));
        if (options.secondCopy !== false) await this.openCopy(db, name).catch(() => undefined);
        return db;
      });
    }
  }
  /**
   * True when this open created the database although this origin had opened it before
   * (its note in the origin private file system says so) and it was not removed by
   * {@link IndexedDbStorage.destroy}: the browser, or something outside engram, deleted it
   * and what it held is gone. Always false where that file system is missing or a custom
   * `IDBFactory` was given. Clearing the site's data removes the note with the database.
   *
   * It describes this adapter's open of the database, so it stays true for every `Engram`
   * opened on this instance (each user's store in the database was lost alike). Only the
   * connection that recreated the database can tell: another tab opening it at the same
   * moment (a session restore) finds a database that already exists, and no report.
   */
  async discarded(): Promise<boolean> {
    await this.db;
    return this.lost;
  }
  /**
   * How many values the open put back from the second copy, after it found the database
   * deleted ({@link IndexedDbStorage.discarded}); 0 otherwise.
   */
  async restored(): Promise<number> {
    await this.db;
    return this.restoredKeys;
  }

  /** The second copy: put back into a deleted database, or filled once from the database. */
  private async openCopy(db: IDBPDatabase, name: string): Promise<void> {
    const copy = await SecondCopy.open(name, this.store);
    if (!copy) return;
    if (this.lost && copy.complete) {
      for await (const [key, value] of copy.entries()) {
        await db.put(this.store, value.slice(), key);
        this.restoredKeys++;
      }
    } else if (!copy.complete) {
      const keys = (await db.getAllKeys(this.store)) as string[];
      for (const key of keys) {
        const v = await db.get(this.store, key);
        if (v !== undefined) await copy.put(key, new Uint8Array(v as ArrayBuffer | Uint8Array));
      }
      await copy.markComplete();
    }
    this.copy = copy;
  }

  /** Write to the second copy too; a copy that fails a write stops counting (see `second-copy.ts`). */
  private async copied(f: (copy: SecondCopy) => Promise<void>): Promise<void> {
    const copy = this.copy;
    if (!copy) return;
    try {
      await f(copy);
    } catch {
      this.copy = undefined;
      await copy.invalidate();
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const v = await (await this.db).get(this.store, key);
    return v === undefined ? undefined : new Uint8Array(v as ArrayBuffer | Uint8Array);
  }
  async put(key: string, value: Uint8Array): Promise<void> {
    const db = await this.db;
    const tx = db.transaction(this.store, "readwrite", { durability: "strict" });
    await Promise.all([tx.store.put(value.slice(), key).then(() => tx.done), this.copied((c) => c.put(key, value))]);
  }
  async delete(key: string): Promise<void> {
    const db = await this.db;
    const tx = db.transaction(this.store, "readwrite", { durability: "strict" });
    await Promise.all([tx.store.delete(key).then(() => tx.done), this.copied((c) => c.delete(key))]);
  }
  async list(prefix: string): Promise<string[]> {
    const range = IDBKeyRange.bound(prefix, prefix + "\uffff");
    const keys = await (await this.db).getAllKeys(this.store, range);
    return (keys as string[]).filter((k) => k.startsWith(prefix)).sort();
  }
  /** Close the database connection. */
  async close(): Promise<void> {
    (await this.db).close();
  }
  /**
   * Delete the database `name` and forget its note, so that the next open starts a new
   * store without reporting it discarded. Close this page's connections to it first; while
   * another tab holds it open this rejects with `STORE_LOCKED`, and the browser deletes it
   * once that tab closes it. `factory` as in the constructor (then there is no note).
   */
  static async destroy(name = "engram", factory?: IndexedDBFactory): Promise<void> {
    // The note goes before (a deletion blocked, then let through later, is not a loss) and
    // again after (another tab's open may have written it in between).
    const forget = async () => {
      if (factory) return;
      const notes = await notesDirectory(false);
      await notes?.removeEntry(noteName(name)).catch(() => undefined);
    };
    await forget();
    if (!factory) await SecondCopy.remove(name);
    await new Promise<void>((resolve, reject) => {
      const r = (factory ?? indexedDB).deleteDatabase(name);
      r.onsuccess = () => resolve();
      r.onerror = () => reject(new EngramIoError("STORAGE", `deleting IndexedDB database ${name} failed: ${r.error?.message}`, { cause: r.error }));
      r.onblocked = () => reject(new EngramIoError("STORE_LOCKED", `IndexedDB database ${name} is still open in another connection`));
    });
    await forget();
  }
}

/** How long opening waits for the note before it goes on without one. */
const NOTE_TIMEOUT_MS = 3000;

/** The note's file name: one file per database, in the directory `engram-indexeddb`. */
const noteName = (name: string) => encodeURIComponent(name);

/** The notes' directory in the origin private file system, or undefined where there is none. */
async function notesDirectory(create: boolean): Promise<FileSystemDirectoryHandle | undefined> {
  try {
    const root = await (globalThis as { navigator?: Navigator }).navigator?.storage?.getDirectory?.();
    return await root?.getDirectoryHandle("engram-indexeddb", { create });
  } catch {
    return undefined; // no such file system here, or no notes directory yet
  }
}

/** Note that `name` exists; true when it was just created although it had been noted before. */
async function noteDatabase(name: string, created: boolean): Promise<boolean> {
  const notes = await notesDirectory(true);
  if (!notes) return false;
  try {
    const known = await notes.getFileHandle(noteName(name)).then(
      () => true,
      () => false,
    );
    if (!known) await notes.getFileHandle(noteName(name), { create: true });
    return created && known;
  } catch {
    return false; // the note could not be written (quota, a locked file): no note, no report
  }
}
