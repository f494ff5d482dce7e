/**
 * Cases of xgrammar's tests/python/test_empty_xml_object.py and
 * test_glm_bounded_xml_regression.py: the XML argument styles on tool schemas without arguments
 * and on length-bounded string arguments. xgrammar's tests compile the schema alone with a
 * `json_format`; here it is the `json_schema` format with that style.
 */
import { json, obj, tag, type RefusedCase, type TagCase } from "./cases.js";

const XML_STYLES = ["qwen_xml", "minimax_xml", "deepseek_xml", "glm_xml", "kimi_k3_xml"];
const WHITESPACE = [" ", "\t", "\n", "\t\t\t", " \n\t"];
const NO_ARGUMENT = { type: "object", properties: {}, required: [] };
const CLOSED_NO_ARGUMENT = { ...NO_ARGUMENT, additionalProperties: false };
const qwen = (schema: unknown) => json(schema, { style: "qwen_xml" });
const CITY = "<parameter=city>Paris</parameter>";
const BEGIN = "<tool_call>\n<function=no_argument_tool>\n";
const END = "\n</function>\n</tool_call>";
const qwenCall = (schema: unknown, name = "no_argument_tool") => tag(`<tool_call>\n<function=${name}>\n`, qwen(schema), END);

export const EMPTY_XML_OBJECT_CASES: TagCase[] = [
  ...XML_STYLES.flatMap((style) => [["implicit", NO_ARGUMENT], ["explicit", CLOSED_NO_ARGUMENT]].map(([which, schema]): TagCase => ({
    name: `test_no_argument_object_rejects_whitespace[${style}, ${String(which)} additional_properties]`,
    format: json(schema, { style }),
    accepted: [""],
    rejected: WHITESPACE,
  }))),
  ...[
    ["annotations", { title: "NoArgument", description: "Takes nothing." }],
    ["min_properties", { minProperties: 0 }],
    ["max_properties", { maxProperties: 5 }],
    ["unevaluated", { unevaluatedProperties: false }],
  ].map(([which, extra]): TagCase => ({
    name: `test_no_argument_object_ignores_irrelevant_keywords[${String(which)}]`,
    format: qwen({ ...NO_ARGUMENT, ...(extra as object) }),
    accepted: [""],
    rejected: ["\t"],
  })),
  { name: "test_no_argument_object_behind_ref", format: qwen({ $defs: { NoArgument: NO_ARGUMENT }, $ref: "#/$defs/NoArgument" }), accepted: [""], rejected: ["\t"] },
  ...[
    ["bare_object", { type: "object" }],
    ["additional_true", { ...NO_ARGUMENT, additionalProperties: true }],
    ["additional_schema", { ...NO_ARGUMENT, additionalProperties: { type: "string" } }],
    ["unevaluated_true", { ...NO_ARGUMENT, unevaluatedProperties: true }],
  ].map(([which, schema]): TagCase => ({ name: `test_object_allowing_properties_still_emits_parameters[${String(which)}]`, format: qwen(schema), accepted: [CITY], rejected: [] })),
  { name: "test_max_properties_zero_closes_open_object", format: qwen({ type: "object", additionalProperties: true, maxProperties: 0 }), accepted: [""], rejected: ["\t", CITY] },
  {
    name: "test_max_properties_zero_closes_object_with_declared_property",
    format: qwen({ type: "object", properties: { city: { type: "string" } }, maxProperties: 0 }),
    accepted: [""],
    rejected: ["\t", CITY],
  },
  ...[NO_ARGUMENT, CLOSED_NO_ARGUMENT].map((schema, i): TagCase => ({
    name: `test_json_format_keeps_empty_braces[${i}]`,
    format: json(schema, { style: "json" }),
    accepted: ["{}", "{ \n\t}"],
    rejected: [""],
  })),
  {
    name: "test_nested_empty_object_keeps_json_braces",
    format: qwen(obj({ config: CLOSED_NO_ARGUMENT }, ["config"], { additionalProperties: false })),
    accepted: ["<parameter=config>{}</parameter>", "<parameter=config>{ \n\t}</parameter>"],
    rejected: ["<parameter=config></parameter>"],
  },
  ...[NO_ARGUMENT, CLOSED_NO_ARGUMENT].map((schema, i): TagCase => ({
    name: `test_structural_tag_closes_no_argument_tool_call[${i}]`,
    format: { type: "structural_tag", format: qwenCall(schema) },
    accepted: [BEGIN + END],
    rejected: WHITESPACE.map((ws) => BEGIN + ws + END),
  })),
  {
    name: "test_structural_tag_mixed_tools",
    format: {
      type: "triggered_tags",
      triggers: ["<tool_call>\n<function="],
      tags: [qwenCall(NO_ARGUMENT), qwenCall(obj({ city: { type: "string" } }), "with_argument_tool")],
    },
    accepted: [BEGIN + END, `<tool_call>\n<function=with_argument_tool>\n${CITY}${END}`],
    rejected: [BEGIN + "\t" + END],
  },
];

