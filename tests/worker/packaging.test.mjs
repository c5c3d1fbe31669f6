// The workerd row of the packaging matrix: the packed tarball (never the source tree) is
// installed into a plain worker project that imports only `engram`, bundled by wrangler's
// own esbuild, and run in workerd. If the package's entry setup is dropped by the bundler
// (`"sideEffects": false` on the package), every request fails with "no wasm source
// configured" and this test fails. Also: the real worker's bundle against the 3 MB limit.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { after, test } from "node:test";
import { OFFLINE_ENV, ROOT, WRANGLER, startWorker } from "./harness.mjs";

const work = mkdtempSync(join(tmpdir(), "engram-worker-pack-"));
after(() => rmSync(work, { recursive: true, force: true }));

function tarball() {
  if (process.env.ENGRAM_TARBALL) return process.env.ENGRAM_TARBALL;
  execFileSync("npm", ["pack", join(ROOT, "pkg"), "--pack-destination", work, "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
  return join(work, readdirSync(work).find((f) => f.endsWith(".tgz")));
}

/** Bundle a wrangler project as `wrangler deploy` would, offline; returns {files, raw, gzip}. */
function bundle(config, cwd) {
  const out = join(work, `bundle-${Math.random().toString(36).slice(2)}`);
  execFileSync(WRANGLER, ["deploy", "--dry-run", "--config", config, "--outdir", out], { cwd, env: { ...process.env, ...OFFLINE_ENV }, stdio: ["ignore", "pipe", "pipe"] });
  const files = readdirSync(out).filter((f) => !f.endsWith(".map") && f !== "README.md");
  let raw = 0;
  let gzip = 0;
  for (const f of files) {
    const b = readFileSync(join(out, f));
    raw += b.length;
    gzip += gzipSync(b, { level: 9 }).length;
  }
  return { files: files.map((f) => ({ name: f, size: statSync(join(out, f)).size })), raw, gzip };
}

test("the packed tarball, installed into a plain worker and bundled by wrangler, runs in workerd", async () => {
  const tgz = tarball();
  const app = join(work, "plain-worker");
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "plain-worker", private: true, type: "module", dependencies: { engram: `file:${tgz}` } }));
  writeFileSync(
    join(app, "wrangler.toml"),
    'name = "plain-worker"\nmain = "src/index.js"\ncompatibility_date = "2026-04-01"\nsend_metrics = false\n',
  );
  // Only the public entry: no useWorkerdTables, nothing imported from the package's files.
  writeFileSync(
    join(app, "src/index.js"),
    `import { Engram, MemoryStorage } from "engram";
export default {
  async fetch(req) {
    if (new URL(req.url).pathname === "/healthz") return new Response("ok");
    try {
      const mem = await Engram.open({ user: "u1", storage: new MemoryStorage(), embedder: false, tokenizer: false });
      await mem.remember("Prefers Go for backend services");
      const r = await mem.recall("which language for the backend");
      return Response.json({ hits: r.hits.map((h) => h.record.text) });
    } catch (e) {
      return Response.json({ error: String(e && e.message) }, { status: 500 });
    }
  },
};
`,
  );
  execFileSync("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"], { cwd: app, stdio: ["ignore", "ignore", "inherit"] });
  const installed = JSON.parse(readFileSync(join(app, "node_modules/engram/package.json"), "utf8"));
  assert.equal(installed.name, "engram");
  assert.ok(!statSync(join(app, "node_modules/engram")).isSymbolicLink(), "installed from the tarball, not linked to the source tree");

  const b = bundle(join(app, "wrangler.toml"), app);
  assert.ok(b.files.some((f) => f.name.endsWith(".wasm")), `the wasm core is a module of the bundle: ${JSON.stringify(b.files)}`);

  const w = await startWorker({ config: join(app, "wrangler.toml"), cwd: app, vars: {} });
  try {
    const res = await fetch(w.url);
    const body = await res.json();
    assert.equal(res.status, 200, `the bundled entry must set up the wasm core: ${JSON.stringify(body)}`);
    assert.deepEqual(body.hits, ["Prefers Go for backend services"]);
  } finally {
    await w.stop();
  }
});

test("the engram worker bundles under the 3 MB free-plan limit, with the tables outside the bundle", () => {
  const b = bundle(join(ROOT, "wrangler.toml"), ROOT);
  const limit = 3 * 1024 * 1024;
  console.log(`# engram worker bundle: ${(b.raw / 1024).toFixed(0)} KiB raw, ${(b.gzip / 1024).toFixed(0)} KiB gzip (limit ${limit / 1024} KiB gzip); ${b.files.map((f) => `${f.name} ${f.size}`).join(", ")}`);
  assert.ok(b.gzip < limit, `${b.gzip} bytes gzip`);
  for (const f of b.files) {
    assert.ok(!/engtok|engemb/.test(f.name), `a table is in the bundle: ${f.name}`);
    assert.ok(f.size < 2 * 1024 * 1024, `${f.name} is ${f.size} bytes: a table was bundled?`);
  }
});
