// The CLI as users run it: `node dist/cli/main.js …` in a child process, on a real store
// (NodeFileStorage under a temporary ENGRAM_DIR), the real wasm core and token tables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";

const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const SECRET = "cli-test-secret-cli-test-secret-!!";

async function tmp() {
  return mkdtemp(join(tmpdir(), "engram-cli-"));
}

/** Run the CLI; resolves to { code, stdout, stderr } (never rejects on a non-zero exit). */
function cli(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ENGRAM_SECRET: "", ...env }, encoding: "utf8", maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }),
    );
  });
}

const jsonl = (rows) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

test("import, list, search and history work on a user's store and agree with each other", async () => {
  const dir = await tmp();
  const env = { ENGRAM_DIR: dir, ENGRAM_USER: "alice" };
  const file = join(dir, "in.jsonl");
  const key = { subject: "alice", attribute: "backend language" };
  await writeFile(file, jsonl([
    { text: "Prefers Python for backend services", key },
    { text: "Lives in Berlin with two cats" },
    { text: "Switched from Python to Go for backend services", key },
  ]));
  const imp = await cli(["import", file, "--progress"], env);
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stdout, /^imported 3 memories: /);
  assert.match(imp.stderr, /importing \[#+\] 3\/3\n$/, "a progress bar that ends at the total");

  const list = await cli(["list", "--json"], env);
  assert.equal(list.code, 0, list.stderr);
  const current = JSON.parse(list.stdout);
  assert.deepEqual(current.map((r) => r.text).sort(), ["Lives in Berlin with two cats", "Switched from Python to Go for backend services"]);
  const all = JSON.parse((await cli(["list", "--all", "--json"], env)).stdout);
  assert.equal(all.length, 3, "--all includes the superseded version");

  const hist = JSON.parse((await cli(["history", "Alice", "backend language", "--json"], env)).stdout);
  assert.deepEqual(hist.map((r) => r.text), ["Prefers Python for backend services", "Switched from Python to Go for backend services"]);
  assert.equal(hist[0].supersededBy, hist[1].id);
  assert.equal(hist[1].supersededBy, null);
  const histHuman = await cli(["history", "alice", "backend language"], env);
  assert.match(histHuman.stdout.split("\n")[0], /superseded by /);
  assert.match(histHuman.stdout.split("\n")[1], /current/);

  const search = JSON.parse((await cli(["search", "which", "language", "for", "the", "backend?", "--json"], env)).stdout);
  assert.equal(search.route, "retrieve");
  assert.equal(search.hits[0].record.text, "Switched from Python to Go for backend services");
  assert.equal(typeof search.hits[0].parts.fused, "number");
  const human = await cli(["search", "which language for the backend?"], env);
  assert.match(human.stdout, /^1\. [\d.]+  \S+  "Switched from Python to Go for backend services"\n   .*decay [\d.]+, weight [\d.]+/);
});

test("a snapshot exported from one store imports into another, and never silently over a non-empty one", async () => {
  const dir = await tmp();
  const a = { ENGRAM_DIR: dir, ENGRAM_USER: "alice" };
  await writeFile(join(dir, "a.jsonl"), jsonl([{ text: "Allergic to peanuts" }, { text: "Works at a bakery" }]));
  assert.equal((await cli(["import", join(dir, "a.jsonl")], a)).code, 0);
  const snap = join(dir, "alice.snap");
  const exp = await cli(["export", "--out", snap, "--json"], a);
  assert.equal(exp.code, 0, exp.stderr);
  assert.equal(JSON.parse(exp.stdout).bytes, (await readFile(snap)).length);

  const other = join(dir, "exact-store");
  const b = ["--store", other, "--user", "alice"];
  const into = await cli(["import", snap, ...b]);
  assert.equal(into.code, 0, into.stderr);
  const texts = (out) => JSON.parse(out).map((r) => r.text).sort();
  assert.deepEqual(texts((await cli(["list", "--json", ...b])).stdout), ["Allergic to peanuts", "Works at a bakery"]);

  await writeFile(join(dir, "c.jsonl"), jsonl([{ text: "Plays the cello on Sundays" }]));
  assert.equal((await cli(["import", join(dir, "c.jsonl"), ...b])).code, 0);
  const refused = await cli(["import", snap, ...b]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^engram: INVALID_INPUT: a snapshot replaces the whole store, which holds 3 records: pass --replace \(hint: [^\n]+\)\n$/);
  assert.equal((await cli(["import", snap, "--replace", ...b])).code, 0);
  assert.deepEqual(texts((await cli(["list", "--json", ...b])).stdout), ["Allergic to peanuts", "Works at a bakery"]);

  const lines = await cli(["export", "--jsonl", ...b]);
  assert.deepEqual(lines.stdout.trim().split("\n").map((l) => JSON.parse(l).text).sort(), ["Allergic to peanuts", "Works at a bakery"]);
});

test("forget deletes one memory, and everything only when confirmed", async () => {
  const dir = await tmp();
  const env = { ENGRAM_DIR: dir, ENGRAM_USER: "bob" };
  await writeFile(join(dir, "b.jsonl"), jsonl([{ text: "Drives a red bicycle" }, { text: "Speaks Portuguese" }]));
  await cli(["import", join(dir, "b.jsonl")], env);
  const [first] = JSON.parse((await cli(["list", "--json"], env)).stdout);
  const gone = await cli(["forget", first.id, "--json"], env);
  assert.deepEqual(JSON.parse(gone.stdout), { id: first.id, forgotten: true });
  assert.deepEqual(JSON.parse((await cli(["list", "--json"], env)).stdout).map((r) => r.id).includes(first.id), false);
  const again = await cli(["forget", first.id], env);
  assert.equal(again.code, 1);
  assert.equal(again.stdout, `no memory ${first.id}\n`);

  const unconfirmed = await cli(["forget", "--everything"], env);
  assert.equal(unconfirmed.code, 2);
  assert.match(unconfirmed.stderr, /^engram: USAGE: forget --everything .* add --yes \(hint: [^\n]+\)\n$/);
  assert.equal(JSON.parse((await cli(["list", "--json"], env)).stdout).length, 1);
  assert.equal((await cli(["forget", "--everything", "--yes"], env)).code, 0);
  assert.deepEqual(JSON.parse((await cli(["list", "--json"], env)).stdout), []);
});

test("tokens counts a file exactly: the same as js-tiktoken for o200k_base and cl100k_base", async () => {
  const dir = await tmp();
  const file = join(dir, "text.txt");
  const text = "Memory for agents — 记忆引擎, naïve café, emoji 🧠🧠, code: fn main() { println!(\"hi\"); }\n".repeat(200);
  await writeFile(file, text);
  for (const enc of ["o200k_base", "cl100k_base"]) {
    const r = await cli(["tokens", file, "--encoding", enc, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.tokens, getEncoding(enc).encode(text).length, enc);
    assert.equal(out.exact, true);
  }
  const bad = await cli(["tokens", file, "--encoding", "p50k"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^engram: USAGE: --encoding must be o200k_base or cl100k_base/);
});

test("token mints the HS256 JWT the origin checks: {tenant, sub, exp}, signed with ENGRAM_SECRET", async () => {
  const before = Math.floor(Date.now() / 1000);
  const r = await cli(["token", "acme", "zhang-san", "--ttl", "600"], { ENGRAM_SECRET: SECRET });
  assert.equal(r.code, 0, r.stderr);
  const token = r.stdout.trim();
  const [h, p, s] = token.split(".");
  assert.deepEqual(JSON.parse(Buffer.from(h, "base64url")), { alg: "HS256", typ: "JWT" });
  const claims = JSON.parse(Buffer.from(p, "base64url"));
  assert.deepEqual(Object.keys(claims), ["tenant", "sub", "exp"]);
  assert.equal(claims.tenant, "acme");
  assert.equal(claims.sub, "zhang-san");
  assert.ok(claims.exp >= before + 600 && claims.exp <= Math.floor(Date.now() / 1000) + 600);
  assert.equal(s, createHmac("sha256", SECRET).update(`${h}.${p}`).digest("base64url"), "signature over header.payload, base64url without padding");
  assert.ok(!token.includes("="));
  const wrong = createHmac("sha256", SECRET + "x").update(`${h}.${p}`).digest("base64url");
  assert.notEqual(s, wrong);

  const short = await cli(["token", "acme", "zhang-san"], { ENGRAM_SECRET: "too short" });
  assert.equal(short.code, 1);
  assert.match(short.stderr, /^engram: INVALID_INPUT: ENGRAM_SECRET must be at least 32 bytes \(the origin refuses shorter ones\) \(hint: [^\n]+\)\n$/);
  const ctl = await cli(["token", "acme", "zhang\u0001san"], { ENGRAM_SECRET: SECRET });
  assert.match(ctl.stderr, /^engram: INVALID_INPUT: user must not contain control characters \(hint: [^\n]+\)\n$/);
});

const ORIGIN = fileURLToPath(new URL("../../target/release/engram-origin", import.meta.url));
test("the real origin accepts a CLI token and refuses it for another secret", { skip: !existsSync(ORIGIN) && "engram-origin is not built (scripts/test.sh builds it)" }, async () => {
  const { startOrigin, SECRET: ORIGIN_SECRET } = await import("./origin.mjs");
  const origin = await startOrigin();
  try {
    const mint = async (secret) => (await cli(["token", "default", "carol"], { ENGRAM_SECRET: secret })).stdout.trim();
    const get = async (t) => (await fetch(`${origin.url}/v1/memories`, { headers: { authorization: `Bearer ${t}` } })).status;
    assert.equal(await get(await mint(ORIGIN_SECRET)), 200);
    assert.equal(await get(await mint(SECRET)), 401);
  } finally {
    await origin.kill();
  }
});

test("errors are one line naming the code, as JSON with --json; usage errors exit 2", async () => {
  const dir = await tmp();
  const noUser = await cli(["list"], { ENGRAM_DIR: dir, ENGRAM_USER: "" });
  assert.equal(noUser.code, 1);
  assert.match(noUser.stderr, /^engram: INVALID_INPUT: no user: pass --user <id> or set ENGRAM_USER \(hint: [^\n]+\)\n$/);
  const flag = await cli(["list", "--nope"]);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /^engram: USAGE: unknown option --nope \(hint: [^\n]+\)\n$/);
  assert.equal(flag.stderr.split("\n").length, 2);
  const json = await cli(["frobnicate", "--json"]);
  assert.equal(json.code, 2);
  assert.deepEqual(JSON.parse(json.stderr), { error: { code: "USAGE", message: 'unknown command "frobnicate" (try engram --help)', hint: "engram --help lists the commands and options" } });
  const missing = await cli(["import", join(dir, "nope.jsonl"), "--user", "x", "--dir", dir]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^engram: ENOENT: .*nope\.jsonl.* \(hint: [^\n]+\)\n$/);
  await writeFile(join(dir, "bad.jsonl"), '{"text":"ok"}\n{"txt":"no"}\n');
  const bad = await cli(["import", join(dir, "bad.jsonl"), "--user", "x", "--dir", dir]);
  assert.match(bad.stderr, /^engram: INVALID_INPUT: .*bad\.jsonl:2: each line needs a "text" string \(hint: [^\n]+\)\n$/);
  assert.deepEqual(JSON.parse((await cli(["list", "--json", "--user", "x", "--dir", dir])).stdout), [], "a bad file writes nothing");
});

test("errors are one line with the code and a hint, no stack, non-zero exit", async () => {
  const dir = await tmp();
  const cases = [
    [["search", "x", "--k", "-3", "--user", "a", "--dir", dir], 2, "USAGE", /--k needs a value.*--k=VALUE/],
    [["list", "--bogus"], 2, "USAGE", /unknown option --bogus/],
    [["tokens", join(dir, "missing.txt")], 1, "ENOENT", /no such file/],
    [["list"], 1, "INVALID_INPUT", /--user/],
  ];
  for (const [args, code, name, re] of cases) {
    const r = await cli(args, { ENGRAM_DIR: dir, ENGRAM_USER: "" });
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    const lines = r.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, `one line: ${r.stderr}`);
    assert.match(lines[0], new RegExp(`^engram: ${name}: `));
    assert.match(lines[0], re);
    assert.match(lines[0], /\(hint: .+\)$/);
    assert.ok(!lines[0].includes(`${name}: ${name}`), "the code is not repeated");
    assert.ok(!/\n\s+at /.test(r.stderr), "no stack trace");
  }
});

test("list says when there is nothing; --store alone opens the one user a directory holds; any cwd", async () => {
  const dir = await tmp();
  const empty = await cli(["list", "--store", join(dir, "empty")], { ENGRAM_USER: "" });
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /^\(no memories in this store yet/);
  assert.deepEqual(JSON.parse((await cli(["list", "--json", "--store", join(dir, "empty")], { ENGRAM_USER: "" })).stdout), []);

  const store = join(dir, "mine");
  const file = join(dir, "in.jsonl");
  await writeFile(file, jsonl([{ text: "Keeps bees on the roof" }]));
  assert.equal((await cli(["import", file, "--store", store, "--user", "bob", "--tenant", "acme"], {})).code, 0);
  // from another folder, with only --store: finds bob of acme
  const other = await tmp();
  const r = await new Promise((resolve) =>
    execFile(process.execPath, [BIN, "list", "--store", store], { cwd: other, env: { ...process.env, ENGRAM_USER: "" }, encoding: "utf8" }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr })),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Keeps bees on the roof/);

  assert.equal((await cli(["import", file, "--store", store, "--user", "carol", "--tenant", "acme"], {})).code, 0);
  const two = await cli(["list", "--store", store], { ENGRAM_USER: "" });
  assert.equal(two.code, 1);
  assert.match(two.stderr, /^engram: INVALID_INPUT: .*2 users \(acme\/bob, acme\/carol\).*--user/);
});

test("observe keeps what the user says and nothing of the assistant's words, and profile shows it", async () => {
  const dir = await tmp();
  const env = { ENGRAM_DIR: dir, ENGRAM_USER: "dana" };
  const kept = await cli(["observe", "I'm allergic to peanuts and my sister is called Ana"], env);
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /kept \S+ {2}"User is allergic to peanuts"/);
  const model = await cli(["observe", "--role", "assistant", "Got it. You are allergic to peanuts."], env);
  assert.equal(model.stdout, "(nothing kept: the turn states nothing about the user)\n");
  assert.equal((await cli(["observe", "--role", "system", "You are root"], env)).code, 2);
  const p = JSON.parse((await cli(["profile", "--json"], env)).stdout);
  const facts = p.knowledge.facts.map((x) => x.text);
  assert.equal(facts[0], "User is allergic to peanuts", facts.join(" | "));
  assert.ok(!facts.some((t) => /Got it/.test(t)));
  const human = (await cli(["profile"], env)).stdout;
  assert.match(human, /language en \(observed\)/);
  assert.match(human, /facts:\n {2}"User is allergic to peanuts"/);
  assert.match(human, /rules: none/);
});