export const EMPTY_XML_OBJECT_REFUSED: RefusedCase[] = [
  { name: "test_unsatisfiable_no_argument_object", format: qwen({ ...NO_ARGUMENT, minProperties: 1 }), error: "minProperties" },
];

const glm = (schema: unknown) => json(schema, { style: "glm_xml" });
const query = (value: string) => `<arg_key>query</arg_key><arg_value>${value}</arg_value>`;
const codePoints = (s: string) => [...s].length;

function lengthBoundaries(): TagCase[] {
  const values = ["", "a", "ab", "abcd", "abcde", " ", "  ", " a ", "\n", "é", "你", "😀", "a😀", "<", "a < b", "<div>", "</arg_valu", "x".repeat(16), "x".repeat(17)];
  return ([[0, 0], [0, 1], [1, 1], [1, 4], [2, 4], [1, 16], [3, -1]] as const).map(([lo, hi]) => {
    const within = (v: string) => codePoints(v) >= lo && (hi < 0 || codePoints(v) <= hi);
    const prop = hi >= 0 ? { type: "string", minLength: lo, maxLength: hi } : { type: "string", minLength: lo };
    return {
      name: `test_length_boundaries_and_unicode[${lo}, ${hi}]`,
      format: glm(obj({ query: prop }, ["query"], { additionalProperties: false })),
      accepted: values.filter(within).map(query),
      rejected: values.filter((v) => !within(v)).map(query),
    };
  });
}

function composed(): TagCase[] {
  const base = { type: "string", minLength: 2, maxLength: 4 };
  const variants: Array<[string, unknown]> = [["direct", base], ["ref", { $ref: "#/$defs/value" }], ["allOf", { allOf: [base] }], ["anyOf", { anyOf: [base, { type: "integer" }] }]];
  const values = ["a", "ab", "abcd", "abcde", " a ", "     ", "é😀", "a < b", "  10 ", "12"];
  return variants.map(([name, prop]) => {
    const want = (v: string) => (codePoints(v) >= 2 && codePoints(v) <= 4) || (name === "anyOf" && /^\d+$/.test(v.trim()));
    return {
      name: `test_refs_and_composed_schemas[${name}]`,
      format: glm({ ...obj({ query: prop }, ["query"], { additionalProperties: false }), $defs: { value: base } }),
      accepted: values.filter(want).map(query),
      rejected: values.filter((v) => !want(v)).map(query),
    };
  });
}

const probeTag = (maxLength: number) => ({
  type: "structural_tag",
  format: {
    type: "triggered_tags",
    triggers: ["<tool_call>"],
    tags: [tag("<tool_call>probe", glm(obj({ query: { type: "string", minLength: 1, maxLength } }, ["query"], { additionalProperties: false })), "</tool_call>")],
    at_least_one: false,
    stop_after_first: false,
  },
});

export const GLM_BOUNDED_CASES: TagCase[] = [
  ...lengthBoundaries(),
  ...composed(),
  {
    name: "test_masks_and_speculative_rollback (its token sequence, four calls)",
    format: probeTag(4),
    accepted: ["<tool_call>probe\n<arg_key>query</arg_key><arg_value>😀ab</arg_value></tool_call>".repeat(4)],
    rejected: ["<tool_call>probe\n<arg_key>query</arg_key><arg_value>😀abab</arg_value></tool_call>"],
  },
  {
    name: "test_recursive_schema",
    format: glm({
      ...obj({ query: { $ref: "#/$defs/value" } }, ["query"], { additionalProperties: false }),
      $defs: { value: { anyOf: [{ type: "string", minLength: 1, maxLength: 4 }, { $ref: "#/$defs/value" }] } },
    }),
    accepted: [query("a"), query("abcd")],
    rejected: [query("abcde"), query("     ")],
  },
  {
    name: "test_repeated_calls_do_not_accumulate_parser_states",
    format: probeTag(4000),
    accepted: ["<tool_call>probe\n<arg_key>query</arg_key><arg_value>hello</arg_value></tool_call>".repeat(5), `<tool_call>probe${query("x".repeat(4000))}</tool_call>`],
    // Past the bound (the matcher counts the length: the product with the marker is too large).
    rejected: [`<tool_call>probe${query("x".repeat(4001))}</tool_call>`, `<tool_call>probe${query("x".repeat(3999) + "</arg_value>")}</tool_call>`],
  },
];
