import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, readdir, rename, rm, stat, utimes, writeFile, open } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { EngramIoError } from "../errors.js";
import type { StorageAdapter, StorageLock } from "./types.js";

/**
 * Node file storage: one file per key under a directory. Writes go to a temporary file,
 * are fsynced, then renamed over the target, so a crash leaves the old value or the new
 * one, never a torn file. Keys are encoded so any string is a safe file name.
 *
 * {@link NodeFileStorage.lock} is an exclusive lock file per namespace (`<name>.lock`,
 * created atomically with a hard link, never half-written), naming its holder's pid, host
 * and start time and this directory's identity. A lock whose holder is gone is stale and
 * taken over: its pid is dead on this host (the writer was killed with `kill -9`) or now
 * belongs to another process, the directory is a copy, or it names another host and its
 * holder has not refreshed it for {@link LOCK_STALE_MS} (a store moved between machines;
 * a live holder touches its lock every {@link LOCK_REFRESH_MS}).
 */
export class NodeFileStorage implements StorageAdapter {
  /** The lock is a file: it excludes other processes, so it is taken even beside Web Locks. */
  readonly lockSpansProcesses = true;

  constructor(private readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, encodeName(key) + ".bin");
  }

  private swept = false;

  /** Take the lock `name`; `STORE_LOCKED`, naming the holder, while a live writer has it. */
  async lock(name: string): Promise<StorageLock> {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, encodeName(name) + ".lock");
    const me: LockInfo = {
      pid: process.pid,
      host: hostname(),
      started: await startTime(process.pid),
      dir: await dirIdentity(this.dir),
      token: randomBytes(12).toString("hex"),
      since: new Date().toISOString(),
    };
    for (let attempt = 0; attempt < 8; attempt++) {
      if (await createExclusive(path, JSON.stringify(me))) {
        await sweepTemporaries(this.dir);
        return holdLock(path, me.token);
      }
      const found = await readLock(path);
      if (!found) continue; // released between our two calls
      const stale = await staleBecause(found, me);
      if (!stale) {
        const h = found.info;
        const who = h ? `pid ${h.pid} on ${h.host} (since ${h.since})` : "a writer that is taking it right now";
        throw new EngramIoError("STORE_LOCKED", `${this.dir} is held by ${who}: one writer per store; close that Engram (or stop that process) first. Lock file: ${path}`);
      }
      await takeOver(path, found, me.token);
    }
    throw new EngramIoError("STORE_LOCKED", `could not take the lock ${path}: it keeps changing hands`);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.path(key)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const target = this.path(key);
    const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const fh = await open(tmp, "w");
    try {
      await fh.writeFile(value);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    // Opening a store lists it first: dead writers' leftovers go then, before any write.
    if (!this.swept) {
      this.swept = true;
      await sweepTemporaries(this.dir);
    }
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    return names
      .filter((n) => n.endsWith(".bin"))
      .map((n) => decodeURIComponent(n.slice(0, -4)))
      .filter((k) => k.startsWith(prefix))
      .sort();
  }
}

function encodeName(key: string): string {
  return encodeURIComponent(key).replace(/\./g, "%2E");
}

/** A live holder touches its lock file this often. */
export const LOCK_REFRESH_MS = 10_000;
/** A lock from another host not touched for this long is stale. */
export const LOCK_STALE_MS = 60_000;

/** What a lock file holds. */
interface LockInfo {
  pid: number;
  host: string;
  /** The holder's start time in clock ticks since boot (Linux), to tell a reused pid. */
  started?: string;
  /** `dev:ino` of the store's directory: a copied directory has another. */
  dir?: string;
  token: string;
  since: string;
}

/** Tokens of the locks this process holds (a dead process that had our pid held the others). */
const HELD = new Set<string>();

async function createExclusive(path: string, body: string): Promise<boolean> {
  // Write the whole file aside, then link it into place: the link fails if a lock exists,
  // and a reader never sees a half-written lock.
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(tmp, body, { flush: true });
  try {
    await link(tmp, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw e;
    // A file system without hard links: create exclusively (a reader may see it empty, briefly).
    try {
      await writeFile(path, body, { flag: "wx", flush: true });
      return true;
    } catch (e2) {
      if ((e2 as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e2;
    }
  } finally {
    await rm(tmp, { force: true });
  }
}

async function readLock(path: string): Promise<{ raw: string; info?: LockInfo; mtimeMs: number } | undefined> {
  try {
    const [raw, st] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    let info: LockInfo | undefined;
    try {
      const j = JSON.parse(raw) as LockInfo;
      if (Number.isSafeInteger(j.pid) && typeof j.host === "string" && typeof j.token === "string") info = j;
    } catch {
      // unreadable: judged by its age below
    }
    return { raw, info, mtimeMs: st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** Why the lock `found` no longer protects a writer, or undefined while it does. */
async function staleBecause(found: { info?: LockInfo; mtimeMs: number }, me: LockInfo): Promise<string | undefined> {
  const h = found.info;
  const age = Date.now() - found.mtimeMs;
  if (!h) return age > LOCK_STALE_MS ? "unreadable and old" : undefined;
  if (h.dir && me.dir && h.dir !== me.dir) return "taken in the directory this one was copied from";
  if (h.host !== me.host) return age > LOCK_STALE_MS ? "another host's, not refreshed" : undefined;
  if (h.pid === process.pid) return HELD.has(h.token) ? undefined : "left by an earlier process with this pid";
  if (!alive(h.pid)) return "its process is gone";
  if (h.started && (await startTime(h.pid)) !== h.started) return "its pid now belongs to another process";
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

/** A process's start time from /proc (Linux); undefined elsewhere. */
async function startTime(pid: number): Promise<string | undefined> {
  try {
    const s = await readFile(`/proc/${pid}/stat`, "utf8");
    return s.slice(s.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

async function dirIdentity(dir: string): Promise<string | undefined> {
  try {
    const st = await stat(dir, { bigint: true });
    return st.ino === 0n ? undefined : `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** Move a stale lock aside; if what we moved was a fresh lock someone just took, put it back. */
async function takeOver(path: string, stale: { raw: string }, token: string): Promise<void> {
  const aside = `${path}.${token}.stale`;
  try {
    await rename(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  try {
    const moved = await readFile(aside, "utf8");
    if (moved !== stale.raw) await link(aside, path).catch(() => undefined);
  } finally {
    await rm(aside, { force: true });
  }
}

function holdLock(path: string, token: string): StorageLock {
  HELD.add(token);
  // Refreshed while held, so that another host can tell a live holder from a gone one.
  const timer = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, LOCK_REFRESH_MS);
  timer.unref?.();
  let held = true;
  return {
    release: async () => {
      if (!held) return;
      held = false;
      clearInterval(timer);
      HELD.delete(token);
      // Only our own: after a takeover the file may be another writer's.
      const found = await readLock(path);
      if (found?.info?.token === token) await rm(path, { force: true });
    },
  };
}

/**
 * Remove the temporary files (`<file>.<pid>.….tmp`) that writers killed between their write
 * and their rename left behind: only those of a pid that is no longer alive, so a live
 * writer of another namespace in the same directory keeps its own. Best effort.
 */
async function sweepTemporaries(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /\.(\d+)(?:\.[0-9a-z]+)?\.tmp$/.exec(name);
    if (m && !alive(Number(m[1]))) await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

/** Write `value` to `path` atomically (temp file + rename). */
export async function writeFileAtomic(path: string, value: Uint8Array): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, value);
  await rename(tmp, path);
}
