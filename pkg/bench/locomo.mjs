// Long-conversation recall through the SDK (the real wasm in Node), on LoCoMo's development
// split (Maharana et al., ACL 2024; CC BY-NC 4.0 — read from ../shared, never copied): each
// turn remembered as "<speaker>: <text>" with the clock at its session's date, questions of
// categories 1-4 asked a day after the last session, turn-level recall@1/5/10/20, hit@k,
// recall_all@k, MRR@20 and recall latency, beside two BM25 peers measured in the same run.
// Usage: node bench/locomo.mjs [--embedder default|none] [--same-moment] [--file PATH]
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Engram, MemoryStorage } from "../dist/entrypoints/node.js";

const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const file = arg("--file", new URL("../../../shared/eval/locomo-dev/locomo-dev.json", import.meta.url).pathname);
if (!existsSync(file)) {
  console.log(`skipped: ${file} is absent (the LoCoMo development split; see its README)`);
  process.exit(0);
}
const which = arg("--embedder", "default");
const CUTS = [1, 5, 10, 20];
const DAY = 86_400_000;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** "1:56 pm on 8 May, 2023" → Unix ms (UTC). */
function parseDate(s) {
  const m = /^(\d+):(\d+)\s*(am|pm) on (\d+) (\w+),? (\d{4})$/i.exec(s.trim());
  if (!m) throw new Error(`cannot read the date ${s}`);
  let h = Number(m[1]) % 12;
  if (m[3].toLowerCase() === "pm") h += 12;
  return Date.UTC(Number(m[6]), MONTHS.indexOf(m[5].slice(0, 3).toLowerCase()), Number(m[4]), h, Number(m[2]));
}

function load() {
  return JSON.parse(readFileSync(file, "utf8")).map((s) => {
    const turns = [];
    for (let n = 1; s.conversation[`session_${n}`]; n++) {
      const at = parseDate(s.conversation[`session_${n}_date_time`]);
      for (const t of s.conversation[`session_${n}`]) turns.push({ id: t.dia_id, text: `${t.speaker}: ${t.text}`, at, session: n });
    }
    const questions = s.qa
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q) => ({ text: q.question, evidence: (q.evidence ?? []).flatMap((e) => String(e).split(";")).map((e) => e.trim()).filter(Boolean) }))
      .filter((q) => q.evidence.length);
    return { id: String(s.sample_id), turns, questions };
  });
}

class Measures {
  n = 0; recall = [0, 0, 0, 0]; hit = [0, 0, 0, 0]; all = [0, 0, 0, 0]; mrr = 0;
  /** ranked[c]: per hit, the turn ids it stands for, from a call with k = CUTS[c]. */
  add(evidence, ranked) {
    this.n++;
    CUTS.forEach((k, c) => {
      const found = evidence.filter((e) => ranked[c].slice(0, k).some((ids) => ids.includes(e))).length;
      this.recall[c] += found / evidence.length;
      this.hit[c] += found > 0 ? 1 : 0;
      this.all[c] += found === evidence.length ? 1 : 0;
    });
    const r = ranked[3].slice(0, 20).findIndex((ids) => ids.some((id) => evidence.includes(id)));
    if (r >= 0) this.mrr += 1 / (r + 1);
  }
  row(name) {
    const f = (xs) => CUTS.map((k, c) => `@${k} ${(xs[c] / this.n).toFixed(3)}`).join(" ");
    return `${name.padEnd(38)} recall ${f(this.recall)} | hit ${f(this.hit)} | all@10 ${(this.all[2] / this.n).toFixed(3)} | MRR ${(this.mrr / this.n).toFixed(3)}`;
  }
}

