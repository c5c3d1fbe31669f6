/**
 * The operations an extractor may propose, and their validation. An LLM's answer is
 * untrusted input: it is parsed against this schema, every target id must be one the
 * extractor was shown, and one bad operation rejects the whole batch (nothing written).
 * @module
 */
import { EngramInputError } from "../../errors.js";
import type { FactKey, Kind } from "../../types.js";

/** Kinds an extractor may write. Never `instruction`: procedural memory is the operator's. */
export const EXTRACTABLE_KINDS: readonly Kind[] = ["fact", "preference", "event", "task", "episode"];

/** Fields of a memory an extractor proposes. */
export interface ProposedMemory {
  text: string;
  kind?: Kind;
  key?: FactKey;
  importance?: number;
  confidence?: number;
}

/** One proposed change. `id` names a memory the extractor was shown. */
export type Operation =
  | ({ op: "ADD" } & ProposedMemory)
  | ({ op: "UPDATE"; id: string } & ProposedMemory)
  | { op: "DELETE"; id: string }
  | { op: "NOOP" };

/** The JSON Schema extractors are asked to follow (also sent in the prompt). */
export const OPERATIONS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["operations"],
  properties: {
    operations: {
      type: "array",
      maxItems: 50,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["op"],
        properties: {
          op: { enum: ["ADD", "UPDATE", "DELETE", "NOOP"] },
          id: { type: "string" },
          text: { type: "string", maxLength: 2000 },
          kind: { enum: EXTRACTABLE_KINDS },
          key: {
            type: "object",
            additionalProperties: false,
            required: ["subject", "attribute"],
            properties: { subject: { type: "string" }, attribute: { type: "string" } },
          },
          importance: { type: "number", minimum: 0, maximum: 1 },
          confidence: { type: "number", minimum: 0, maximum: 1 },
        },
      },
    },
  },
} as const;

const MAX_OPS = 50;
const MAX_TEXT = 2000;
const FIELDS: Record<Operation["op"], readonly string[]> = {
  ADD: ["op", "text", "kind", "key", "importance", "confidence"],
  UPDATE: ["op", "id", "text", "kind", "key", "importance", "confidence"],
  DELETE: ["op", "id"],
  NOOP: ["op"],
};

function reject(why: string): never {
  throw new EngramInputError("EXTRACTION_REJECTED", `extractor output rejected: ${why}`);
}

/**
 * An extractor's answer as a value: JSON text (a Markdown code fence around it allowed)
 * parsed, anything else as it is. `reject` is called when the text is not JSON.
 */
export function answerValue(answer: unknown, reject: (why: string) => never): unknown {
  if (typeof answer !== "string") return answer;
  const trimmed = answer.trim().replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
  try {
    return JSON.parse(trimmed);
  } catch {
    return reject("not JSON");
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkMemory(o: Record<string, unknown>, at: string): ProposedMemory {
  const text = o.text;
  if (typeof text !== "string" || text.trim().length === 0 || text.length > MAX_TEXT) reject(`${at}.text must be 1..${MAX_TEXT} characters`);
  const m: ProposedMemory = { text: text.trim() };
  if (o.kind !== undefined) {
    if (typeof o.kind !== "string" || !EXTRACTABLE_KINDS.includes(o.kind as Kind)) reject(`${at}.kind must be one of ${EXTRACTABLE_KINDS.join(", ")}`);
    m.kind = o.kind as Kind;
  }
  if (o.key !== undefined && o.key !== null) {
    const k = o.key;
    if (!isObject(k) || Object.keys(k).some((f) => f !== "subject" && f !== "attribute")) reject(`${at}.key must be { subject, attribute }`);
    for (const f of ["subject", "attribute"] as const) {
      const v = k[f];
      if (typeof v !== "string" || v.trim().length === 0 || v.length > 100) reject(`${at}.key.${f} must be 1..100 characters`);
    }
    m.key = { subject: k.subject as string, attribute: k.attribute as string };
  }
  for (const f of ["importance", "confidence"] as const) {
    const v = o[f];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1) reject(`${at}.${f} must be a number in [0, 1]`);
    m[f] = v;
  }
  return m;
}

/**
 * Parse an extractor's answer (JSON text or an already-parsed value) into operations.
 * `shown` are the ids of the memories the extractor was given; UPDATE and DELETE may only
 * name those, and each at most once. Throws `EXTRACTION_REJECTED` on anything else.
 */
export function parseOperations(answer: unknown, shown: ReadonlySet<string>): Operation[] {
  const value = answerValue(answer, reject);
  if (!isObject(value) || Object.keys(value).some((k) => k !== "operations")) reject("expected an object with only `operations`");
  const ops = value.operations;
  if (!Array.isArray(ops)) reject("`operations` must be an array");
  if (ops.length > MAX_OPS) reject(`at most ${MAX_OPS} operations`);
  const targeted = new Set<string>();
  return ops.map((raw, i): Operation => {
    const at = `operations[${i}]`;
    if (!isObject(raw) || typeof raw.op !== "string" || !(raw.op in FIELDS)) reject(`${at}.op must be ADD, UPDATE, DELETE or NOOP`);
    const op = raw.op as Operation["op"];
    const extra = Object.keys(raw).filter((k) => !FIELDS[op].includes(k));
    if (extra.length) reject(`${at} has fields ${op} does not take: ${extra.join(", ")}`);
    if (op === "NOOP") return { op };
    if (op === "ADD") return { op, ...checkMemory(raw, at) };
    const id = raw.id;
    if (typeof id !== "string" || !shown.has(id)) reject(`${at}.id must name a memory the extractor was shown`);
    if (targeted.has(id)) reject(`${at} targets ${id} twice`);
    targeted.add(id);
    return op === "DELETE" ? { op, id } : { op, id, ...checkMemory(raw, at) };
  });
}
