/**
 * Rows from xgrammar's tests/python/test_json_schema_excludes.py,
 * test_json_schema_pattern_search.py, test_regex_converter.py and test_grammar_matcher_regex.py.
 * The excludes rows are structural tags (`json_schema` formats with `excludes`); their style
 * `json` rows also run through `compileJsonSchema(schema, {excludes})`.
 */
import { dumps, type SuiteCase, type SuiteFile } from "./xgrammar-suite.types.js";

const CONTROLS = ["<|open|>", "<|close|>", "<|sep|>"];
const ARG_BEGIN = '<|open|>argument key="value" type="string"<|sep|>';
const ARG_END = "<|close|>argument<|sep|>";
const s = (value: string) => JSON.stringify(value);
const k3 = (value: string, type = "string") => ARG_BEGIN.replace('type="string"', `type="${type}"`) + value + ARG_END;
const k3Leaf = (schema: unknown) => ({ type: "object", properties: { value: schema }, required: ["value"], additionalProperties: false });

/** The same check in style json (a JSON string) and style kimi_k3_xml (the raw value of argument `value`). */
function bothStyles(name: string, schema: unknown, excludes: string[], accept: string[], reject: string[], more: Partial<SuiteCase> = {}): SuiteCase[] {
  return [
    { name: `${name} (json)`, kind: "agree", schema, options: { excludes }, accept: accept.map(s), reject: reject.map(s), ...more },
    {
      name: `${name} (kimi_k3_xml)`,
      kind: "agree",
      format: { type: "json_schema", json_schema: k3Leaf(schema), style: "kimi_k3_xml", excludes },
      accept: accept.map((v) => k3(v)),
      reject: reject.map((v) => k3(v)),
      ...more,
      ...(more.peer ? { peer: more.peer.map((v) => k3(JSON.parse(v) as string)) } : {}),
    },
  ];
}

const nestedSchema = {
  type: "object",
  properties: { value: { $ref: "#/$defs/payload" } },
  required: ["value"],
  additionalProperties: false,
  $defs: { payload: { type: "array", items: { $ref: "#/$defs/node" } }, node: { type: "object", properties: { next: { $ref: "#/$defs/node" } }, additionalProperties: true } },
};
const fortyKeys = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`customer_${String(i).padStart(3, "0")}_preferred_contact_channel`, { type: "integer" }]));
const firstKey = "customer_000_preferred_contact_channel";
const codePoints = [0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10ffff].map((c) => String.fromCodePoint(c));

