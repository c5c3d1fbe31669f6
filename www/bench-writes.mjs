// IndexedDB writes in Chromium, with and without IndexedDbStorage's second copy (OPFS):
// 200 single `remember` calls (p50, p95) and one `rememberMany` of 10,000 memories, no
// embedder (the write path and the storage only). Printed, not asserted.
// Run after `scripts/test-browser.sh` has built pkg/: node www/bench-writes.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harnessPage, openStore, serve, startChromium } from "./test/fixture-profile.mjs";

const site = await serve();
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.round((xs.length - 1) * p)];
for (const secondCopy of [false, true]) {
  const profile = mkdtempSync(join(tmpdir(), "engram-bench-writes-"));
  const b = await startChromium(profile);
  try {
    const page = await harnessPage(b.context, site.url);
    await openStore(page, `engram-bench-${secondCopy}`, 100, { secondCopy });
    const { one, manyMs } = await page.evaluate(() => window.harness.benchWrites(200, 10_000));
    console.log(`second copy ${secondCopy ? "on " : "off"}: remember p50 ${pct(one, 0.5).toFixed(1)} ms, p95 ${pct(one, 0.95).toFixed(1)} ms; rememberMany of 10,000: ${(manyMs / 1000).toFixed(2)} s`);
    await page.evaluate(() => window.harness.close());
  } finally {
    await b.kill().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}
await site.close();
process.exit(0);
