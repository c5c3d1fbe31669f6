// Drives the worker in real workerd: `wrangler dev --local` (wrangler 4.86.0 from worker/),
// started in its own process group and stopped by group, so no workerd is left behind.
// Offline: the environment turns off metrics and the cf fetch; servers bind 127.0.0.1.
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const WRANGLER = join(ROOT, "worker/node_modules/.bin/wrangler");
export const SECRET = "worker-tests-secret-0123456789abcdef";
export const OFFLINE_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", NO_COLOR: "1" };

/** A free TCP port on 127.0.0.1. */
/** Ports this process has handed out: the kernel may offer a just-closed one again. */
const handedOut = new Set();

export async function freePort() {
  for (;;) {
    const port = await new Promise((ok, fail) => {
      const s = createServer();
      s.once("error", fail);
      s.listen(0, "127.0.0.1", () => {
        const { port } = s.address();
        s.close(() => ok(port));
      });
    });
    // Two calls in a row (wrangler's port and its inspector's) must never get one number.
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** An HS256 token in the origin's format. */
export function token(tenant, sub, { ttl = 600, secret = SECRET, alg = "HS256", exp } = {}) {
  const b = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const body = `${b({ alg, typ: "JWT" })}.${b({ tenant, sub, exp: exp ?? Math.floor(Date.now() / 1000) + ttl })}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

/**
 * Start `wrangler dev` and wait until it serves. `vars` are passed with `--var`; `persistTo`
 * keeps state across restarts; `config` may list several (the first is served, the others
 * are reachable through its service bindings). Returns { url, port, inspectorPort, pid,
 * log(), stop(), crash() } (pid: wrangler's, the leader of the process group).
 */
export async function startWorker({ persistTo, vars = {}, config = join(ROOT, "wrangler.toml"), cwd = ROOT, timeoutMs = 90_000 } = {}) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const configs = (Array.isArray(config) ? config : [config]).flatMap((c) => ["--config", c]);
  const args = ["dev", ...configs, "--local", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false", "--inspector-port", String(inspectorPort)];
  if (persistTo) args.push("--persist-to", persistTo);
  for (const [k, v] of Object.entries({ ENGRAM_SECRET: SECRET, ...vars })) args.push("--var", `${k}:${v}`);
  const child = spawn(WRANGLER, args, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...OFFLINE_ENV } });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise((ok) => child.once("exit", ok));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }, 5000);
    await exited;
    clearTimeout(t);
    // workerd runs in the same group; make sure nothing of it is left.
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is empty
    }
  };
  /** SIGKILL the whole group at once: workerd gets no chance to flush anything. */
  const crash = async () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      return;
    }
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (/Ready on http/.test(out)) break;
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not become ready in ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = `http://127.0.0.1:${port}`;
  // The first request can race the runtime's last setup step: wait for /healthz.
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`worker never answered /healthz:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, port, inspectorPort, pid: child.pid, log: () => out, stop, crash };
}

/**
 * The repository's wrangler.toml with absolute paths (so it can live in a temp dir), with
 * `extra` TOML appended and `vars` added to its [vars]. Returns the new file's path.
 */
export function absoluteConfig(dir, { extra = "", vars = {} } = {}) {
  let toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8")
    .replace('main = "worker/src/index.ts"', `main = "${join(ROOT, "worker/src/index.ts")}"`)
    .replace('directory = "worker/.tables"', `directory = "${join(ROOT, "worker/.tables")}"`)
    .replace('migrations_dir = "worker/migrations"', `migrations_dir = "${join(ROOT, "worker/migrations")}"`);
  if (/"worker\//.test(toml)) throw new Error("a path of wrangler.toml is still relative");
  const lines = Object.entries(vars).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join("\n");
  toml = toml.replace("[vars]\n", `[vars]\n${lines}\n`);
  const file = join(dir, `wrangler-${Math.random().toString(36).slice(2)}.toml`);
  writeFileSync(file, `${toml}\n${extra}\n`);
  return file;
}

/** A client of the worker's HTTP API for one token. */
export function client(url, tok) {
  const call = async (method, path, body, headers = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(tok ? { authorization: `Bearer ${tok}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = { raw: text };
    }
    return { status: res.status, body: json, headers: res.headers };
  };
  return {
    call,
    remember: (m) => call("POST", "/v1/remember", typeof m === "string" ? { text: m } : m),
    observe: (session, turns) => call("POST", "/v1/observe", { session, turns }),
    recall: (query, opts = {}) => call("POST", "/v1/recall", { query, ...opts }),
    context: (query, budget, opts = {}) => call("POST", "/v1/context", { query, budget, ...opts }),
    list: (q = "") => call("GET", `/v1/memories${q}`),
    forget: (id) => call("DELETE", `/v1/memories/${encodeURIComponent(id)}`),
    forgetUser: () => call("POST", "/v1/forget", {}),
    sync: () => call("POST", "/v1/sync", {}),
    status: () => call("GET", "/v1/status"),
  };
}

/** Every memory of a user (pages through the list). */
export async function allTexts(c, q = "") {
  const out = [];
  for (let offset = 0; ; ) {
    const r = await c.list(`?limit=1000&offset=${offset}${q}`);
    if (r.status !== 200) throw new Error(`list: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.memories.map((m) => m.text));
    if (r.body.next === null) return out;
    offset = r.body.next;
  }
}

/** Poll `f` until it returns a truthy value or `ms` pass. */
export async function eventually(f, ms = 20_000, every = 200) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    last = await f();
    if (last) return last;
    if (Date.now() > deadline) return last;
    await new Promise((r) => setTimeout(r, every));
  }
}
