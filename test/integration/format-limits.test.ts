/**
 * The bounds for noisy models: every any_text gets a token limit, every json_schema a whitespace
 * limit, however deep in the tag tree; tighter limits already there are kept; the rest of the tag
 * is unchanged. The whitespace limit is checked on the grammar it lowers to.
 */
import { describe, expect, it } from "vitest";
import { lowerFormat } from "../../lib/compile/lower.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { InvalidArgumentError } from "../../lib/errors.js";
import type { Format, StructuralTag } from "../../lib/format/types.js";
import { limitFreeText, limitWhitespace } from "../../lib/integrations/node-llama-cpp/format-limits.js";
import { buildToolCallingFormat } from "../../lib/tools/families.js";
import { testTools } from "./tiny-llama.js";

const json = (max?: number): Format => ({ type: "json_schema", json_schema: { type: "object", properties: { a: { type: "integer" } } }, ...(max === undefined ? {} : { max_whitespace_cnt: max }) });
const text = (max?: number): Format => ({ type: "any_text", ...(max === undefined ? {} : { max_tokens: max }) });

/** One of every container, each holding a json_schema and an any_text. */
const nested: StructuralTag = {
  type: "structural_tag",
  format: {
    type: "sequence",
    elements: [
      json(),
      { type: "or", elements: [json(1), text(2)] },
      { type: "optional", content: json() },
      { type: "star", content: text() },
      { type: "plus", content: json(9) },
      { type: "repeat", min: 1, max: 2, content: text(9) },
      { type: "tag", begin: "<a>", content: json(), end: "</a>" },
      { type: "triggered_tags", triggers: ["<b"], tags: [{ type: "tag", begin: "<b>", content: text(), end: "</b>" }] },
      { type: "tags_with_separator", separator: ",", tags: [{ type: "tag", begin: "<c>", content: json(), end: "</c>" }] },
      { type: "const_string", value: "end" },
    ],
  },
} as StructuralTag;

function leaves(format: Format, type: "json_schema" | "any_text"): (number | undefined)[] {
  switch (format.type) {
    case "sequence":
    case "or":
      return format.elements.flatMap((f) => leaves(f, type));
    case "optional":
    case "star":
    case "plus":
    case "repeat":
    case "tag":
      return leaves(format.content, type);
    case "triggered_tags":
    case "tags_with_separator":
      return format.tags.flatMap((t) => leaves(t, type));
    case "json_schema":
      return type === "json_schema" ? [format.max_whitespace_cnt] : [];
    case "any_text":
      return type === "any_text" ? [format.max_tokens] : [];
    default:
      return [];
  }
}

describe("limitWhitespace", () => {
  it("bounds every json_schema, keeps tighter bounds and leaves the rest alone", () => {
    const limited = limitWhitespace(nested, 3);
    expect(leaves(limited.format, "json_schema")).toEqual([3, 1, 3, 3, 3, 3]);
    expect(leaves(limited.format, "any_text")).toEqual(leaves(nested.format, "any_text"));
    expect(leaves(nested.format, "json_schema")).toEqual([undefined, 1, undefined, 9, undefined, undefined]);
  });

  it("lowers to a grammar that allows at most N whitespace characters per gap", () => {
    const tag: StructuralTag = { type: "structural_tag", format: json() };
    const two = lowerFormat(limitWhitespace(tag, 2));
    const zero = lowerFormat(limitWhitespace(tag, 0));
    expect(isMatch(two, '{ \n"a"\t\t:  1 \r}')).toBe(true);
    expect(isMatch(two, '{"a"   :1}')).toBe(false);
    expect(isMatch(lowerFormat(tag), '{"a"   :1}')).toBe(true);
    expect(isMatch(zero, '{"a":1}')).toBe(true);
    expect(isMatch(zero, '{"a": 1}')).toBe(false);
  });

  it("reaches the JSON arguments of a Kimi K3 tool call", () => {
    const tag = buildToolCallingFormat({ family: "kimi-k3", tools: testTools(), tool_choice: { type: "function", function: { name: "set_alarm" } } })!;
    const bounded = lowerFormat(limitWhitespace(tag, 2));
    const call = (gap: string): string =>
      `<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="set_alarm" index="1"<|sep|><|open|>json type="object"<|sep|>{"hour"${gap}:7}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`;
    expect(isMatch(lowerFormat(tag), call("     "))).toBe(true);
    expect(isMatch(bounded, call("  "))).toBe(true);
    expect(isMatch(bounded, call("     "))).toBe(false);
  });

  it("refuses a limit that is not a non-negative integer", () => {
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => limitWhitespace(nested, bad)).toThrow(InvalidArgumentError);
    expect(() => limitWhitespace(nested, -1)).toThrow("maxWhitespace: expected a non-negative integer, found -1");
  });
});

describe("limitFreeText", () => {
  it("bounds every any_text, keeps tighter bounds and leaves the rest alone", () => {
    const limited = limitFreeText(nested, 4);
    expect(leaves(limited.format, "any_text")).toEqual([2, 4, 4, 4]);
    expect(leaves(limited.format, "json_schema")).toEqual(leaves(nested.format, "json_schema"));
  });

  it("refuses a limit that is not a non-negative integer", () => {
    expect(() => limitFreeText(nested, -2)).toThrow("maxTokens: expected a non-negative integer, found -2");
  });

  it("reaches into dispatch and the token-level containers, and bounds any_tokens too", () => {
    const tokenTag = (content: Format) => ({ type: "tag", begin: { type: "token", token: 1 }, content, end: { type: "token", token: 2 } });
    const tag = {
      type: "structural_tag",
      format: {
        type: "sequence",
        elements: [
          { type: "dispatch", rules: [["<a>", text()], ["<b>", json()]] },
          { type: "token_dispatch", rules: [[3, text(1)]] },
          { type: "token_triggered_tags", trigger_tokens: [1], tags: [tokenTag({ type: "any_tokens", max_tokens: 9 } as Format)] },
          { type: "any_tokens" },
        ],
      },
    } as unknown as StructuralTag;
    const limited = limitFreeText(tag, 4).format as unknown as { elements: unknown[] };
    const [dispatch, tokenDispatch, triggered, any] = limited.elements as [
      { rules: Array<[string, Format]> }, { rules: Array<[number, Format]> }, { tags: Array<{ content: Format }> }, Format,
    ];
    expect(dispatch.rules.map(([, f]) => (f.type === "any_text" ? f.max_tokens : f.type))).toEqual([4, "json_schema"]);
    expect(tokenDispatch.rules[0]![1]).toEqual({ type: "any_text", max_tokens: 1 });
    expect(triggered.tags[0]!.content).toEqual({ type: "any_tokens", max_tokens: 4 });
    expect(any).toEqual({ type: "any_tokens", max_tokens: 4 });
    const spaced = limitWhitespace(tag, 2).format as unknown as { elements: Array<{ rules?: Array<[string, Format]> }> };
    expect(spaced.elements[0]!.rules).toEqual([["<a>", text()], ["<b>", json(2)]]);
  });
});
