// A ≥ 1 MB multilingual corpus for token parity and benchmarks: real Chinese prose (the
// design seeds, when ../shared is beside the repo), real English + code (the Rust book
// HTML shipped with the toolchain, when present), and a seeded mix that alone is > 1 MB:
// English, Chinese, Japanese, Korean, emoji (incl. ZWJ and flags), code, JSON, numbers
// and whitespace runs.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { homedir } from "node:os";

const SNIPPETS = [
  "The quick brown fox jumps over the lazy dog. ",
  "I'm sure they'll say it's what we've done, isn't it? ",
  "用户叫张三，在阿里巴巴做算法工程师。我偏好Python，不太喜欢Java。",
  "記憶管理の問題を解決するために、ベクトルデータベースを使います。カタカナとひらがな。",
  "안녕하세요, 저는 서울에 살고 있습니다. ",
  "🎉🚀 emoji 👩‍👩‍👧‍👦 family 🇨🇳🇯🇵 flags ✨ 👍🏽 ",
  "fn main() {\n    let x: Vec<u32> = (0..10).map(|i| i * 2).collect();\n    println!(\"{x:?}\");\n}\n",
  "const f = async (a, b) => { return await fetch(`/api/${a}?b=${b}`); };\n",
  '{"user_id": "u-42", "tokens": [1, 2, 3], "nested": {"ok": true, "pi": 3.14159}}\n',
  "    \n\n\t\t  \r\n   ",
  "1234567890 3.1415926535 -42 1e10 0xFF 2026-11-30T05:11:17Z ",
  "HTTPServerError XMLHttpRequest camelCaseWord snake_case_word CONSTANT_VALUE ",
  "Ünïcödé àccents — “quotes” ‘single’ … ",
  "\u3000全角スペース\u3000と\u00a0nbsp ",
  "https://example.com/path?query=1&b=2#frag ",
  "   leading spaces and trailing spaces   ",
  "'s 't 're 've 'm 'll 'd 'S 'T 'RE ",
];

function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
}

export function generated(bytes, seed = 7) {
  const r = rng(seed);
  let out = "";
  while (Buffer.byteLength(out) < bytes) {
    out += SNIPPETS[Math.floor(r() * SNIPPETS.length)];
    if (r() < 0.1) out += Array.from({ length: 1 + Math.floor(r() * 40) }, () => (r() < 0.5 ? " " : "\n")).join("");
  }
  return out;
}

function realText(limit) {
  const parts = [];
  const seeds = new URL("../../../shared/seeds/", import.meta.url);
  if (existsSync(seeds)) for (const f of readdirSync(seeds).sort()) parts.push(readFileSync(new URL(f, seeds), "utf8"));
  const book = join(homedir(), ".rustup/toolchains");
  if (existsSync(book)) {
    for (const tc of readdirSync(book).sort()) {
      const dir = join(book, tc, "share/doc/rust/html/book");
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir).filter((f) => f.endsWith(".html")).sort()) {
        parts.push(readFileSync(join(dir, f), "utf8"));
        if (parts.reduce((n, p) => n + p.length, 0) > limit) return parts;
      }
      break;
    }
  }
  return parts;
}

/** The corpus as an array of documents (lines are split by the tests as they need). */
export function corpus() {
  return [...realText(600_000), generated(1_100_000)];
}