export const EXCLUDES: SuiteFile = {
  file: "test_json_schema_excludes.py",
  cases: [
    ...[{ type: "string" }, { type: "string", pattern: "^[\\s\\S]*$" }, { type: "string", minLength: 1, maxLength: 16 }, { enum: ["safe", "你好🦋", ...CONTROLS.map((c) => `x${c}y`)] }].flatMap((schema) =>
      bothStyles(`test_string_excludes ${JSON.stringify(schema)}`, schema, CONTROLS, ["safe", "你好🦋"], CONTROLS.map((c) => `x${c}y`)),
    ),
    ...bothStyles("test_excludes_preserve_string_constraints ^a[abc]*z$", { type: "string", pattern: "^a[abc]*z$" }, ["bc", "cb"], ["aabz"], ["acbz", "aab"], {
      why: "the version of 2026-10 (test_pattern_and_format_strings_are_not_filtered) left patterned strings unfiltered and accepted acbz",
    }),
    ...bothStyles("test_excludes_preserve_string_constraints ^你好[abc]*$", { type: "string", pattern: "^你好[abc]*$" }, ["bc", "cb"], ["你好aa"], ["你好bc", "hello"]),
    ...bothStyles("test_excludes_preserve_string_constraints email", { type: "string", format: "email" }, ["bc", "cb"], ["aa@example.com"], ["bc@example.com", "aa"]),
    ...[{ type: "string", minLength: 2 }, { type: "string", maxLength: 3 }, { type: "string", minLength: 2, maxLength: 3 }].flatMap((schema) => {
      const fits = (v: string) => v.length >= (schema.minLength ?? 0) && v.length <= (schema.maxLength ?? Infinity);
      const tried = ["a", "abde", "ax".repeat(10)];
      return [
        ...bothStyles(`test_excludes_drop_length_constraints ${JSON.stringify(schema)}`, schema, ["bc", "cb"], tried.filter(fits), [...tried.filter((v) => !fits(v)), "bc", "acbz", "a".repeat(20) + "bc"], {
          kind: tried.some((v) => !fits(v)) ? "stricter" : "agree",
          peer: tried.filter((v) => !fits(v)).map(s),
          why: "xgrammar drops minLength and maxLength when excludes are given (it warns); tagmask keeps them, counted by the matcher",
        }),
        ...bothStyles(`test_excludes_drop_length_constraints ${JSON.stringify(schema)}, no excludes`, schema, [], tried.filter(fits), tried.filter((v) => !fits(v))),
      ];
    }),
    ...[false, true].map((anyOrder): SuiteCase => ({
      name: `test_nested_excludes (json, any_order ${anyOrder})`,
      kind: "agree",
      format: { type: "json_schema", json_schema: nestedSchema, excludes: CONTROLS, any_order: anyOrder },
      accept: [dumps({ value: [{ next: { text: "你好", n: 42 } }] })],
      reject: [dumps({ value: [{ next: { text: "a<|open|>b" } }] }), dumps({ value: [{ next: { "a<|close|>b": "text" } }] })],
    })),
    {
      name: "test_nested_excludes (kimi_k3_xml)",
      kind: "agree",
      format: { type: "json_schema", json_schema: nestedSchema, style: "kimi_k3_xml", excludes: CONTROLS },
      accept: [k3(dumps([{ next: { text: "你好", n: 42 } }]), "array")],
      reject: [k3(dumps([{ next: { text: "a<|open|>b" } }]), "array"), k3(dumps([{ next: { "a<|close|>b": "text" } }]), "array")],
    },
    ...[
      true,
      { type: "object", additionalProperties: true },
      { type: "object", properties: { "": { type: "integer" } }, additionalProperties: true },
      { type: "object", patternProperties: { "^[a-z]*$": { type: "integer" } }, additionalProperties: false },
      { type: "object", properties: { fixed: { type: "integer" } }, patternProperties: { "^[a-z]*$": { type: "integer" } }, additionalProperties: false },
      { type: "object", propertyNames: { pattern: "^[a-z]*$" }, additionalProperties: { type: "integer" } },
    ].map((schema): SuiteCase => ({
      name: `test_property_name_excludes ${JSON.stringify(schema)}`,
      kind: "agree",
      schema,
      options: { excludes: ["bad"] },
      accept: ['{"good":1}'],
      reject: ['{"bad":1}', '{"xbady":1}'],
    })),
    ...[{ text: "BAD" }, { BAD: "text" }, ["BAD"]].map((literal): SuiteCase => ({
      name: `test_nested_literal_excludes ${JSON.stringify(literal)}`,
      kind: "agree",
      schema: { enum: [literal, 42] },
      options: { excludes: ["BAD"] },
      accept: ["42"],
      reject: [dumps(literal)],
    })),
    {
      name: "test_excludes_match_emitted_string_content_only",
      kind: "agree",
      schema: true,
      options: { excludes: ["ab", ":", "12", "true"] },
      accept: ['{"a":12}', "true", '["a","b"]', '"\\u0061b"'],
      reject: ['"ab"', '":"', '"12"', '"true"'],
    },
    ...bothStyles("test_unicode_and_overlapping_excludes", { type: "string" }, ["aba", "bab", "你好", "aba"], ["ab", "你x好", "🦋"], ["aaba", "bbab", "x你好y"]),
    {
      name: "test_excludes_unicode_boundaries_and_grammar_roundtrip",
      kind: "agree",
      schema: { type: "string", pattern: "^[\\s\\S]*$" },
      options: { excludes: ["坏", ...CONTROLS] },
      accept: [...codePoints, "候", "好候"].map(s),
      reject: ["坏", "x<|open|>y"].map(s),
    },
    ...([
      ["qwen_xml", "<parameter=value>", "</parameter>"],
      ["minimax_xml", '<parameter name="value">', "</parameter>"],
      ["glm_xml", "<arg_key>value</arg_key><arg_value>", "</arg_value>"],
      ["deepseek_xml", '<｜DSML｜parameter name="value" string="true">', "</｜DSML｜parameter>"],
    ] as const).map(([style, begin, end]): SuiteCase => ({
      name: `test_excludes_other_xml_styles ${style}`,
      kind: "agree",
      format: { type: "json_schema", json_schema: k3Leaf({ type: "string" }), style, excludes: ["BAD"] },
      accept: [begin + "你好" + end],
      reject: [begin + "BAD" + end],
    })),
    ...(["bad", [1], [""], ["ok", ""]] as unknown[]).map((excludes): SuiteCase => ({
      name: `test_invalid_excludes ${JSON.stringify(excludes)}`,
      kind: "agree",
      format: { type: "structural_tag", format: { type: "json_schema", json_schema: { type: "string" }, excludes } },
      error: { message: /format\.excludes/ },
      peerError: "excludes must be an array of non-empty strings",
    })),
    {
      name: "test_invalid_excludes null",
      kind: "compiles",
      format: { type: "structural_tag", format: { type: "json_schema", json_schema: { type: "string" }, excludes: null } },
      accept: ['"bad"'],
      peerError: "excludes must be an array of non-empty strings",
      why: "a null optional field is read as absent, as xgrammar's Python models write absent fields (docs/compatibility.md, the wire form)",
    },
    ...[" safe", "safe ", "\n"].map((excluded): SuiteCase => ({
      name: `test_xml_excludes_reject_padding_boundaries ${JSON.stringify(excluded)} (kimi_k3_xml)`,
      kind: "compiles",
      format: { type: "json_schema", json_schema: k3Leaf({ const: "safe" }), style: "kimi_k3_xml", excludes: [excluded] },
      accept: [k3("safe")],
      peerError: "must not start or end with formatting whitespace",
      why: "the value's text is filtered as written (docs/compatibility.md, json_schema argument styles)",
    })),
    ...[" safe", "safe ", "\n"].map((excluded): SuiteCase => ({
      name: `test_xml_excludes_reject_padding_boundaries ${JSON.stringify(excluded)} (json)`,
      kind: "agree",
      schema: { type: "string" },
      options: { excludes: [excluded] },
      accept: ['"safe"'],
    })),
    {
      name: "test_xml_excludes_allow_internal_whitespace",
      kind: "agree",
      format: { type: "json_schema", json_schema: k3Leaf({ type: "string" }), style: "kimi_k3_xml", excludes: ["a b"] },
      accept: [k3("safe")],
      reject: [k3("a b")],
    },
    ...([[[], true], [["bad"], false], [["other"], true]] as Array<[string[], boolean]>).map(([excludes, allowed]): SuiteCase => ({
      name: `test_excludes_default_and_cache_isolation ${JSON.stringify(excludes)}`,
      kind: "agree",
      format: { type: "json_schema", json_schema: { type: "string" }, excludes },
      ...(allowed ? { accept: ['"bad"'] } : { reject: ['"bad"'] }),
    })),
    {
      name: "test_excludes_default_and_cache_isolation: a sequence",
      kind: "agree",
      format: { type: "sequence", elements: [{ type: "json_schema", json_schema: { type: "string" }, excludes: ["bad"] }, { type: "json_schema", json_schema: { type: "string" } }] },
      accept: ['"safe""bad"'],
      reject: ['"bad""safe"'],
    },
    ...([
      ["uri", "http://example.com/a", "abc://@@"],
      ["json-pointer", "/a", "a"],
      ["relative-json-pointer", "0/a", "a"],
    ] as const).flatMap(([format, good, bad]) => [
      ...bothStyles(`test_excludes_preserve_builtin_format_language ${format}`, { type: "string", format }, [], [good], [bad]),
      ...bothStyles(`test_excludes_preserve_builtin_format_language ${format}, controls`, { type: "string", format }, CONTROLS, [good], [bad]),
    ]),
    {
      name: "test_excludes_preserve_builtin_format_language hostname",
      kind: "refused",
      schema: { type: "string", format: "hostname" },
      options: { excludes: CONTROLS },
      error: { keyword: "format", path: "#/format" },
      why: "hostname is refused (IDNA A-labels)",
    },
    ...bothStyles("test_excludes_preserve_unicode_pattern_and_json_escaping", { type: "string", pattern: "^你.*好$" }, CONTROLS, ['你"好', "你好"], ["你"]),
    ...bothStyles("test_excluded_pattern_branches ^(BAD|safe)$", { type: "string", pattern: "^(BAD|safe)$" }, ["BAD"], ["safe"], ["BAD", "BA你", "BA🦋"]),
    ...bothStyles("test_excluded_pattern_branches ^你.*好$", { type: "string", pattern: "^你.*好$" }, ["你"], [], ["", "你好", "你🦋好", "safe", "🦋"]),
    ...[{ const: "BAD" }, { enum: ["BAD"] }, { type: "string", pattern: "^BAD$" }].flatMap((blocked): SuiteCase[] => [
      { name: `test_excluded_branch_mask_rejects_unicode_and_stop_token ${JSON.stringify(blocked)}`, kind: "agree", schema: blocked, options: { excludes: ["BAD"] }, reject: ["你", "🦋", '"你"', '"BAD"', '"safe"'] },
      {
        name: `test_excluded_branch_mask_rejects_unicode_and_stop_token ${JSON.stringify(blocked)} or "safe"`,
        kind: "agree",
        schema: { anyOf: [blocked, { const: "safe" }] },
        options: { excludes: ["BAD"] },
        accept: ['"safe"'],
        reject: ["你", "🦋", '"你"', '"BAD"'],
      },
    ]),
    ...[{ const: "BAD" }, { enum: ["BAD"] }].flatMap((blocked) =>
      bothStyles(`test_excluded_literal_branch_preserves_valid_alternative ${JSON.stringify(blocked)}`, { anyOf: [blocked, { const: "safe" }] }, ["BAD"], ["safe"], ["BAD", "你", "🦋"]),
    ),
    ...[false, true].map((required): SuiteCase => ({
      name: `test_excluded_fixed_key (required ${required})`,
      kind: "agree",
      schema: { type: "object", properties: { bad: { type: "integer" } }, required: required ? ["bad"] : [], additionalProperties: false },
      options: { excludes: ["bad"] },
      ...(required ? {} : { accept: ["{}"] }),
      reject: [...(required ? ["{}"] : []), '{"bad":1}', '{"你":1}', "{你:1}"],
    })),
    {
      name: "test_excluded_optional_const_property_can_be_omitted",
      kind: "agree",
      schema: { type: "object", properties: { optional: { const: "BAD" }, required: { const: "safe" } }, required: ["required"], additionalProperties: false },
      options: { excludes: ["BAD"] },
      accept: ['{"required":"safe"}'],
      reject: ['{"optional":"BAD","required":"safe"}', '{"optional":你,"required":"safe"}'],
    },
    {
      name: "test_excludes_large_open_object (json)",
      kind: "agree",
      schema: { type: "object", properties: fortyKeys, additionalProperties: true },
      options: { excludes: CONTROLS },
      accept: [dumps({ [firstKey]: 1, 备注: "safe" })],
      reject: [dumps({ [firstKey]: "wrong type" }), ...CONTROLS.flatMap((c) => [dumps({ extra: c }), dumps({ [`extra${c}`]: 1 })])],
    },
    {
      name: "test_excludes_large_open_object (kimi_k3_xml)",
      kind: "agree",
      format: { type: "json_schema", json_schema: k3Leaf({ type: "object", properties: fortyKeys, additionalProperties: true }), style: "kimi_k3_xml", excludes: CONTROLS },
      accept: [k3(dumps({ [firstKey]: 1, 备注: "safe" }), "object")],
      reject: [k3(dumps({ [firstKey]: "wrong type" }), "object"), ...CONTROLS.flatMap((c) => [k3(dumps({ extra: c }), "object"), k3(dumps({ [`extra${c}`]: 1 }), "object")])],
    },
    ...bothStyles("test_unrecognized_format_keeps_exclusions", { type: "string", format: "password" }, ["BAD"], ["safe"], ["xBADy"]),
    ...bothStyles("test_unrecognized_format_keeps_exclusions, no excludes", { type: "string", format: "password" }, [], ["xBADy"], []),
    ...(["const", "enum"] as const).flatMap((keyword) =>
      ([["value", 'a"b', ["\\", "BAD"]], ['quo"ted', "safe", ['"', "BAD"]]] as const).map(([key, value, excludes]): SuiteCase => ({
        name: `test_k3_root_literal_excludes_use_emitted_text ${keyword} ${JSON.stringify({ [key]: value })}`,
        kind: "agree",
        format: { type: "json_schema", json_schema: { [keyword]: keyword === "const" ? { [key]: value } : [{ [key]: value }, { [key]: "BAD" }] }, style: "kimi_k3_xml", excludes: [...excludes] },
        accept: [`<|open|>argument key="${key.replace('"', "&quot;")}" type="string"<|sep|>${value}${ARG_END}`],
        reject: [`<|open|>argument key="${key.replace('"', "&quot;")}" type="string"<|sep|>BAD${ARG_END}`, dumps({ [key]: value })],
      })),
    ),
    ...(["cohere_xml", "minimax_m3_xml"] as const).map((style): SuiteCase => ({
      name: `test_unsupported_style_excludes_are_not_silently_ignored ${style}`,
      kind: "compiles",
      format: { type: "json_schema", json_schema: { type: "object", properties: { value: { type: "string" } }, additionalProperties: false }, style, excludes: CONTROLS },
      peerError: `excludes is not supported for ${style}`,
      why: "tagmask filters these styles' raw values and names (docs/compatibility.md, json_schema argument styles)",
    })),
  ],
};

