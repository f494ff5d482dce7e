/**
 * Cases of xgrammar's tests/python/test_function_calling_converter.py: its Qwen XML tool-calling
 * converter (`_qwen_xml_tool_calling_to_ebnf`), which is the `json_schema` format with style
 * `qwen_xml` today. The stored version of the test predates xgrammar's current raw-value rule;
 * where it and xgrammar's current test_structural_tag_converter.py disagree, the row follows the
 * current one and says so.
 */
import { json, obj, type RefusedCase, type TagCase } from "./cases.js";

const qwen = (schema: unknown) => json(schema, { style: "qwen_xml" });
const nameAge = { name: { type: "string" }, age: { type: "integer" } };
const p = (key: string, value: string) => `<parameter=${key}>${value}</parameter>`;
const contact = (phone: string, email: string) => `{"phone": "${phone}", "email": "${email}"}`;

export const FUNCTION_CALLING_CASES: TagCase[] = [
  {
    name: "test_string_schema",
    format: qwen(obj(nameAge)),
    accepted: [
      "<parameter=name>Bob</parameter><parameter=age>\t100\n</parameter>",
      "<parameter=name>Bob</parameter>\t\n<parameter=age>\t100\n</parameter>",
      "<parameter=name>Bob</parameter><parameter=age>100</parameter>",
      "\n\t<parameter=name>Bob</parameter><parameter=age>100</parameter>",
      '<parameter=name>"Bob&lt;"</parameter><parameter=age>100</parameter>',
      // The stored version rejects these two; xgrammar's current raw values may hold markup, and
      // whitespace may end the arguments (test_structural_tag_converter.py's qwen_xml rows).
      "<parameter=name><>Bob</parameter><parameter=age>100</parameter>",
      "<parameter=name>Bob</parameter><parameter=age>100</parameter>\t\t",
    ],
    rejected: [],
  },
  {
    name: "test_additional_properties_schema",
    format: qwen(obj(nameAge, ["name", "age"], { additionalProperties: true })),
    accepted: ["<parameter=name>Bob</parameter><parameter=age>\t100\n</parameter><parameter=location>New York</parameter>"],
    rejected: ["<parameter=name>Bob</parameter><parameter=age>100</parameter><parameter=123invalid>A</parameter>"],
  },
  {
    name: "test_not_required_properties_schema",
    format: qwen({ type: "object", properties: nameAge, additionalProperties: true }),
    accepted: ["<parameter=name>Bob</parameter><parameter=age>\t100\n</parameter>", "<parameter=name>Bob</parameter>", "<parameter=age>100</parameter>", "",
      "<parameter=anything>It's a string.</parameter>"],
    rejected: [],
  },
  {
    name: "test_part_required_properties_schema",
    format: qwen(obj(nameAge, ["name"], { additionalProperties: true })),
    accepted: [
      "<parameter=name>Bob</parameter><parameter=age>\t100\n</parameter>",
      "<parameter=name>Bob</parameter>",
      "<parameter=name>Bob</parameter><parameter=age>\t100\n</parameter><parameter=anything>It's a string.</parameter>",
      "<parameter=name>Bob</parameter><parameter=anything>It's a string.</parameter>",
    ],
    rejected: ["<parameter=age>100</parameter>", "<parameter=anything>It's a string.</parameter>"],
  },
  {
    name: "test_inner_object_schema",
    format: qwen(obj({ address: obj({ street: { type: "string" }, city: { type: "string" } }) })),
    accepted: [p("address", '{"street": "Main St", "city": "New York"}'), p("address", '{"street": "Main St", "city": "No more xml escape&<>"}')],
    rejected: [
      p("address", '{"street": Main St, "city": New York}'),
      p("address", p("street", "Main St") + p("city", "New York")),
      p("address", '{"street": "Main St"}'),
      p("address", '{"city": "New York"}'),
    ],
  },
  {
    name: "test_numbers_schema",
    format: qwen({ type: "object", properties: { ...nameAge, ID: { type: "integer" }, is_student: { type: "boolean" } }, maxProperties: 3, minProperties: 2 }),
    accepted: [p("name", "Bob") + "\n" + p("age", "25"), p("name", "Bob") + p("ID", "123456") + p("is_student", "true")],
    rejected: [p("age", "25"), p("name", "John") + p("age", "1") + p("ID", "1") + p("is_student", "false")],
  },
  {
    name: "test_string_format_length_schema",
    format: qwen(obj({
      name: { type: "string", minLength: 1 },
      contact_info: obj({ phone: { type: "string", pattern: "[0-9]{5}$" }, email: { type: "string", format: "email" } }),
    })),
    accepted: [
      p("name", "ABC") + p("contact_info", '{"phone": "12345",   "email": "test@test.com"}'),
      p("name", "X") + p("contact_info", contact("67890", "a@b.com")),
    ],
    rejected: [
      p("name", "") + p("contact_info", contact("12345", "test@test.com")),
      p("name", "ABC") + p("contact_info", contact("1234", "test@test.com")),
      p("name", "ABC") + p("contact_info", contact("12345", "not-an-email")),
      p("name", "ABC") + p("contact_info", '{"phone": "12345"}'),
      p("name", "ABC") + p("contact_info", '{"email": "test@test.com"}'),
      p("name", "ABC"),
      p("contact_info", contact("12345", "test@test.com")),
    ],
  },
];

export const FUNCTION_CALLING_REFUSED: RefusedCase[] = [
  { name: "test_invalid_function_calling_schema: a string schema", format: qwen({ type: "string" }), error: "the schema must describe an object" },
];
