// What engram keeps about a person: the reference evaluator of ../shared/eval/persona-dev
// (Synthetic-Persona-Chat, CC BY 4.0) run on this build of the package, beside the peers it
// defines, in one run. Prints one JSON line per system (coverage, precision, leak, …).
// Usage (from pkg/, after scripts/build-wasm.sh): node bench/persona.mjs [--n N]
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dev = resolve(pkg, "../../shared/eval/persona-dev");
if (!existsSync(join(dev, "eval.mjs"))) {
  console.error(`persona-dev not found at ${dev} (../shared beside the repository)`);
  process.exit(2);
}

/** One run of the reference evaluator; its JSON line, parsed. */
export function evaluate(extra = []) {
  const out = execFileSync(process.execPath, [join(dev, "eval.mjs"), join(dev, "persona-dev.json"), ...extra], {
    env: { ...process.env, ENGRAM_PKG: pkg },
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out.trim().split("\n").pop());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = process.argv.slice(2);
  for (const extra of [[], ["--assistant-only"], ["--peer", "first-person"], ["--peer", "filtered"]]) {
    console.log(JSON.stringify(evaluate([...extra, ...n])));
  }
}
