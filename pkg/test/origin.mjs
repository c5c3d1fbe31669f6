// The real origin for SDK tests: the engram-origin binary over the MongoDB-wire server at
// MONGODB_URI (scripts/mongo.sh starts SecantusDB), a database of its own per origin, and
// HS256 tokens minted here as any backend would.
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SECRET = "sdk-test-secret-sdk-test-secret-!!";
const BIN = fileURLToPath(new URL("../../target/release/engram-origin", import.meta.url));

const b64 = (b) => Buffer.from(b).toString("base64url");

/** A token for `user` of `tenant`, valid for `ttl` seconds. */
export function token(user, { tenant = "default", ttl = 3600, secret = SECRET } = {}) {
  const head = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64(JSON.stringify({ tenant, sub: user, exp: Math.floor(Date.now() / 1000) + ttl }));
  const sig = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${sig}`;
}

let n = 0;

/** Start an origin; `restart()` starts it again on the same port and database. */
export async function startOrigin(env = {}) {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: cargo build --release -p engram-origin`);
  const db = `engram_sdk_${process.pid}_${n++}`;
  const o = { db, url: "", proc: undefined, logs: "", port: 0 };
  o.start = async () => {
    const child = spawn(BIN, [], {
      env: {
        ...process.env,
        ENGRAM_SECRET: SECRET,
        ENGRAM_DB: db,
        ENGRAM_BIND: `127.0.0.1:${o.port}`,
        MONGODB_URI: process.env.MONGODB_URI ?? "mongodb://127.0.0.1:27017/",
        ENGRAM_RATE_PER_SEC: "10000",
        ENGRAM_RATE_BURST: "10000",
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    o.proc = child;
    const addr = await new Promise((resolve, reject) => {
      let buf = "";
      const timer = setTimeout(() => reject(new Error(`origin did not start: ${buf}`)), 20_000);
      child.stderr.on("data", (d) => {
        buf += d;
        o.logs += d;
        const m = buf.match(/"addr":"([^"]+)"/);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.on("exit", (code) => reject(new Error(`origin exited ${code}: ${buf}`)));
    });
    o.port = Number(addr.split(":").pop());
    o.url = `http://${addr}`;
  };
  o.kill = async (signal = "SIGKILL") => {
    const p = o.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise((r) => p.once("exit", r));
    p.kill(signal);
    await gone;
  };
  o.restart = async () => {
    await o.kill();
    await o.start();
  };
  o.get = async (path, user, tenant) => {
    const res = await fetch(`${o.url}${path}`, { headers: { authorization: `Bearer ${token(user, { tenant })}` } });
    return { status: res.status, body: await res.json() };
  };
  await o.start();
  return o;
}

/** Every memory of `user` at the origin (following pages). */
export async function originMemories(o, user, { history = false } = {}) {
  const all = [];
  let after = "";
  for (;;) {
    const { status, body } = await o.get(`/v1/memories?limit=500&history=${history}${after ? `&after=${after}` : ""}`, user);
    if (status !== 200) throw new Error(`list ${status}: ${JSON.stringify(body)}`);
    all.push(...body.memories);
    if (!body.next) return all;
    after = encodeURIComponent(body.next);
  }
}
