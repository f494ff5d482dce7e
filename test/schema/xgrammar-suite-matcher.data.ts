/**
 * Rows from xgrammar's tests/python/test_grammar_matcher_json_schema.py,
 * test_json_schema_keyword_support.py and test_builtin_grammar_json_schema.py. The matcher tests
 * feed a real tokenizer byte by byte and require the end to be reachable; here the texts go
 * through the reference recognizer (the engine's masks agree with it, test/engine). Pydantic
 * models are written out as pydantic 2's JSON Schema; `model_dump_json` writes compact JSON.
 */
import { MAIN_INSTANCE, MAIN_MODEL } from "./xgrammar-suite-converter.data.js";
import { dumps, type SuiteCase, type SuiteFile } from "./xgrammar-suite.types.js";

const str = { type: "string" };
const valueModel = (value: object) => ({ type: "object", properties: { value }, required: ["value"] });
/** A model whose only field is `value`, as JSON text so that every digit of the bounds stays. */
const valueText = (type: string, minimum: string, maximum: string) =>
  `{"type": "object", "properties": {"value": {"type": "${type}", "minimum": ${minimum}, "maximum": ${maximum}}}, "required": ["value"]}`;
const values = (...xs: string[]) => xs.map((x) => `{"value":${x}}`);

const range = (name: string, type: string, minimum: string, maximum: string, accept: string[], reject: string[], more: Partial<SuiteCase> = {}): SuiteCase => ({
  name: `test_fill_next_token_bitmask_intfloat_range: ${name}`,
  kind: "agree",
  schema: valueText(type, minimum, maximum),
  accept: values(...accept),
  reject: values(...reject),
  ...more,
});

const formatModel = (format: string) => ({ type: "object", properties: { name: { type: "string", format } }, required: ["name"] });
const formatRow = (format: string, value: string, more: Partial<SuiteCase> = {}): SuiteCase => ({
  name: `test_mask_generation_format: ${format}`,
  kind: "agree",
  schema: formatModel(format),
  accept: [`{"name": "${value}"}`],
  ...more,
});

const profile = (first: Record<string, unknown>) => ({
  type: "object",
  properties: {
    ...first,
    contact: { type: "object", properties: { email: { type: "string", format: "email" }, phone: str }, required: ["email"], additionalProperties: false },
    address: { type: "object", properties: { country: str, city: str, street: str, zip: str }, required: ["country", "city"], additionalProperties: false },
  },
  required: [Object.keys(first)[0]!],
  additionalProperties: false,
});
const metadata = {
  type: "object",
  properties: { created_at: { type: "string", format: "date-time" }, updated_at: { type: "string", format: "date-time" }, tags: { type: "array", items: str } },
  required: ["created_at"],
  additionalProperties: false,
};
const cacheSchema = (profileFields: Record<string, unknown>, section: [string, object]) => ({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { id: { type: "string", pattern: "^[a-zA-Z0-9_-]+$" }, profile: profile(profileFields), [section[0]]: section[1], metadata },
  required: ["id", "profile", "metadata"],
  additionalProperties: false,
});
const SCHEMA_A = cacheSchema({ username: { type: "string", minLength: 1 }, age: { type: "integer", minimum: 0 } }, [
  "preferences",
  { type: "object", properties: { language: str, timezone: str, newsletter: { type: "boolean" } }, additionalProperties: false },
]);
const SCHEMA_B = cacheSchema({ model: { type: "string", minLength: 1 }, firmware_version: str }, [
  "configuration",
  { type: "object", properties: { power_mode: { type: "string", enum: ["on", "off", "sleep"] }, sampling_rate: { type: "integer", minimum: 1 } }, additionalProperties: false },
]);
const STRING_A = `{
    "id": "user_12345",
    "profile": {
        "username": "alice",
        "age": 28,
        "contact": {
        "email": "alice@example.com",
        "phone": "+81-90-1234-5678"
        },
        "address": {
        "country": "Japan",
        "city": "Tokyo",
        "street": "Chiyoda 1-1",
        "zip": "100-0001"
        }
    },
    "preferences": {
        "language": "ja",
        "timezone": "Asia/Tokyo",
        "newsletter": true
    },
    "metadata": {
        "created_at": "2025-12-01T10:15:30Z",
        "updated_at": "2026-01-02T08:20:00Z",
        "tags": ["beta_user", "premium"]
    }
    }`;
const STRING_B = `{
    "id": "device_A9X3",
    "profile": {
        "model": "SensorPro-X",
        "firmware_version": "v2.3.1",
        "contact": {
        "email": "support@example.com",
        "phone": "+1-800-555-0199"
        },
        "address": {
        "country": "Japan",
        "city": "Osaka",
        "street": "Namba 2-3-4",
        "zip": "542-0076"
        }
    },
    "configuration": {
        "power_mode": "on",
        "sampling_rate": 100
    },
    "metadata": {
        "created_at": "2025-11-20T03:45:10Z",
        "updated_at": "2026-01-01T12:00:00Z",
        "tags": ["factory", "edge-node"]
    }
    }`;

