// What engram keeps about a person, measured by the reference evaluator of persona-dev
// (Synthetic-Persona-Chat, conversations no one here wrote) through this package.
// The floors: coverage at the 0.85 (this build: 0.864), precision at this build's
// 0.246 less a margin of 0.01 (the 0.35 is not met; docs/self-facts.md says why): a
// change that keeps less of what people say, or more noise, fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { evaluate } from "../bench/persona.mjs";

// Nothing kept in 26 conversations: their users ask and react and state nothing of their own,
// or only a template slot ("Hi, I'm (user 1's name)", refused as a placeholder since the
// build that raised the precision floor from 0.21 to 0.23; four conversations more).
test("on persona-dev engram keeps at least 0.85 of the persona lines users state, at precision at least 0.236, and something in all but 27 conversations", () => {
  const r = evaluate();
  assert.equal(r.conversations, 997);
  assert.ok(r.coverage >= 0.85, `coverage ${r.coverage}`);
  assert.ok(r.precision >= 0.236, `precision ${r.precision}`);
  assert.ok(r.conversations_with_nothing_kept <= 27, `nothing kept in ${r.conversations_with_nothing_kept}`);
});

test("what the assistant says is never kept as the user's memory (every user turn replaced by 'ok')", () => {
  const r = evaluate(["--assistant-only"]);
  assert.equal(r.kept_per_conversation, 0, JSON.stringify(r));
});
