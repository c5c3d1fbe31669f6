import { mkdir, readFile, readdir, rename, rm, writeFile, open } from "node:fs/promises";
import { join } from "node:path";
import type { StorageAdapter } from "./types.js";

/**
 * Node file storage: one file per key under a directory. Writes go to a temporary file,
 * are fsynced, then renamed over the target, so a crash leaves the old value or the new
 * one, never a torn file. Keys are encoded so any string is a safe file name.
 */
export class NodeFileStorage implements StorageAdapter {
  constructor(private readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, encodeURIComponent(key).replace(/\./g, "%2E") + ".bin");
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

/** Write `value` to `path` atomically (temp file + rename). */
export async function writeFileAtomic(path: string, value: Uint8Array): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, value);
  await rename(tmp, path);
}