const search = (pattern: string, value: string, expected: boolean, more: Partial<SuiteCase> = {}): SuiteCase => ({
  name: `test_pattern ${pattern} ${value}`,
  kind: "agree",
  schema: { type: "string", pattern },
  ...(expected ? { accept: [value] } : { reject: [value] }),
  ...more,
});
/** xgrammar accepts `value`, a non-canonical spelling of a valid string; tagmask does not. */
const spelled = (pattern: string | object, value: string): SuiteCase => ({
  name: `test_pattern ${typeof pattern === "string" ? pattern : JSON.stringify(pattern)} ${value}`,
  kind: "canonical",
  schema: typeof pattern === "string" ? { type: "string", pattern } : pattern,
  reject: [value],
  peer: [value],
  why: "a constrained string takes the spelling JSON.stringify writes; the escape decodes to a valid string",
});
const lengthPattern = (pattern: string, minLength?: number, maxLength?: number) => ({ type: "string", pattern, ...(minLength === undefined ? {} : { minLength }), ...(maxLength === undefined ? {} : { maxLength }) });
const largePattern = `^[A-Za-z0-9 _\\-${Array.from({ length: (0x800 - 0x100) / 2 }, (_, i) => `\\u${(0x100 + 2 * i).toString(16).toUpperCase().padStart(4, "0")}`).join("")}]{1,200}$`;

