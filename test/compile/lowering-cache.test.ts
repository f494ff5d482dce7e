import { afterEach, describe, expect, it } from "vitest";
import { InvalidArgumentError, SchemaError } from "../../lib/errors.js";
import { printGrammar, type IrGrammar } from "../../lib/compile/ir.js";
import { clearLoweringCache, loweringCacheStats, lowerFormat, setLoweringCacheSize } from "../../lib/compile/lower.js";
import { isMatch, isViablePrefix } from "../../lib/compile/recognizer.js";
import { parseStructuralTag } from "../../lib/format/parse.js";
import type { StructuralTag } from "../../lib/format/types.js";
import { buildToolCallingFormat, type FunctionTool, type ToolChoice } from "../../lib/tools/index.js";
import { sixParameterTool, sixParameterTools } from "../helpers/many-tools.js";
import { seeds } from "../helpers/seeds.js";

const k3 = (tools: FunctionTool[], choice: ToolChoice = "auto"): StructuralTag => {
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: choice });
  if (!tag) throw new Error("no format");
  return tag;
};

const callOf = (i: number, args: string): string => `<|open|>call tool="tool_${i}" index="1"<|sep|>${args}<|close|>call<|sep|>`;
const arg = (key: string, type: string, value: string): string => `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;
const toolsChannel = (calls: string): string => `Sure.<|close|>response<|sep|><|open|>tools<|sep|>${calls}<|close|>tools<|sep|>`;

/** Outputs of the six-parameter tools: each is checked with every prefix and a few broken copies. */
const outputs = [
  "Hello.<|close|>response<|sep|>",
  toolsChannel(callOf(1, arg("query_1", "string", "cats") + arg("limit", "number", "7"))),
  toolsChannel(callOf(2, arg("query_2", "string", "a<b") + arg("limit", "number", "12") + arg("mode", "string", "mode_2") +
    arg("verbose", "boolean", "true") + arg("tags", "array", '["x", "y"]') + arg("range", "object", '{"from": "a", "to": "b"}'))),
  toolsChannel(callOf(0, '<|open|>json type="object"<|sep|>{"query_0": "q", "limit": 10, "range": {"from": "x"}}<|close|>json<|sep|>')),
];

function broken(s: string): string[] {
  return [s.replace("limit", "limits"), s.replace('"7"', '"700"').replace(">7<", ">700<"), `${s}x`, s.replace("query_1", "query_2")];
}

/** Whether two grammars agree on every prefix of the outputs and on broken copies of them. */
function expectSameLanguage(a: IrGrammar, b: IrGrammar, texts: string[]): void {
  for (const text of texts) {
    for (const s of [...broken(text), text]) {
      expect(isMatch(a, s), s).toBe(isMatch(b, s));
    }
    for (let n = 0; n <= text.length; n += 7) {
      const s = text.slice(0, n);
      expect(isViablePrefix(a, s), s).toBe(isViablePrefix(b, s));
    }
  }
}

describe("lowering cache", () => {
  afterEach(() => setLoweringCacheSize(200_000));

  it("gives the same grammar text whether the pieces came from the cache or not", () => {
    const tag = k3(sixParameterTools(4));
    clearLoweringCache();
    const first = printGrammar(lowerFormat(tag));
    const { hits } = loweringCacheStats();
    const again = printGrammar(lowerFormat(tag));
    expect(loweringCacheStats().hits).toBeGreaterThan(hits);
    expect(again).toBe(first);
    // Another history (other tools lowered first) names the rules the same way.
    clearLoweringCache();
    lowerFormat(k3(sixParameterTools(6, { only: 3, variant: 2 })));
    expect(printGrammar(lowerFormat(tag))).toBe(first);
  });

  it("lowers to the same language as without the cache", () => {
    const tag = k3(sixParameterTools(3), "auto");
    const cached = lowerFormat(tag);
    const plain = lowerFormat(tag, { cache: false });
    expect(isMatch(cached, outputs[1]!)).toBe(true);
    expect(isMatch(cached, outputs[2]!)).toBe(true);
    expect(isMatch(cached, outputs[3]!)).toBe(true);
    expectSameLanguage(cached, plain, outputs);
    for (const name of ["auto", "named", "required"] as const) {
      const s = lowerFormat(seeds[name]);
      const p = lowerFormat(seeds[name], { cache: false });
      expectSameLanguage(s, p, ['<|open|>response<|sep|>Hi.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>' +
        '<|open|>argument key="location" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>']);
    }
  });

  it("lowers only what changed when one tool of a list changes", () => {
    const tools = sixParameterTools(10);
    clearLoweringCache();
    const start = loweringCacheStats();
    lowerFormat(k3(tools));
    const before = loweringCacheStats();
    // The ten call tags and their JSON Schemas: per tool its bounded integer, its whole argument
    // object and, inside the object, its enum (all three differ from tool to tool), and once for
    // all ten the boolean, the string array and the range object that every tool shares (hits
    // for the other nine). Inside each whole object, the integer, the array and the range are
    // the argument's own fragments again (three hits per tool).
    expect(before.misses - start.misses).toBe(10 + 3 * 10 + 3);
    expect(before.hits - start.hits).toBe(3 * 9 + 3 * 10);
    const changed = tools.slice();
    changed[4] = sixParameterTool(4, 1);
    lowerFormat(k3(changed, "required"));
    const after = loweringCacheStats();
    // The changed tool's call tag, its integer and its object; the nine other tools come from
    // the cache whole, and the changed tool's three shared schemas too, and inside its object
    // the new integer, the array, the range and the unchanged enum.
    expect(after.misses - before.misses).toBe(3);
    expect(after.hits - before.hits).toBe(9 + 3 + 4);
  });

  it("places a repeated request's cached rules where they stood: the copies made then serve again", () => {
    const tools = sixParameterTools(6);
    clearLoweringCache();
    const first = lowerFormat(k3(tools));
    const again = lowerFormat(k3(tools));
    expect(printGrammar(again)).toBe(printGrammar(first));
    // The call tags' rules and their schemas' come from the cache: the same objects.
    const cachedRule = (name: string): boolean => name.startsWith("json/") || name.startsWith("tag_open_call_");
    const fromCache = again.rules.filter((r) => cachedRule(r.name));
    expect(fromCache.length).toBeGreaterThan(6 * 5);
    expect(fromCache.every((r) => r.body === first.rules[again.rules.indexOf(r)]!.body)).toBe(true);
    // One tool changed: the rules of the tools before it keep their numbers, and their copies.
    const changed = tools.slice();
    changed[4] = sixParameterTool(4, 1);
    const next = lowerFormat(k3(changed));
    // (The changed tool's schemas come before its tag's rule, and after tool 3's.)
    const endOfTool3 = next.rules.findIndex((r) => r.name.includes("tool_3")) + 1;
    expect(endOfTool3).toBeGreaterThan(6 * 3);
    const before = next.rules.slice(0, endOfTool3).filter((r) => cachedRule(r.name));
    expect(before.every((r) => r.body === first.rules[next.rules.indexOf(r)]!.body)).toBe(true);
  });

  it("drops the cached rules of a tag that turns out empty, as lowering without the cache does", () => {
    // A tag whose content is empty as a language: its rules, from the cache, leave the grammar.
    const tag: StructuralTag = {
      type: "structural_tag",
      format: {
        type: "triggered_tags",
        triggers: ["<a"],
        tags: [
          { type: "tag", begin: "<a>", content: { type: "json_schema", json_schema: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 1 } }, end: "</a>" },
          { type: "tag", begin: "<ab>", content: { type: "json_schema", json_schema: { type: "object", properties: { x: { type: "string" } } } }, end: "</ab>" },
        ],
      },
    };
    clearLoweringCache();
    const cached = printGrammar(lowerFormat(tag));
    expect(printGrammar(lowerFormat(tag))).toBe(cached);
    expect(cached).not.toMatch(/tag_a ::=|maxItems|\[0-9\]/);
    const uncached = lowerFormat(tag, { cache: false });
    expect(lowerFormat(tag).rules.length).toBe(uncached.rules.length);
    for (const s of ['<ab>{"x": "1"}</ab>', "<a>[]</a>", 'x<ab>{}</ab>y']) expect(isMatch(lowerFormat(tag), s), s).toBe(isMatch(uncached, s));
  });

  it("holds a schema that several tools share once in their grammar", () => {
    clearLoweringCache();
    // Read as JSON Schema (undeclared members allowed) every object has an open-member rule.
    const text = printGrammar(lowerFormat(k3(sixParameterTools(5)), { undeclared: "allow" }));
    // The range object's member rules (its open members take any JSON value): one copy, not five,
    // nor one more inside each whole argument object (the member schema is the argument's fragment).
    expect(text.match(/^json\/value(_\d+)? ::=/gm)?.length).toBe(1);
    expect(text.match(/^tag_open_call_tool_tool_\d+_index ::=/gm)?.length).toBe(5);
  });

  it("keeps no more than its bound, and refuses a bad bound", () => {
    setLoweringCacheSize(0);
    lowerFormat(k3(sixParameterTools(2)));
    expect(loweringCacheStats().entries).toBe(0);
    expect(loweringCacheStats().nodes).toBe(0);
    setLoweringCacheSize(2_000);
    lowerFormat(k3(sixParameterTools(8)));
    const stats = loweringCacheStats();
    expect(stats.nodes).toBeLessThanOrEqual(2_000);
    expect(stats.evictions).toBeGreaterThan(0);
    expect(() => setLoweringCacheSize(-1)).toThrow(InvalidArgumentError);
    expect(() => setLoweringCacheSize(1.5)).toThrow("setLoweringCacheSize: expected a non-negative integer");
  });

  it("tells apart schemas that differ only in digits a double cannot hold", () => {
    const tag = (max: string): StructuralTag => parseStructuralTag(
      `{"type":"structural_tag","format":{"type":"triggered_tags","triggers":["<f"],"tags":[{"begin":"<f>","content":{"type":"json_schema","json_schema":{"type":"integer","maximum":${max}}},"end":"</f>"}]}}`,
    );
    const low = lowerFormat(tag("9007199254740993"));
    const high = lowerFormat(tag("9007199254740995"));
    expect(isMatch(low, "<f>9007199254740993</f>")).toBe(true);
    expect(isMatch(low, "<f>9007199254740994</f>")).toBe(false);
    expect(isMatch(high, "<f>9007199254740994</f>")).toBe(true);
  });

  it("caches no failure: a bad schema fails the same way every time, naming its path", () => {
    const bad = sixParameterTools(2);
    (bad[1]!.function.parameters as { properties: Record<string, unknown> }).properties["limit"] = { type: "integer", minimum: "one" };
    for (let i = 0; i < 2; i++) {
      let error: unknown;
      try {
        lowerFormat(k3(bad, "required"));
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as Error).message).toBe('#/minimum: expected a number, got "one" (in format.elements[2].content.tags[1].content.elements[2].elements[0].elements[1].content.json_schema)');
    }
  });

  it("lowers a regex once across tags and lowerings, the grammar unchanged, and never keeps a refusal", () => {
    const list = (patterns: string[]): StructuralTag => ({
      type: "structural_tag",
      format: {
        type: "tags_with_separator",
        separator: ",",
        tags: patterns.map((pattern, i) => ({ type: "tag", begin: `<t${i}>`, content: { type: "regex", pattern }, end: `</t${i}>` })),
      },
    });
    const tag = list(["[1-9][0-9]*", "[1-9][0-9]*", "a|b"]);
    clearLoweringCache();
    const first = printGrammar(lowerFormat(tag));
    expect(printGrammar(lowerFormat(tag, { cache: false }))).toBe(first);
    clearLoweringCache();
    expect(printGrammar(lowerFormat(tag))).toBe(first);
    // Each pattern gets its own language, whichever was lowered before.
    const ab = lowerFormat(list(["a|b"]));
    const ac = lowerFormat(list(["a|c"]));
    expect([isMatch(ab, "<t0>b</t0>"), isMatch(ab, "<t0>c</t0>"), isMatch(ac, "<t0>b</t0>"), isMatch(ac, "<t0>c</t0>")]).toEqual([true, false, false, true]);
    for (let i = 0; i < 2; i++) {
      expect(() => lowerFormat(list(["[1-9][0-9]*", "(a"]))).toThrow(/^format\.tags\[1\]\.content\.pattern: /);
    }
  });
});
