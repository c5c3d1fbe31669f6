// The SDK's hand copies of Rust definitions, checked against what the Rust side writes to
// tests/vectors/ (crates/engram-testkit/src/mirrors.rs): error codes and their classes
// (errors.ts) and the JSON shape of every type types.ts mirrors (field names, enum values,
// graph templates). types.ts is read with the TypeScript compiler's parser, not a regex.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import ts from "typescript";
import * as errors from "../dist/errors.js";

const vectors = new URL("../../tests/vectors/", import.meta.url);
const readJson = (name) => JSON.parse(readFileSync(new URL(name, vectors), "utf8"));
const codes = readJson("error-codes.json").codes;
const shapes = readJson("types.json");

/** Codes only the SDK raises (no Rust definition to check them against). */
const SDK_OWN_CODES = { ENCRYPTION_KEY: "input" };

/**
 * Fields serde writes that types.ts leaves out on purpose, with why. Anything else missing
 * (or extra) is drift.
 */
const UNDECLARED = {
  // Records cross the binding whole; these two are the replication clock's stamp and the
  // raw vector (null except from `get`), not part of the public record type.
  MemoryRecord: ["embedding", "stamp"],
};

const source = ts.createSourceFile("types.ts", readFileSync(new URL("../src/types.ts", import.meta.url), "utf8"), ts.ScriptTarget.Latest, true);
const declared = new Map(
  source.statements.filter((s) => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)).map((s) => [s.name.text, s]),
);

const propertyNames = (members) => members.filter(ts.isPropertySignature).map((m) => m.name.getText(source));
const property = (members, name) => members.filter(ts.isPropertySignature).find((m) => m.name.getText(source) === name);
/** The string values of a union of string literals (`"a" | "b"`); null for anything else. */
const stringUnion = (node) => {
  const parts = node && ts.isUnionTypeNode(node) ? node.types : node ? [node] : [];
  const values = parts.map((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : null));
  return values.length > 0 && values.every((v) => v !== null) ? values : null;
};
const sorted = (xs) => [...xs].sort();

test("the mirrored vectors hold every error code, type and enum the checks below need", () => {
  assert.ok(Object.keys(codes).length >= 16, `only ${Object.keys(codes).length} codes in error-codes.json`);
  assert.ok(Object.keys(shapes.objects).length >= 15);
  assert.ok(Object.keys(shapes.unions).length >= 8);
  assert.ok(Object.keys(shapes.tagged.GraphQuery.variants).length >= 5);
});

test("errors.ts gives every code the core and the binding raise the class Rust says it has", () => {
  const classes = { input: errors.EngramInputError, data: errors.EngramDataError };
  for (const [code, cls] of Object.entries(codes)) {
    const Cls = classes[cls];
    assert.ok(Cls, `${code}: unknown class ${cls} in error-codes.json`);
    assert.equal(errors.CODE_CLASSES[code], Cls, `CODE_CLASSES.${code} should be ${Cls.name} in pkg/src/errors.ts`);
    const e = errors.fromCore(Object.assign(new Error("from the core"), { code }));
    assert.ok(e instanceof Cls, `${code} becomes a ${Cls.name}, got ${e.constructor.name}`);
    assert.equal(e.code, code);
  }
});

test("errors.ts classifies no code that neither Rust nor the SDK raises", () => {
  const stale = Object.keys(errors.CODE_CLASSES).filter((c) => !(c in codes) && !(c in SDK_OWN_CODES));
  assert.deepEqual(stale, [], "remove these from CODE_CLASSES or list them as the SDK's own");
  for (const [code, cls] of Object.entries(SDK_OWN_CODES)) {
    assert.ok(!(code in codes), `${code} is raised by Rust now: drop it from SDK_OWN_CODES`);
    assert.equal(errors.CODE_CLASSES[code], cls === "input" ? errors.EngramInputError : errors.EngramDataError);
  }
});

test("each interface in types.ts declares exactly the fields serde writes for its Rust type", () => {
  for (const [name, rustFields] of Object.entries(shapes.objects)) {
    const decl = declared.get(name);
    assert.ok(decl && ts.isInterfaceDeclaration(decl), `types.ts declares interface ${name}`);
    const expected = sorted(rustFields.filter((f) => !(UNDECLARED[name] ?? []).includes(f)));
    assert.deepEqual(sorted(propertyNames(decl.members)), expected, `fields of ${name}`);
    for (const f of UNDECLARED[name] ?? []) assert.ok(rustFields.includes(f), `${name}.${f} is no longer written by Rust: drop it from UNDECLARED`);
  }
});

test("each string union in types.ts holds exactly the values serde writes for its Rust enum", () => {
  for (const [name, values] of Object.entries(shapes.unions)) {
    const [iface, field] = name.split(".");
    const decl = declared.get(iface);
    assert.ok(decl, `types.ts declares ${iface}`);
    const node = field ? property(decl.members, field)?.type : decl.type;
    const declaredValues = stringUnion(node);
    assert.ok(declaredValues, `${name} is a union of string literals in types.ts`);
    assert.deepEqual(sorted(declaredValues), sorted(values), `values of ${name}`);
  }
});

test("GraphQuery in types.ts has exactly the Rust templates, each with its fields", () => {
  const { tag, variants } = shapes.tagged.GraphQuery;
  const decl = declared.get("GraphQuery");
  assert.ok(decl && ts.isTypeAliasDeclaration(decl) && ts.isUnionTypeNode(decl.type), "GraphQuery is a union");
  const found = {};
  for (const member of decl.type.types) {
    assert.ok(ts.isTypeLiteralNode(member), "each GraphQuery member is an object type");
    const [value] = stringUnion(property(member.members, tag)?.type) ?? [];
    assert.ok(value, `each GraphQuery member has a literal ${tag}`);
    found[value] = sorted(propertyNames(member.members).filter((n) => n !== tag));
  }
  const expected = Object.fromEntries(Object.entries(variants).map(([k, v]) => [k, sorted(v)]));
  assert.deepEqual(found, expected);
});