export const PATTERN_SEARCH: SuiteFile = {
  file: "test_json_schema_pattern_search.py",
  cases: [
    ...([
      ["abc", '"xabcx"', true], ["abc", '"ab"', false], ["^abc", '"abcx"', true], ["^abc", '"xabc"', false], ["abc$", '"xabc"', true], ["abc$", '"abcx"', false],
      ["^abc$", '"abc"', true], ["^abc$", '"xabc"', false], ["^a$|^b$", '"a"', true], ["^a$|^b$", '"b"', true], ["^a$|^b$", '"ab"', false],
      ["(^a$)|(^b$)", '"b"', true], ["(^a$)|(^b$)", '"xb"', false], ["^a|b$", '"ax"', true], ["^a|b$", '"xb"', true], ["^a|b$", '"xa"', false],
      ["\\^a\\$", '"x^a$y"', true], ["[\\^\\$]+", '"x^$y"', true],
    ] as Array<[string, string, boolean]>).map(([p, v, e]) => search(p, v, e)),
    search('^a"b$', '"a\\"b"', true),
    search("^a\\\\b$", '"a\\\\b"', true),
    spelled("^ab$", '"a\\u0062"'),
    spelled("^你好$", '"\\u4F60\\u597D"'),
    search("^\\u{1F600}$", '"😀"', true),
    spelled("^\\u{1F600}$", '"\\uD83D\\uDE00"'),
    spelled("^\\u{1F600}$", '"\\ud83d\\ude00"'),
    search("^\\u{1F600}$", '"\\uD83D"', false),
    search("^\\u{1F600}$", '"\\uDE00"', false),
    search("^.$", '"\\q"', false),
    ...([
      [lengthPattern("foo", undefined, 2), '"foo"', false], [lengthPattern("foo", undefined, 3), '"foo"', true], [lengthPattern("foo", undefined, 3), '"xfoo"', false],
      [lengthPattern("foo", 4), '"foo"', false], [lengthPattern("foo", 4), '"xfoo"', true], [lengthPattern("foo", 4), '"foox"', true],
      [lengthPattern("^[^x]{0,3}$", 2, 5), '"a"', false], [lengthPattern("^[^x]{0,3}$", 2, 5), '"ab"', true], [lengthPattern("^[^x]{0,3}$", 2, 5), '"abcd"', false],
      [lengthPattern("b", 2, 2), '"b"', false], [lengthPattern("b", 2, 2), '"ab"', true], [lengthPattern("b", 2, 2), '"\\u0062"', false],
      [lengthPattern("^[A]*$", 2, 3), '"A"', false], [lengthPattern("^[A]*$", 2, 3), '"AA"', true], [lengthPattern("^[A]*$", 2, 3), '"AAA"', true], [lengthPattern("^[A]*$", 2, 3), '"AAAA"', false],
      [lengthPattern(".", 1, 1), '"😀"', true],
    ] as Array<[object, string, boolean]>).map(([schema, v, e]): SuiteCase => ({ name: `test_pattern_intersects_min_and_max_length ${JSON.stringify(schema)} ${v}`, kind: "agree", schema, ...(e ? { accept: [v] } : { reject: [v] }) })),
    spelled(lengthPattern("b", 2, 2), '"a\\u0062"'),
    spelled(lengthPattern(".", 1, 1), '"\\uD83D\\uDE00"'),
    {
      name: "test_pattern_length_metadata_survives_structural_tag_embedding",
      kind: "agree",
      format: { type: "structural_tag", format: { type: "json_schema", json_schema: lengthPattern("b", 2, 2) } },
      accept: ['"ab"'],
      reject: ['"b"', '"abb"'],
    },
    {
      name: "test_pattern_properties_use_search_semantics_and_json_escapes",
      kind: "canonical",
      schema: { type: "object", patternProperties: { x_: { type: "integer" } }, additionalProperties: false },
      accept: ['{"prefix_x_suffix": 1}'],
      reject: ['{"prefix_\\u0078_suffix": 1}', '{"prefix_x_suffix": "bad"}', '{"before_y_after": 1}'],
      peer: ['{"prefix_\\u0078_suffix": 1}'],
      why: "a key under patternProperties is a constrained string: canonical spelling only",
    },
    search("^[A-F\\d]{2,3}$", '"\\u0041F09"', false),
    search("^[A-F\\d]{2,3}$", '"A\\u0061"', false),
    spelled("^[A-F\\d]{2,3}$", '"A\\u0039"'),
    spelled("^[A-F\\d]{2,3}$", '"\\u0041F0"'),
    search('^["\\\\/\\n]{4}$', '"\\"\\\\/\\n"', true),
    spelled('^["\\\\/\\n]{4}$', '"\\"\\\\\\/\\n"'),
    spelled('^["\\\\/\\n]{4}$', '"\\u0022\\u005c\\u002f\\u000a"'),
    search('^["\\\\/\\n]{4}$', '"\\"\\\\\\/x"', false),
    search("^[A]{0}$", '""', true),
    search("^[A]{0}$", '"A"', false),
    {
      name: "test_large_unicode_pattern_language",
      kind: "agree",
      schema: { type: "string", pattern: largePattern },
      accept: ['"my-segment"', '"a b"', '"Ā"'],
      reject: ['"->"', '"é"', '"a{"', '""'],
    },
  ],
};

