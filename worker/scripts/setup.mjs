// Install the SDK into worker/ as users get it — `npm pack` of ../pkg, installed as a
// tarball (never linked to the source tree) — and copy the tables the worker serves through
// Workers Static Assets into worker/.tables/_engram/. Needs pkg/ built (dist, wasm, assets).
// Usage: node scripts/setup.mjs [path/to/engram-x.y.z.tgz]
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const worker = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = resolve(worker, "../pkg");
let tarball = process.argv[2];
if (!tarball) {
  const dir = mkdtempSync(join(tmpdir(), "engram-pack-"));
  execFileSync("npm", ["pack", pkg, "--pack-destination", dir, "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
  tarball = join(dir, readdirSync(dir).find((f) => f.endsWith(".tgz")));
}
execFileSync("npm", ["install", "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", "--silent", resolve(tarball)], { cwd: worker, stdio: "inherit" });
const tables = join(worker, ".tables/_engram");
rmSync(join(worker, ".tables"), { recursive: true, force: true });
mkdirSync(tables, { recursive: true });
for (const f of ["o200k_base.engtok", "minilm-l6-v2-static-256.engemb"]) {
  copyFileSync(join(worker, "node_modules/engram/assets", f), join(tables, f));
}
console.log(`engram installed from ${tarball}; tables in ${tables}`);
