/**
 * Undeclared members and items inside structural tags: xgrammar compiles every `json_schema`
 * format in its strict mode, so an object without `additionalProperties` admits no undeclared
 * key and an array without `items` no item past its `prefixItems`; tagmask's lowering does the
 * same by default (`undeclared: "forbid"`) and reads JSON Schema's way with `undeclared: "allow"`
 * (`tagmask match --undeclared allow`). Each case runs through `tagmask match --format` both
 * ways, the forbid verdicts also through xgrammar 0.1.27 itself (@mlc-ai/web-xgrammar) where
 * that version has the feature, and through the API with the compiler option.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { InvalidArgumentError } from "../../lib/errors.js";
import type { StructuralTag } from "../../lib/format/types.js";
import { runCli, scratchDir } from "../helpers/cli.js";
import { loadWebXgrammar, type XgrCompiler } from "../helpers/web-xgrammar.js";

const { file } = scratchDir("undeclared");

/** "match", or the byte offset of the first byte that cannot continue. */
type Verdict = "match" | number;

interface Case {
  name: string;
  format: unknown;
  text: string;
  /** xgrammar's strict reading (the default). */
  forbid: Verdict;
  /** JSON Schema's reading. */
  allow: Verdict;
  /**
   * Also checked against xgrammar 0.1.27: accepted or not (where it rejects, its grammar may keep
   * a dead prefix alive a byte or two longer). False where 0.1.27 lacks the feature: style,
   * any_order, propertyNames alone, and patternProperties beside properties (0.1.27 then drops
   * the properties; later versions read both).
   */
  peer: boolean;
}