const regexRow = (regex: string, accept: string[], reject: string[] = [], more: Partial<SuiteCase> = {}): SuiteCase => ({ name: `regex ${JSON.stringify(regex)}`, kind: "agree", regex, accept, reject, ...more });
const refusedRegex = (regex: string, message: RegExp, peerError: string, kind: SuiteCase["kind"] = "agree"): SuiteCase => ({ name: `regex ${JSON.stringify(regex)} (refused)`, kind, regex, error: { message }, peerError });

const DATE_TIME = "^\\d\\d\\d\\d-(0[1-9]|1[0-2])-([0-2]\\d|3[01])T([01]\\d|2[0123]):[0-5]\\d:[0-5]\\d(\\.\\d+)?(Z|[+-]([01]\\d|2[0123]):[0-5]\\d)$";
const TIME = "^([01]\\d|2[0123]):[0-5]\\d:[0-5]\\d(\\.\\d+)?(Z|[+-]([01]\\d|2[0123]):[0-5]\\d)$";
const EMAIL = `^([\\w!#$%&'*+/=?^_\`{|}~-]+(\\.[\\w!#$%&'*+/=?^_\`{|}~-]+)*|"([\\w!#$%&'*+/=?^_\`{|}~\\-(),:;<>@[\\].]|\\\\")+")@(([a-z0-9]([a-z0-9-]*[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?)$`;
const IPV4 = "((25[0-5]|2[0-4]\\d|[01]?\\d\\d?).)((25[0-5]|2[0-4]\\d|[01]?\\d\\d?).)((25[0-5]|2[0-4]\\d|[01]?\\d\\d?).)(25[0-5]|2[0-4]\\d|[01]?\\d\\d?)";