export const MATCHER: SuiteFile = {
  file: "test_grammar_matcher_json_schema.py",
  cases: [
    { name: "test_json_schema_find_jump_forward_string (MainModel, indent 2)", kind: "agree", schema: MAIN_MODEL, accept: [dumps(MAIN_INSTANCE, { indent: 2 })] },
    range("1 to 100", "integer", "1", "100", ["42"], ["0", "101"]),
    range("-128 to 256", "integer", "-128", "256", ["-128", "0", "256", "14"], ["-129", "257"]),
    range("-1000 to -1", "integer", "-1000", "-1", ["-1000", "-500", "-1"], ["0", "-1001"]),
    range("-99999 to 99999", "integer", "-99999", "99999", ["-99999", "-5678", "0", "5678", "99999"], ["100000"]),
    range("0 to 2e10", "integer", "0", "20000000000", ["20000000000", "0", "10000000000", "19999999999"], ["20000000001"]),
    range("0.0 to 1.0", "number", "0.0", "1.0", ["0.0", "0.5", "1.0"], ["1.01", "-0.1"]),
    range("-10.0 to -0.1", "number", "-10.0", "-0.1", ["-10.0", "-5.5", "-0.1"], ["-0.09", "-10.5"]),
    range("-1000.0 to 1000.0", "number", "-1000.0", "1000.0", ["-1000.0", "-500.5", "0.0", "500.5", "1000.0"], ["1000.5"]),
    range("-12345.12345 to 56789.56789", "number", "-12345.12345", "56789.56789", ["-1234.1234", "0.0", "5671.123456"], ["56789.5679"]),
    range("about -2e10 to 2e10 (bounds as Python writes them)", "number", "-20000000000.123123", "20000000000.456787", ["20000000000.456787", "-19999999999.456787"], ["20000000000.456788"]),
    range("0 to 2^63-1", "integer", "0", "9223372036854775807", ["9223372036854775807", "1000"], ["9223372036854775808"]),
    range("-2^63 to 0", "integer", "-9223372036854775808", "0", ["-9223372036854775808", "-1000"], ["-9223372036854775809"]),
    range("0 to 1e18", "integer", "0", "1000000000000000000", ["1000000000000000000", "1000"], ["1000000000000000001"]),
    range("0 to 2^64-1", "integer", "0", "18446744073709551615", ["18446744073709551615", "0"], ["18446744073709551616"], {
      name: "test_64bit_limit_validation: ExceedsInt64MaxSchema",
      kind: "compiles",
      peerError: "exceeds",
      why: "bounds are exact decimals of any length",
    }),
    range("-2^63-1 to 100", "integer", "-9223372036854775809", "100", ["-9223372036854775809", "100"], ["-9223372036854775810", "101"], {
      name: "test_64bit_limit_validation: ExceedsInt64MinSchema",
      kind: "compiles",
      peerError: "exceeds",
    }),
    range("-2^64 to 2^64", "integer", "-18446744073709551616", "18446744073709551616", ["-18446744073709551616", "18446744073709551616"], ["18446744073709551617"], {
      name: "test_64bit_limit_validation: ExceedsInt64RangeSchema",
      kind: "compiles",
      peerError: "exceeds",
    }),
    {
      name: "test_mixed_type_range_schema",
      kind: "agree",
      schema: { type: "object", properties: { int_value: { type: "integer", minimum: -100, maximum: 100 }, float_value: { type: "number", minimum: -10.0, maximum: 10.0 } }, required: ["int_value", "float_value"] },
      accept: ['{"int_value":-100,"float_value":-10.0}', '{"int_value":100,"float_value":10.0}', '{"int_value":0,"float_value":0.0}', '{"int_value":-50,"float_value":5.5}'],
      reject: ['{"int_value":-101,"float_value":0.0}', '{"int_value":0,"float_value":10.5}'],
    },
    {
      name: "test_multiple_boundaries_schema",
      kind: "agree",
      schema: {
        type: "object",
        properties: { small_value: { type: "integer", minimum: -10, maximum: 10 }, medium_value: { type: "integer", minimum: -100, maximum: 100 }, large_value: { type: "integer", minimum: -1000, maximum: 1000 } },
        required: ["small_value", "medium_value", "large_value"],
      },
      accept: ['{"small_value":-10,"medium_value":-100,"large_value":-1000}', '{"small_value":10,"medium_value":100,"large_value":1000}', '{"small_value":0,"medium_value":0,"large_value":0}', '{"small_value":-5,"medium_value":50,"large_value":-500}'],
      reject: ['{"small_value":11,"medium_value":0,"large_value":0}', '{"small_value":0,"medium_value":0,"large_value":1001}'],
    },
    formatRow("email", "long.email-address-with-hyphens@and.subdomains.example.com"),
    formatRow("email", String.raw`\"very.(),:;<>[]\\\".VERY.\\\"very@\\\\ \\\"very\\\".unusual\"@strange.example.com`),
    formatRow("ipv4", "128.255.000.222", {
      kind: "stricter",
      accept: [],
      reject: ['{"name": "128.255.000.222"}'],
      peer: ['{"name": "128.255.000.222"}'],
      why: "a dotted-quad octet has no leading zeros (as in test_json_schema_converter.py's ipv4 rows)",
    }),
    formatRow("ipv6", "2001:db8:3:4::192.0.2.33"),
    formatRow("duration", "P1Y23M456DT9H87M654S"),
    formatRow("date-time", "2025-01-01T12:34:56.7+08:09"),
    formatRow("hostname", "123--abc.efgh---789-xyz.rst-uvw", {
      kind: "refused",
      accept: [],
      error: { keyword: "format", path: "#/properties/name/format" },
      why: "hostname is refused (IDNA A-labels)",
    }),
    formatRow("uuid", "01234567-89AB-CDEF-abcd-ef0123456789"),
    formatRow("uri", "http://azAZ09-._~%Ff!$&'()*+,;=:@xyz:987/-/./+/*?aA0-._~%Ff!$&'()@#zZ9-._~%Aa!$&,;=:"),
    {
      name: "test_implicit_left_recursion_schema",
      kind: "agree",
      schema: {
        $schema: "http://json-schema.org/draft-04/schema#",
        type: "object",
        properties: { url: { type: "string", pattern: "^(https?://)?([\\da-z\\.-]+)\\.([a-z\\.]{2,6})([/\\w \\.-]*)*/?" } },
      },
      accept: ['{"url": "https://example.com/a/b"}', '{"url": "example.org"}'],
      reject: ['{"url": "https://"}'],
    },
    {
      name: "test_regression_accept_invalid_token",
      kind: "agree",
      schema: `{"type": "object", "properties": {"value": {"type": ["string", "null"], "maxLength": 10},
"nested": {"type": "object", "properties": {"value": {"type": ["string", "null"]},
"nested_nested": {"type": "array", "items": {"type": ["string", "null"]}}},
"required": ["value", "nested_nested"], "maxItems": 10, "minItems": 1}},
"required": ["value", "nested"], "additionalProperties": false}`,
      accept: ['{"value": null, "nested": {"value": "x", "nested_nested": ["a", null]}}', '{"value": "0123456789", "nested": {"value": null, "nested_nested": []}}'],
      reject: ['{"value": "0123456789a", "nested": {"value": null, "nested_nested": []}}'],
    },
    {
      name: "test_regression_accept_kimi_tokenizer_token",
      kind: "agree",
      schema: { type: "object", properties: { command: str, security_risk: { type: "string", enum: ["LOW", "MEDIUM", "HIGH"] } }, required: ["command"] },
      accept: ['{"command": "find ./ -name *.txt ", "security_risk": "LOW"}'],
      reject: ['{"command": "ls", "security_risk": "NONE"}'],
    },
    {
      name: "test_regression_empty_property_key_regex",
      kind: "agree",
      schema: { type: "object", properties: { _links: { type: "object", patternProperties: { "": { type: "object", properties: { href: str } } } } } },
      accept: ['{"_links": {"self": {"href": "/a"}, "next": {}}}'],
      reject: ['{"_links": {"self": {"href": 1}}}'],
    },
    {
      name: "test_json_schema_number_without_constraint",
      kind: "agree",
      schema: { type: "object", properties: { value: { type: "number" } }, required: ["value"] },
      accept: ["-0.5", "-1.5", "0", "1234567890", "3.14159", "1e10", "-2.5E-3", "0.0", "-0.0"].map((v) => `{"value": ${v}}`),
      reject: ['{"value": "abc"}'],
    },
    { name: "test_rule_level_cache_cross_grammar: schema_a", kind: "agree", schema: SCHEMA_A, accept: [STRING_A], reject: [STRING_B] },
    { name: "test_rule_level_cache_cross_grammar: schema_b", kind: "agree", schema: SCHEMA_B, accept: [STRING_B], reject: [STRING_A] },
  ],
};