const js = (json_schema: unknown, extra: Record<string, unknown> = {}) => ({ type: "json_schema", json_schema, ...extra });
const nameAge = { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name"] };
const point = { type: "object", properties: { x: { type: "integer" } } };

const CASES: Case[] = [
  // xgrammar's own test of the json_schema format (tests/python/test_structural_tag_converter.py).
  { name: "a declared member", format: js({ type: "object", properties: { a: { type: "string" } } }), text: '{"a": "hello"}', forbid: "match", allow: "match", peer: true },
  { name: "an undeclared member", format: js({ type: "object", properties: { a: { type: "string" } } }), text: '{"b": "hello"}', forbid: 2, allow: "match", peer: true },
  { name: "an extra member after the declared ones", format: js(nameAge), text: '{"name": "Bob", "age": 3, "x": 1}', forbid: 24, allow: "match", peer: true },
  { name: "additionalProperties: true", format: js({ ...nameAge, additionalProperties: true }), text: '{"name": "Bob", "x": [1]}', forbid: "match", allow: "match", peer: true },
  { name: "additionalProperties: a schema, met", format: js({ ...nameAge, additionalProperties: { type: "integer" } }), text: '{"name": "Bob", "x": 1}', forbid: "match", allow: "match", peer: true },
  { name: "additionalProperties: a schema, broken", format: js({ ...nameAge, additionalProperties: { type: "integer" } }), text: '{"name": "Bob", "x": "y"}', forbid: 21, allow: 21, peer: true },
  { name: "unevaluatedProperties: a schema", format: js({ ...nameAge, unevaluatedProperties: { type: "boolean" } }), text: '{"name": "Bob", "x": true}', forbid: "match", allow: "match", peer: true },
  { name: "a typeless object schema", format: js({ properties: { a: { type: "integer" } } }), text: '{"a": 1, "b": 2}', forbid: 7, allow: "match", peer: true },
  { name: "a nested object", format: js({ type: "object", properties: { p: point } }), text: '{"p": {"x": 1, "y": 2}}', forbid: 13, allow: "match", peer: true },
  {
    name: "a $ref'd object",
    format: js({ $defs: { P: point }, type: "object", properties: { p: { $ref: "#/$defs/P" } } }),
    text: '{"p": {"x": 1, "y": 2}}', forbid: 13, allow: "match", peer: true,
  },
  {
    name: "an object in anyOf",
    format: js({ anyOf: [point, { type: "string" }] }),
    text: '{"x": 1, "z": 0}', forbid: 7, allow: "match", peer: true,
  },
  {
    name: "patternProperties: a matching key",
    format: js({ type: "object", properties: { a: { type: "integer" } }, patternProperties: { "^x_": { type: "string" } } }),
    text: '{"a": 1, "x_1": "s"}', forbid: "match", allow: "match", peer: false,
  },
  {
    name: "patternProperties: another key",
    format: js({ type: "object", properties: { a: { type: "integer" } }, patternProperties: { "^x_": { type: "string" } } }),
    text: '{"a": 1, "y": 2}', forbid: 10, allow: "match", peer: false,
  },
  {
    name: "propertyNames alone names the members",
    format: js({ type: "object", propertyNames: { pattern: "^k" } }),
    text: '{"k1": 1, "k2": [2]}', forbid: "match", allow: "match", peer: false,
  },
  {
    name: "propertyNames beside properties",
    format: js({ type: "object", properties: { k: { type: "integer" } }, propertyNames: { pattern: "^k" } }),
    text: '{"k": 1, "k2": 2}', forbid: 7, allow: "match", peer: true,
  },
  { name: "a bare object type stays any object", format: js({ type: "object", properties: { m: { type: "object", description: "free" } } }), text: '{"m": {"k": [1]}}', forbid: "match", allow: "match", peer: true },
  { name: "an empty properties list", format: js({ type: "object", properties: { m: { type: "object", properties: {} } } }), text: '{"m": {"k": 1}}', forbid: 7, allow: "match", peer: true },
  { name: "prefixItems without items: the prefix", format: js({ type: "array", prefixItems: [{ type: "integer" }, { type: "string" }] }), text: '[1, "a"]', forbid: "match", allow: "match", peer: true },
  { name: "prefixItems without items: one more", format: js({ type: "array", prefixItems: [{ type: "integer" }, { type: "string" }] }), text: '[1, "a", 2]', forbid: 7, allow: "match", peer: true },
  { name: "prefixItems with items", format: js({ type: "array", prefixItems: [{ type: "integer" }], items: { type: "string" } }), text: '[1, "a", "b"]', forbid: "match", allow: "match", peer: true },
  { name: "a bare array type stays any array", format: js({ type: "object", properties: { l: { type: "array" } } }), text: '{"l": [1, "a"]}', forbid: "match", allow: "match", peer: true },
  { name: "an array with maxItems but no items", format: js({ type: "object", properties: { l: { type: "array", maxItems: 3 } } }), text: '{"l": [1]}', forbid: 7, allow: "match", peer: true },
  { name: "any_order", format: js(nameAge, { any_order: true }), text: '{"age": 3, "name": "B", "x": 1}', forbid: 22, allow: "match", peer: false },
  {
    name: "inside a tag",
    format: { type: "tag", begin: "<f>", content: js(point), end: "</f>" },
    text: '<f>{"x": 1, "y": 2}</f>', forbid: 10, allow: "match", peer: true,
  },
  {
    name: "the qwen_xml style: an undeclared argument",
    format: js(nameAge, { style: "qwen_xml" }),
    text: "<parameter=name>\nBob\n</parameter>\n<parameter=x>\n1\n</parameter>", forbid: 45, allow: "match", peer: false,
  },
  {
    name: "the qwen_xml style: an object argument with an undeclared member",
    format: js({ type: "object", properties: { p: point }, required: ["p"] }, { style: "qwen_xml" }),
    text: '<parameter=p>\n{"x": 1, "y": 2}\n</parameter>', forbid: 21, allow: "match", peer: false,
  },
];

const verdictText = (v: Verdict) => (v === "match" ? "match\n" : `no match at byte ${v}\n`);

describe("tagmask match --format: undeclared members and items", () => {
  CASES.forEach((c, i) => {
    it(c.name, async () => {
      const f = file(`case-${i}.json`, JSON.stringify({ type: "structural_tag", format: c.format }));
      expect((await runCli(["match", "--format", f], c.text)).stdout, "forbid (default)").toBe(verdictText(c.forbid));
      expect((await runCli(["match", "--format", f, "--undeclared", "forbid"], c.text)).stdout, "forbid").toBe(verdictText(c.forbid));
      expect((await runCli(["match", "--format", f, "--undeclared", "allow"], c.text)).stdout, "allow").toBe(verdictText(c.allow));
    });
  });

  it("refuses an unknown --undeclared value, and --undeclared with --regex", async () => {
    const f = file("plain.json", JSON.stringify(js(point)));
    expect((await runCli(["match", "--format", f, "--undeclared", "open"], "{}")).stderr).toMatch(/--undeclared must be one of forbid, allow, got "open"/);
    expect((await runCli(["match", "--regex", "a", "--undeclared", "allow"], "a")).stderr).toMatch(/--undeclared applies to --format and --schema only/);
  });

  it("reads --schema as JSON Schema by default, xgrammar's way with --undeclared forbid", async () => {
    const f = file("schema.json", JSON.stringify(point));
    expect((await runCli(["match", "--schema", f], '{"x": 1, "y": 2}')).stdout).toBe("match\n");
    expect((await runCli(["match", "--schema", f, "--undeclared", "forbid"], '{"x": 1, "y": 2}')).stdout).toBe("no match at byte 7\n");
  });
});

describe("the API", () => {
  it("compileJsonSchema keeps JSON Schema's reading unless asked", () => {
    const schema = { properties: { a: { type: "integer" } }, prefixItems: [] };
    expect(isMatch(compileJsonSchema(point).grammar, '{"x":1,"y":2}')).toBe(true);
    expect(isMatch(compileJsonSchema(point, { undeclared: "allow" }).grammar, '{"x":1,"y":2}')).toBe(true);
    expect(isMatch(compileJsonSchema(point, { undeclared: "forbid" }).grammar, '{"x":1,"y":2}')).toBe(false);
    expect(isMatch(compileJsonSchema(point, { undeclared: "forbid" }).grammar, '{"x":1}')).toBe(true);
    // A typeless schema with properties is xgrammar's object: its items rule does not apply.
    expect(isMatch(compileJsonSchema(schema, { undeclared: "forbid" }).grammar, "[1,2]")).toBe(true);
    expect(() => compileJsonSchema(point, { undeclared: "closed" as never })).toThrow(InvalidArgumentError);
  });

  it("lowerFormat forbids by default and allows on request, in both lowerings the cache keeps apart", () => {
    const tag: StructuralTag = { type: "structural_tag", format: { type: "json_schema", json_schema: { type: "object", properties: { q: { type: "string" }, r: point } } } };
    const text = '{"q": "a", "r": {"x": 1, "y": 2}}';
    for (let round = 0; round < 2; round++) {
      expect(isMatch(lowerFormat(tag), text)).toBe(false);
      expect(isMatch(lowerFormat(tag, { undeclared: "allow" }), text)).toBe(true);
      expect(isMatch(lowerFormat(tag, { undeclared: "forbid" }), text)).toBe(false);
    }
    expect(() => lowerFormat(tag, { undeclared: "open" as never })).toThrow(InvalidArgumentError);
  });
});

describe("the forbid verdicts from xgrammar 0.1.27 itself", () => {
  const peerCases = CASES.filter((c) => c.peer);
  const chars = [...new Set(peerCases.flatMap((c) => [...c.text]))];
  const vocab = ["</s>", ...chars];
  let compiler: XgrCompiler;
  let xg: ReturnType<typeof loadWebXgrammar>;
  beforeAll(async () => {
    xg = loadWebXgrammar();
    compiler = await xg.GrammarCompiler.createGrammarCompiler(await xg.TokenizerInfo.createTokenizerInfo(vocab, "raw", false, vocab.length, [0]));
  });

  it.each(peerCases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const compiled = await compiler.compileStructuralTag(JSON.stringify({ type: "structural_tag", format: c.format }));
    const m = await xg.GrammarMatcher.createGrammarMatcher(compiled);
    try {
      const cs = [...c.text];
      let verdict: Verdict = "match";
      for (let k = 0; k < cs.length; k++) {
        if (!m.acceptToken(vocab.indexOf(cs[k]!))) {
          verdict = k;
          break;
        }
      }
      if (verdict === "match" && !m.acceptToken(0)) verdict = cs.length;
      expect(verdict === "match").toBe(c.forbid === "match");
    } finally {
      m.dispose();
      compiled.dispose();
    }
  });
});
