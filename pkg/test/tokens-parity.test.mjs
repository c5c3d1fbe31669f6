// Token parity: engram's wasm tokenizer against js-tiktoken (an independent JS
// implementation) on a ≥ 1 MB multilingual corpus, o200k_base and cl100k_base.
// Zero mismatches allowed, per line and per document.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import { loadTokenizer } from "../dist/entrypoints/node.js";
import { corpus } from "./corpus.mjs";

const docs = corpus();
const totalBytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);

for (const [name, ranks] of [["o200k_base", o200k], ["cl100k_base", cl100k]]) {
  test(`${name}: counts and ids equal js-tiktoken on ${(totalBytes / 1e6).toFixed(2)} MB, zero mismatches`, async () => {
    assert.ok(totalBytes >= 1_000_000, `corpus is only ${totalBytes} bytes`);
    const ours = await loadTokenizer(name);
    const theirs = new Tiktoken(ranks);
    let lines = 0;
    let mismatches = 0;
    let tokens = 0;
    for (const doc of docs) {
      for (const line of doc.split(/(?<=\n)/)) {
        lines++;
        const expected = theirs.encode(line);
        tokens += expected.length;
        if (ours.count(line) !== expected.length) mismatches++;
      }
      const whole = theirs.encode(doc);
      assert.deepEqual([...ours.encode(doc)], whole, `${name}: ids differ on a whole document`);
      assert.equal(ours.count(doc), whole.length);
    }
    assert.equal(mismatches, 0, `${mismatches} of ${lines} lines differ`);
    assert.ok(lines > 10_000 && tokens > 200_000, `${lines} lines, ${tokens} tokens`);
  });
}

test("truncate never exceeds the budget and never splits a surrogate pair", async () => {
  const tok = await loadTokenizer("o200k_base");
  const text = "Emoji 👩‍👩‍👧‍👦 and 𝄞 music, 中文字符，and more 🇯🇵 flags";
  for (let max = 0; max <= tok.count(text); max++) {
    const { text: prefix, tokens } = tok.truncate(text, max);
    assert.ok(tokens <= max && text.startsWith(prefix));
    assert.equal(tok.count(prefix), tokens);
    const last = prefix.charCodeAt(prefix.length - 1);
    assert.ok(!(last >= 0xd800 && last <= 0xdbff), "ends on a lone high surrogate");
  }
});
