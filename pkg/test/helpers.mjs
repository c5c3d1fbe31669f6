// Test helpers: a deterministic embedder (feature hashing), a controllable clock,
// storage wrappers that fail or corrupt on demand, parity-file readers, and a local HTTP
// server playing an OpenAI-compatible chat endpoint.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { MemoryStorage } from "../dist/entrypoints/node.js";

export function hashEmbedder(dimension = 32, id = "test-hash") {
  return {
    id,
    dimension,
    calls: 0,
    async embed(texts) {
      this.calls++;
      return texts.map((t) => {
        const v = new Float32Array(dimension);
        for (const w of t.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) {
          let h = 2166136261;
          for (const c of w) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
          v[h % dimension] += h & 1 ? 1 : -1;
        }
        if (v.every((x) => x === 0)) v[0] = 1;
        return v;
      });
    },
  };
}

export function clock(start = 1_764_000_000_000) {
  const c = { t: start, now: () => c.t, advance: (ms) => (c.t += ms) };
  return c;
}

/** Memory storage whose puts can be made to fail. */
export class FlakyStorage extends MemoryStorage {
  failPuts = false;
  async put(key, value) {
    if (this.failPuts) throw new Error("disk full");
    return super.put(key, value);
  }
}

/**
 * Run the js block marked `<!-- marker … -->` in `doc` (a Markdown file named from the
 * repository root: the README, or a page of docs/) against the built package; returns what
 * it logged.
 */
export async function runReadmeExample(marker, doc = "README.md") {
  const { readFile, writeFile, mkdtemp } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const readme = await readFile(new URL(`../../${doc}`, import.meta.url), "utf8");
  const m = readme.match(new RegExp(`<!-- ${marker}[^>]*-->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\``));
  if (!m) throw new Error(`${doc} has no js block marked ${marker}`);
  const entry = new URL("../dist/entrypoints/node.js", import.meta.url).href;
  const file = join(await mkdtemp(join(tmpdir(), "engram-readme-")), "example.mjs");
  await writeFile(file, m[1].replace(/from "engram"/g, `from ${JSON.stringify(entry)}`));
  const logs = [];
  const orig = console.log;
  console.log = (...a) => logs.push(a);
  try {
    await import(file);
  } finally {
    console.log = orig;
  }
  return logs;
}

/** Cosine similarity of two vectors. */
export function cosine(a, b) {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (d += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return d / Math.sqrt(na * nb);
}

/** `[sentence, Float32Array]` rows of a parity file in crates/engram-testkit/data/. */
export function readParity(name) {
  return readFileSync(new URL(`../../crates/engram-testkit/data/${name}`, import.meta.url), "utf8")
    .split("\n")
    .filter((l) => l.includes("\t"))
    .map((l) => l.split("\t"))
    .map(([s, v]) => [s, Float32Array.from(v.split(" ").map(Number))]);
}

/** A chat endpoint whose answers the test decides; `hold` keeps requests pending until released. */
export async function chatServer() {
  const s = { requests: [], answers: [], held: [], hold: false };
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    s.requests.push({ url: req.url, headers: req.headers, body: JSON.parse(body) });
    const respond = () => {
      const [status, content] = s.answers.shift() ?? [200, { operations: [{ op: "NOOP" }] }];
      res.writeHead(status, { "content-type": "application/json" });
      const text = typeof content === "string" ? content : JSON.stringify(content);
      res.end(status === 200 ? JSON.stringify({ choices: [{ message: { role: "assistant", content: text } }] }) : text);
    };
    if (s.hold) s.held.push(respond);
    else respond();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  s.url = `http://127.0.0.1:${server.address().port}/v1`;
  s.release = () => s.held.splice(0).forEach((f) => f());
  // Answers what is still held, so that a failed test does not leave the server open.
  s.close = () => (s.release(), new Promise((r) => server.close(r)));
  return s;
}

export const until = async (cond) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), "condition reached");
};
