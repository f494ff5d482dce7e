/**
 * Cases of xgrammar's tests/python/test_deepseek_v4_1.py that exercise the `deepseek_v4_1_xml`
 * argument style itself (DeepSeek V4.1 writes `<｜DSML｜ parameter name="K" string="…">`, a space
 * after the marker): the `string` attribute pinned to the value's kind, unions, mixed enums.
 * Its builtin-tag and tokenizer cases need the model's builtin (a family tagmask does not have).
 */
import { json, type TagCase } from "./cases.js";

const param = (value: string, string: string, name = "value") => `<｜DSML｜ parameter name="${name}" string="${string}">${value}</｜DSML｜ parameter>`;
const style = { style: "deepseek_v4_1_xml" };
const oneValue = (value: unknown, extra: Record<string, unknown> = {}) =>
  json({ type: "object", properties: { value }, required: ["value"], additionalProperties: false }, { ...style, ...extra });

const PARAMETER_STYLES: Array<[string, unknown, string, "true" | "false"]> = [
  ["string", { type: "string" }, 'raw "quotes" & <tag>\n你好', "true"],
  ["integer", { type: "integer" }, "42", "false"],
  ["number", { type: "number" }, "-1.25", "false"],
  ["boolean", { type: "boolean" }, "true", "false"],
  ["null", { type: "null" }, "null", "false"],
  ["array", { type: "array", items: { type: "integer" } }, "[1, 2]", "false"],
  ["object", { type: "object", properties: { x: { type: "string" } }, required: ["x"] }, '{"x": "hi"}', "false"],
  ["const", { const: "fixed" }, "fixed", "true"],
  ["enum", { enum: [1, 2] }, "2", "false"],
  ["anyOf", { anyOf: [{ type: "integer" }, { type: "null" }] }, "null", "false"],
];

const ALTERNATIVES: Array<[string, unknown]> = [
  ["anyOf", { anyOf: [{ type: "string" }, { type: "integer" }] }],
  ["oneOf", { oneOf: [{ type: "string" }, { type: "integer" }] }],
  ["type list", { type: ["string", "integer"] }],
  ["$ref", { $ref: "#/$defs/value" }],
  ["allOf", { allOf: [{ type: ["string", "integer"] }] }],
  ["any", {}],
];

export const DEEPSEEK_V4_1_CASES: TagCase[] = [
  ...PARAMETER_STYLES.map(([name, schema, value, flag]): TagCase => {
    const ok = param(value, flag);
    return {
      name: `test_parameter_style[${name}]`,
      format: oneValue(schema),
      accepted: [ok],
      rejected: [ok.replace(`string="${flag}"`, `string="${flag === "true" ? "false" : "true"}"`), ok.replaceAll("｜DSML｜ parameter", "｜DSML｜parameter"), ok + ok],
    };
  }),
  ...ALTERNATIVES.flatMap(([name, value]) => [false, true].map((dynamic): TagCase => {
    const schema = dynamic
      ? { type: "object", $defs: { value: { type: ["string", "integer"] } }, additionalProperties: value }
      : { type: "object", $defs: { value: { type: ["string", "integer"] } }, properties: { value }, required: ["value"] };
    return {
      name: `test_type_attribute_tracks_value_alternatives[${name}, ${dynamic ? "additionalProperties" : "declared"}]`,
      format: json(schema, style),
      accepted: [param("text", "true"), param("42", "true"), param("42", "false")],
      rejected: [param("not-json", "false"), param('"text"', "false")],
    };
  })),
  ...[false, true].map((anyOrder): TagCase => ({
    name: `test_mixed_enum_and_string_whitespace[any_order=${anyOrder}]`,
    format: json({ type: "object", properties: { value: { enum: ["fixed", 2] } }, required: ["value"] }, { ...style, any_order: anyOrder }),
    accepted: [param("fixed", "true"), param("2", "false"), param(" 2 ", "false")],
    rejected: [param("fixed", "false"), param("2", "true"), param(" fixed ", "true")],
  })),
];
