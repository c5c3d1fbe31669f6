// BPE on text with no break (issue 36.2): time per byte of 4 to 64 KiB of one letter
// repeated, random base64 and a run of CJK ideographs, against ordinary text's time per
// byte, for engram (wasm) and gpt-tokenizer in the same process. Each pass counts a text
// neither tokenizer has seen (a fresh letter or seed), so no cache of merged pieces helps.
// Usage: node bench/nobreak.mjs [sizesKiB=4,16,32,64]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { generated } from "../test/corpus.mjs";

const sizes = (process.argv[2] ?? "4,16,32,64").split(",").map(Number);
const engram = await import("../dist/entrypoints/node.js");
await engram.Engram.open({ user: "nobreak", tokenizer: false });
const ours = await engram.loadTokenizer("o200k_base", new Uint8Array(readFileSync(new URL("../assets/o200k_base.engtok", import.meta.url))));
const gpt = await import("gpt-tokenizer/encoding/o200k_base");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
}
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Each kind: a text of about `bytes` UTF-8 bytes, different for every `run`. */
const KINDS = {
  "one letter": (bytes, run) => "abcdefghijklmnop"[run].repeat(bytes),
  "random base64": (bytes, run) => { const r = rng(1000 + run); return Array.from({ length: bytes }, () => B64[Math.floor(r() * 64)]).join(""); },
  "CJK run": (bytes, run) => { const r = rng(2000 + run); return Array.from({ length: Math.ceil(bytes / 3) }, () => String.fromCodePoint(0x4e00 + Math.floor(r() * 0x5000))).join(""); },
  ordinary: (bytes, run) => generated(bytes, 3000 + run),
};

/** Median time per byte (ns) of three first passes, and the count of the last. */
function perByte(count, kind, bytes) {
  const ts = [];
  let n = 0;
  for (let run = 0; run < 3; run++) {
    const s = KINDS[kind](bytes, run);
    const t = performance.now();
    n = count(s);
    ts.push(((performance.now() - t) * 1e6) / Buffer.byteLength(s));
  }
  return { ns: median(ts), n };
}

let worst = 0;
for (const kib of sizes) {
  const bytes = kib * 1024;
  const base = { engram: perByte((s) => ours.count(s), "ordinary", bytes), gpt: perByte((s) => gpt.countTokens(s), "ordinary", bytes) };
  const cells = [];
  for (const kind of ["one letter", "random base64", "CJK run"]) {
    const e = perByte((s) => ours.count(s), kind, bytes);
    const g = perByte((s) => gpt.countTokens(s), kind, bytes);
    if (e.n !== g.n) console.log(`WARNING: ${kind} ${kib} KiB: engram ${e.n} tokens, gpt-tokenizer ${g.n}`);
    const ratio = e.ns / base.engram.ns;
    worst = Math.max(worst, ratio);
    cells.push(`${kind} ${e.ns.toFixed(0)} ns/B = ${ratio.toFixed(2)}× ordinary (gpt-tokenizer ${(g.ns / base.gpt.ns).toFixed(2)}×, engram ${(g.ns / e.ns).toFixed(1)}× faster)`);
  }
  console.log(`${String(kib).padStart(2)} KiB, ordinary ${base.engram.ns.toFixed(0)} ns/B (gpt-tokenizer ${base.gpt.ns.toFixed(0)}): ${cells.join("; ")}`);
}
console.log(`no-break worst, time per byte against ordinary text: ${worst.toFixed(2)}× (target ≤ 2×)`);