// The split README's peers: plain BM25 (k1 1.2, b 0.75, small stop list), and the same with
// suffix stripping and each turn indexed with its ±2 neighbours of the session at weight 0.3.
const STOP = new Set("a an the and or but of to in on at for with is are was were be it this that i you do did does what when how who which my your her his she he".split(" "));
function bm25Peer(samples, neighbours) {
  const words = (t) => t.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w && !STOP.has(w))
    .map((w) => (neighbours ? w.replace(/(ing|ed|es|s)$/, (suf, _, off) => (off > 2 ? "" : suf)) : w));
  const m = new Measures();
  for (const s of samples) {
    const own = s.turns.map((t) => words(t.text));
    const docs = own.map((_, i) => {
      const tf = new Map(); let len = 0;
      for (let j = i - 2; j <= i + 2; j++) {
        if (j < 0 || j >= own.length || s.turns[j].session !== s.turns[i].session) continue;
        const w = j === i ? 1 : neighbours ? 0.3 : 0;
        if (!w) continue;
        for (const t of own[j]) tf.set(t, (tf.get(t) ?? 0) + w);
        len += w * own[j].length;
      }
      return { tf, len };
    });
    const n = docs.length, avg = docs.reduce((a, d) => a + d.len, 0) / n;
    const df = new Map();
    for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    for (const q of s.questions) {
      const qt = [...new Set(words(q.text))];
      const scored = docs.map((d, i) => [i, qt.reduce((a, t) => {
        const f = d.tf.get(t); if (!f) return a;
        const idf = Math.log(1 + (n - df.get(t) + 0.5) / (df.get(t) + 0.5));
        return a + idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * d.len / avg));
      }, 0)]).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      const ranked = scored.slice(0, 20).map(([i]) => [s.turns[i].id]);
      m.add(q.evidence, [ranked, ranked, ranked, ranked]);
    }
  }
  return m;
}

// Two readings of one store: a recall per cut (k = 1, 5, 10, 20), and the first k of one
// recall at k = 20, as the reference evaluator reads it. They differ by design: recall
// chooses its k by relevance, then orders them by importance × decay, so the first 10 of
// 20 may hold a fresher memory that relevance ranked 11th to 20th.
async function engram(samples, sameMoment) {
  const m = new Measures(), once = new Measures();
  const latency = [];
  for (const s of samples) {
    let clock = 0;
    const mem = await Engram.open({ user: `locomo-${s.id}`, storage: new MemoryStorage(), now: () => clock, ...(which === "none" ? { embedder: false } : {}) });
    const last = Math.max(...s.turns.map((t) => t.at));
    const turnsOf = new Map();
    for (const t of s.turns) {
      clock = sameMoment ? last : t.at;
      const out = await mem.remember(t.text);
      turnsOf.set(out.id, [...(turnsOf.get(out.id) ?? []), t.id]);
    }
    clock = last + DAY;
    for (const q of s.questions) {
      const ranked = [];
      for (const k of CUTS) {
        const t0 = performance.now();
        const { hits } = await mem.recall(q.text, { k });
        if (k === 10) latency.push(performance.now() - t0);
        ranked.push(hits.map((h) => turnsOf.get(h.record.id) ?? []));
      }
      m.add(q.evidence, ranked);
      once.add(q.evidence, CUTS.map(() => ranked[3]));
    }
    await mem.close();
  }
  latency.sort((a, b) => a - b);
  const pct = (p) => latency[Math.round((latency.length - 1) * p)].toFixed(2);
  return { m, once, p50: pct(0.5), p95: pct(0.95) };
}

const samples = load();
console.log(`LoCoMo development split: ${samples.length} conversations, ${samples.reduce((a, s) => a + s.questions.length, 0)} questions, ${samples.reduce((a, s) => a + s.turns.length, 0)} turns`);
console.log(bm25Peer(samples, false).row("peer: plain BM25"));
console.log(bm25Peer(samples, true).row("peer: BM25 + suffixes + neighbours"));
for (const same of process.argv.includes("--same-moment") ? [true] : [false, true]) {
  const { m, once, p50, p95 } = await engram(samples, same);
  console.log(m.row(`engram (SDK, wasm), ${which} embedder, ${same ? "one moment" : "real timeline"}`));
  console.log(once.row("  the same, first k of one recall at 20"));
  console.log(`${"".padEnd(38)} recall latency (k = 10, wasm in Node): p50 ${p50} ms, p95 ${p95} ms`);
}
