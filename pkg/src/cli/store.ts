/**
 * Where the CLI and the MCP server keep a user's memory on disk: one
 * {@link NodeFileStorage} directory per user, `<dir>/<tenant>/<user>/` under a root
 * (`--dir`, `ENGRAM_DIR`, default `~/.engram`), or exactly the directory given with
 * `--store` (a store your own code opened with `new NodeFileStorage(path)`).
 * @module
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { Engram, NodeFileStorage, EngramInputError, type OpenOptions } from "../entrypoints/node.js";

/** How to find and open one user's store. */
export interface StoreOptions {
  /** Root of the per-user directories (default `ENGRAM_DIR`, else `~/.engram`). */
  dir?: string;
  /** Exactly this directory (overrides `dir`). */
  store?: string;
  /** The user (default `ENGRAM_USER`). */
  user?: string;
  /** The tenant (default `ENGRAM_TENANT`, else `"default"`). */
  tenant?: string;
  /** Sync with this origin (default `ENGRAM_ORIGIN`), with `token` (default `ENGRAM_TOKEN`). */
  origin?: string;
  token?: string;
  /** `false`: open without the default embedder (reading a store made with another one). */
  embed?: boolean;
  /** Sync in the background (the MCP server) rather than only when asked (the CLI). */
  background?: boolean;
}

/** The directory of a user's store. */
export function storeDir(o: StoreOptions, env: NodeJS.ProcessEnv = process.env): string {
  if (o.store) return o.store;
  const root = o.dir || env.ENGRAM_DIR || join(homedir(), ".engram");
  return join(root, encodeURIComponent(tenantOf(o, env)), encodeURIComponent(userOf(o, env)));
}

/** The user named by the options or the environment; `INVALID_INPUT` when neither does. */
export function userOf(o: StoreOptions, env: NodeJS.ProcessEnv = process.env): string {
  const user = o.user || env.ENGRAM_USER;
  if (!user) throw new EngramInputError("INVALID_INPUT", "no user: pass --user <id> or set ENGRAM_USER");
  return user;
}

function tenantOf(o: StoreOptions, env: NodeJS.ProcessEnv): string {
  return o.tenant || env.ENGRAM_TENANT || "default";
}

/**
 * With `--store DIR` and no user: the one user (and tenant) whose memory the directory
 * holds, so `--store` alone opens a store your own code made; `"default"` for an empty
 * directory. Several users: `INVALID_INPUT` naming them.
 */
export async function resolveStoreUser(o: StoreOptions, env: NodeJS.ProcessEnv = process.env): Promise<StoreOptions> {
  if (!o.store || o.user || env.ENGRAM_USER) return o;
  const keys = await new NodeFileStorage(o.store).list("engram/");
  const scopes = new Map<string, { tenant: string; user: string }>();
  for (const k of keys) {
    const [, tenant, user] = k.split("/");
    if (tenant && user) scopes.set(`${tenant}/${user}`, { tenant, user });
  }
  const wanted = o.tenant || env.ENGRAM_TENANT;
  const found = [...scopes.values()].filter((s) => !wanted || s.tenant === wanted);
  if (found.length === 0) return { ...o, user: "default" };
  if (found.length === 1) return { ...o, user: found[0].user, tenant: found[0].tenant };
  throw new EngramInputError("INVALID_INPUT", `${o.store} holds the memory of ${found.length} users (${found.map((s) => `${s.tenant}/${s.user}`).join(", ")}): pass --user (and --tenant)`);
}

/** Open the store `o` names (its options as {@link Engram.open} takes them). */
export function openOptions(o: StoreOptions, env: NodeJS.ProcessEnv = process.env): OpenOptions {
  const user = userOf(o, env);
  const origin = o.origin || env.ENGRAM_ORIGIN;
  const token = o.token || env.ENGRAM_TOKEN;
  if (origin && !token) throw new EngramInputError("INVALID_INPUT", "syncing with an origin needs a token: set ENGRAM_TOKEN (see `engram token`)");
  return {
    user,
    tenant: tenantOf(o, env),
    storage: new NodeFileStorage(storeDir(o, env)),
    ...(o.embed === false ? { embedder: false as const } : {}),
    ...(origin && token ? { sync: { url: origin, token, background: o.background ?? false } } : {}),
  };
}

/** Open the store `o` names. */
export async function openStore(o: StoreOptions, env: NodeJS.ProcessEnv = process.env): Promise<Engram> {
  return Engram.open(openOptions(await resolveStoreUser(o, env), env));
}