export const REGEX_CONVERTER: SuiteFile = {
  file: "test_regex_converter.py",
  cases: [
    regexRow("123", ["123"], ["1234"]),
    regexRow("ww我😁", ["ww我😁"]),
    regexRow("\\^\\$\\.\\*\\+\\?\\\\\\(\\)\\[\\]\\{\\}\\|\\/", ["^$.*+?\\()[]{}|/"]),
    regexRow("\\\"\\'\\a\\f\\n\\r\\t\\v\\0\\e", ["\"'\u0007\f\n\r\t\v\0\u001b"]),
    regexRow("\\u{20BB7}\\u0300\\x1F\\cJ", ["\u{20BB7}\u0300\u001f\n"]),
    regexRow("[\\r\\n\\$\\u0010-\\u006F\\]\\--]+", ["\r\n$\u0020-", "]o"], ["p"]),
    regexRow("\\w\\w\\W\\d\\D\\s\\S", ["A_ 1b 0"]),
    regexRow("\\S", ["[", "a"], [" "]),
    regexRow("[-a-zA-Z+--]+", ["a-+"]),
    regexRow("^abc$", ["abc"]),
    regexRow("abc|de(f|g)", ["deg", "abc"], ["de"]),
    regexRow(" abc | df | g ", [" df "]),
    regexRow("(a|b)?[a-z]+(abc)*", ["adddabcabc", "z"]),
    regexRow("(a|b)(c|d)", ["ac"]),
    regexRow(".+a.+", ["bbbabb"]),
    regexRow(IPV4, ["123.45.67.89"]),
    regexRow(DATE_TIME, ["2024-05-19T14:23:45Z", "2019-11-30T08:15:27+05:30", "2030-02-01T22:59:59-07:00", "2021-07-04T00:00:00.123456Z", "2022-12-31T23:45:12-03:00"], [
      "2024-13-15T14:30:00Z", "2023-02-2010:59:59Z", "2021-11-05T24:00:00+05:30", "2022-08-20T12:61:10-03:00",
    ]),
    regexRow("^\\d\\d\\d\\d-(0[1-9]|1[0-2])-([0-2]\\d|3[01])$", ["0024-05-19", "2019-11-30", "2022-12-31"], ["2024-13-15", "2024-12-32"]),
    regexRow(TIME, ["14:23:45Z", "08:15:27+05:30", "22:59:59-07:00", "00:00:00.123456Z"], ["10:59:59ZA", "24:00:00+05:30", "12:15:10-03:60"]),
    regexRow(EMAIL, [
      "simple@example.com", "very.common@example.com", "user_name+123@example.co.uk", '"john.doe"@example.org', "mail-host@online-shop.biz",
      "customer/department=shipping@example.com", "$A12345@example.non-profit.org", '"!def!xyz%abc"@example.com', "support@192.168.1.1",
      "customer/department=shipping@test.example.test-example.com",
    ], ["plainaddress", "@missingusername.com", "user@.com.my", "user@com", "user@-example.com"]),
    refusedRegex("a{1,3}?{1,3}", /./, "Two consecutive repetition modifiers are not allowed."),
    refusedRegex("a???", /./, "Two consecutive repetition modifiers are not allowed."),
    refusedRegex("a++", /./, "Two consecutive repetition modifiers are not allowed."),
    refusedRegex("a+?{1,3}", /./, "Two consecutive repetition modifiers are not allowed."),
    {
      name: 'regex "[]"',
      kind: "compiles",
      regex: "[]",
      reject: ["", "[]"],
      peerError: "Empty character class is not allowed in regex.",
      why: "in ECMAScript an empty class is valid and matches no character",
    },
    regexRow("(?:abc)", ["abc"]),
    regexRow("(?<name>abc)", ["abc"]),
    refusedRegex("(?=abc)", /look/i, "(lookahead unsupported)"),
    refusedRegex("(?!abc)", /look/i, "(lookahead unsupported)"),
    refusedRegex("(?<=abc)", /look/i, "(lookbehind unsupported)"),
    refusedRegex("(?<!abc)", /look/i, "(lookbehind unsupported)"),
    refusedRegex("(?i)abc", /./, "(flags unsupported)"),
    refusedRegex("abc)", /./, "Unmatched ')'"),
    refusedRegex("abc((a)", /./, "The parenthesis is not closed."),
    regexRow("()", [""], ["a"]),
    regexRow("a()b", ["ab"]),
    regexRow("(a|)", ["a", ""], ["b"]),
    regexRow("ab(c|)", ["abc", "ab"], ["abd"]),
    regexRow("a|", ["a", ""]),
    regexRow("a||b", ["a", "", "b"]),
    regexRow("(|a)", ["", "a"]),
    regexRow("(a|$)", ["a", ""]),
    regexRow("^$|^https://x\\.com/", ["", "https://x.com/"]),
    regexRow("a{1,3}?", ["a", "aa", "aaa"], ["aaaa"]),
    regexRow("a+?", ["a", "aa", "aaa"], [""]),
    regexRow("a*?", ["a", "aa", "aaa", ""]),
    regexRow("a??", ["a", ""], ["aa"]),
    ...["", "^$", "(())", "()", "^", "$", "()|()"].map((r) => regexRow(r, [""], ["a"])),
    ...([["\0", "\0"], ["\0abc", "\0abc"], ["a\0b", "a\0b"], ["[0-9]+\0", "12\0"]] as const).map(([regex, text]): SuiteCase => ({
      name: `regex ${JSON.stringify(regex)}`,
      kind: "compiles",
      regex,
      accept: [text],
      reject: [text.replace("\0", "")],
      peerError: "The regex must not contain null characters.",
      why: "U+0000 is a character like any other here (the pattern is a JavaScript string, not a C string)",
    })),
    regexRow("(a{2,}){1,2}", ["aa", "aaa", "aaaa", "aaaaaa"], ["", "a"]),
    regexRow("(a{2,}){2}", ["aaaa", "aaaaa"], ["", "a", "aa", "aaa"]),
    regexRow("(a{1,}){1,2}", ["a", "aa", "aaa"], [""]),
    regexRow("(a{2,}){1,2}b", ["aab", "aaab"], ["b", "ab"]),
  ],
};