const keyword = (name: string, schema: unknown, good: unknown, bad: unknown, enforcedByPeer: boolean, more: Partial<SuiteCase> = {}): SuiteCase => ({
  name: `test_keyword_support: ${name}`,
  kind: enforcedByPeer ? "agree" : "stricter",
  schema,
  accept: [JSON.stringify(good)],
  reject: [JSON.stringify(bad)],
  ...(enforcedByPeer ? {} : { peer: [JSON.stringify(bad)] }),
  ...more,
});

export const KEYWORDS: SuiteFile = {
  file: "test_json_schema_keyword_support.py",
  cases: [
    keyword("type:string", str, "a", 1, true),
    keyword("type:integer", { type: "integer" }, 1, 1.5, true),
    keyword("type:number", { type: "number" }, 1.5, "x", true),
    keyword("type:boolean", { type: "boolean" }, true, "true", true),
    keyword("type:null", { type: "null" }, null, 0, true),
    keyword("enum", { type: "string", enum: ["a", "b"] }, "a", "z", true),
    keyword("const", { const: "k" }, "k", "j", true),
    keyword("minLength", { type: "string", minLength: 3 }, "abcd", "a", true),
    keyword("maxLength", { type: "string", maxLength: 3 }, "ab", "abcdef", true),
    keyword("pattern", { type: "string", pattern: "^a+$" }, "aaa", "bbb", true),
    keyword("format:date", { type: "string", format: "date" }, "2020-01-01", "nope", true),
    keyword("minimum:integer", { type: "integer", minimum: 10 }, 12, 3, true),
    keyword("maximum:integer", { type: "integer", maximum: 10 }, 5, 99, true),
    { ...keyword("minimum:number", { type: "number", minimum: 10 }, 12, 3.5, true), accept: ["12.0"] },
    { ...keyword("maximum:number", { type: "number", maximum: 10 }, 5, 99.5, true), accept: ["5.0"] },
    keyword("exclusiveMinimum", { type: "integer", exclusiveMinimum: 10 }, 11, 10, true),
    keyword("exclusiveMaximum", { type: "integer", exclusiveMaximum: 10 }, 9, 10, true),
    keyword("multipleOf:integer", { type: "integer", multipleOf: 5 }, 10, 7, true),
    keyword("minItems", { type: "array", items: { type: "integer" }, minItems: 2 }, [1, 2], [1], true),
    keyword("maxItems", { type: "array", items: { type: "integer" }, maxItems: 2 }, [1, 2], [1, 2, 3], true),
    keyword("required", { type: "object", properties: { a: { type: "integer" } }, required: ["a"] }, { a: 1 }, {}, true),
    keyword("additionalProperties:false", { type: "object", properties: { a: { type: "integer" } }, additionalProperties: false }, { a: 1 }, { a: 1, b: 2 }, true),
    keyword("anyOf", { anyOf: [{ type: "integer" }, { type: "boolean" }] }, 1, "s", true),
    keyword("oneOf", { oneOf: [{ type: "integer" }, { type: "boolean" }] }, 1, "s", true),
    {
      ...keyword("multipleOf:number", { type: "number", multipleOf: 5 }, 10, 0.5, false),
      accept: ["10.0"],
      why: "xgrammar ignores multipleOf on numbers; tagmask checks it by exact decimal value",
    },
    {
      name: "test_keyword_support: uniqueItems",
      kind: "refused",
      schema: { type: "array", items: { type: "integer" }, uniqueItems: true },
      error: { keyword: "uniqueItems", path: "#/uniqueItems" },
      peerError: "(compiles, not enforced: accepts [1, 1])",
      why: "integers are unboundedly many values, which a grammar cannot compare; refused rather than ignored",
    },
    { ...keyword("not", { not: { type: "string" } }, 1, "s", false), why: "xgrammar ignores not; tagmask takes the complement" },
    {
      name: "test_additional_properties_default_is_strict: strict",
      kind: "agree",
      schema: { type: "object", properties: { a: { type: "integer" } } },
      accept: ['{"a": 1}'],
      reject: ['{"a": 1, "b": 2}'],
    },
    {
      name: "test_additional_properties_default_is_strict: strict_mode=False",
      kind: "agree",
      schema: { type: "object", properties: { a: { type: "integer" } } },
      options: { undeclared: "allow" },
      accept: ['{"a": 1, "b": 2}'],
    },
    {
      name: "test_allof_is_not_enforced",
      kind: "stricter",
      schema: { allOf: [{ type: "integer" }, { type: "string" }] },
      reject: ["1", '"1"'],
      peer: ["1"],
      why: "allOf intersects: nothing is both an integer and a string, so no value matches (xgrammar takes the first branch)",
    },
  ],
};

export const BUILTIN: SuiteFile = {
  file: "test_builtin_grammar_json_schema.py",
  cases: [{ name: "test_json_schema__debug_accept_string (MainModel, indent 2)", kind: "agree", schema: MAIN_MODEL, accept: [dumps(MAIN_INSTANCE, { indent: 2 })] }],
};
