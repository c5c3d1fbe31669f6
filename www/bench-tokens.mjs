// Exact token counting in Chromium: engram (the built package's wasm, o200k_base) against
// gpt-tokenizer (its ESM build), same text, same page. Cold (each one's first pass over text
// it has not seen), count-only and warm (medians of repeated passes) on 1 MB of the
// multilingual corpus. js-tiktoken is left out here: its ESM build imports a CommonJS
// package a page cannot load without a bundler (its figures are in pkg/bench/tokens.mjs).
// Printed, not asserted. Run after scripts/build-wasm.sh: node www/bench-tokens.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generated } from "../pkg/test/corpus.mjs";
import { harnessPage, serve, startChromium } from "./test/fixture-profile.mjs";

const site = await serve();
const profile = mkdtempSync(join(tmpdir(), "engram-bench-tokens-"));
const b = await startChromium(profile);
try {
  const page = await harnessPage(b.context, site.url);
  const texts = { coldA: generated(300_000, 101), coldB: generated(300_000, 102), text: generated(1_000_000, 11) };
  const r = await page.evaluate(async (texts) => {
    const { Engram, loadTokenizer } = await import("engram");
    const gpt = await import("/engram/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js");
    const table = new Uint8Array(await (await fetch("/engram/assets/o200k_base.engtok")).arrayBuffer());
    await Engram.open({ user: "bench", tokenizer: false, embedder: false });
    const ours = await loadTokenizer("o200k_base", table);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const time = (f, runs) => median(Array.from({ length: runs }, () => { const t = performance.now(); f(); return performance.now() - t; }));
    const mb = new TextEncoder().encode(texts.text).length / 1e6;
    const coldOurs = time(() => ours.count(texts.coldA), 1);
    const coldGpt = time(() => gpt.countTokens(texts.coldB), 1);
    const same = ours.count(texts.text) === gpt.countTokens(texts.text);
    const warmOurs = time(() => ours.count(texts.text), 5);
    const warmGpt = time(() => gpt.countTokens(texts.text), 3);
    const encOurs = time(() => ours.encode(texts.text).length, 3);
    const encGpt = time(() => gpt.encode(texts.text).length, 3);
    return { same, cold: coldGpt / coldOurs, warm: warmGpt / warmOurs, encode: encGpt / encOurs, oursMBs: mb / (warmOurs / 1e3), gptMBs: mb / (warmGpt / 1e3), ua: navigator.userAgent };
  }, texts);
  console.log(`Chromium (${r.ua.match(/Chrome\/[\d.]+/)?.[0]}): counts equal: ${r.same}`);
  console.log(`engram / gpt-tokenizer: cold ${r.cold.toFixed(2)}×, count-only warm ${r.warm.toFixed(2)}× (${r.oursMBs.toFixed(1)} vs ${r.gptMBs.toFixed(1)} MB/s), encode ${r.encode.toFixed(2)}×`);
} finally {
  await b.kill().catch(() => undefined);
  rmSync(profile, { recursive: true, force: true });
  await site.close();
}
process.exit(0);