export const MATCHER_REGEX: SuiteFile = {
  file: "test_grammar_matcher_regex.py",
  cases: [
    regexRow("abc", ["abc"], ["ab", "abcd", "def"]),
    regexRow("(a|[bc]{4,}){2,3}", ["aaa", "abcbc", "bcbcbcbcbc", "bcbcbcbcbcbcbcb"], ["d", "aaaa"]),
    regexRow("[abc]+", ["aabbcc"], ["abcd"]),
    regexRow("[a-z0-9]+", ["abc123"], ["ABC"]),
    regexRow("[^abc]+", ["def"], ["aaa"]),
    regexRow("[abc]+?abc", ["aabc"]),
    regexRow("a*b+c?", ["b", "aaabbc"], ["c"]),
    regexRow("(abc|def)+", ["abcdef", "abcabc"], ["ab"]),
    regexRow("a{2,4}", ["aa", "aaaa"], ["a", "aaaaa"]),
    regexRow("\\d+", ["123"], ["abc"]),
    regexRow("\\w+", ["abc123"], ["!@#"]),
    regexRow("[A-Z][a-z]*", ["Hello"], ["hello"]),
    regexRow("[0-9]{3}-[0-9]{3}-[0-9]{4}", ["123-456-7890"], ["12-34-567"]),
    regexRow("[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,4}", ["test@email.com"], ["invalid.email"]),
    regexRow("[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}", ["test@email.com"]),
    refusedRegex("a{,3}", /quantifier/, "(invalid range)"),
    refusedRegex("a{3,2}", /./, "(invalid range)"),
    refusedRegex("a++", /nothing to repeat/, "(invalid repetition)"),
    ...([["a??", ["a", ""], ["aa"]], ["(?:a)", ["a"], [""]]] as const).map(([regex, accept, reject]): SuiteCase => ({
      name: `regex ${JSON.stringify(regex)}`,
      kind: "compiles",
      regex,
      accept: [...accept],
      reject: [...reject],
      peerError: "(refused in this file; test_regex_converter.py, newer, compiles it)",
      why: "a lazy quantifier and a non-capturing group are ECMAScript syntax",
    })),
    refusedRegex("[z-a]", /./, "(invalid range)"),
    refusedRegex("(?=a)", /look/i, "(lookahead unsupported)"),
    refusedRegex("(?!a)", /look/i, "(lookahead unsupported)"),
  ],
};
