/**
 * Cases of xgrammar's tests/python/test_structural_tag_converter.py: each structural tag with the
 * outputs its test checks and xgrammar's verdict. Grammar-text comparisons are left out; their
 * tags are here with the outputs they obviously mean.
 */
import { anyText, json, obj, or, regex, seq, str, tag, type RefusedCase, type TagCase } from "./cases.js";

const nameAge = obj({ name: { type: "string" }, age: { type: "integer" } });
const html = '<!DOCTYPE html>\n<html lang="en">\n  <body><h1>Hello</h1></body>\n</html>';

const QWEN_XML_OK = [
  "<parameter=name>Bob</parameter><parameter=age>\t100\n</parameter>",
  "<parameter=name>Bob</parameter><parameter=age>100</parameter>",
  "\n\t<parameter=name>Bob</parameter><parameter=age>100</parameter>",
  '<parameter=name>"Bob&lt;"</parameter><parameter=age>100</parameter>',
  `<parameter=name>${html}</parameter><parameter=age>100</parameter>`,
];

const cohereValue = (schema: unknown) =>
  json({ type: "object", $defs: { Text: { type: "string" } }, properties: { value: schema }, required: ["value"], additionalProperties: false }, { style: "cohere_xml" });
const cohereOneOf = {
  oneOf: [
    { type: "object", properties: { id: { type: "integer" } }, required: ["id"], additionalProperties: false },
    { type: "array", items: { type: "integer" }, minItems: 1, maxItems: 1 },
  ],
};
const cv = (type: string, body: string, name = "value") => `<cofl:value name="${name}" type="${type}">${body}</cofl:value>`;
const kimiArg = (key: string, type: string, body: string) => `<|open|>argument key="${key}" type="${type}"<|sep|>${body}<|close|>argument<|sep|>`;


function m3(name: string, value: string): string {
  return `]<]minimax[>[<${name}>${value}]<]minimax[>[</${name}>`;
}

function kimiAllTypes(): TagCase[] {
  const schema = {
    type: "object",
    properties: {
      text: { type: "string", minLength: 2 },
      integer: { type: "integer", minimum: 1 },
      number: { type: "number" },
      flag: { type: "boolean" },
      empty: { type: "null" },
      labels: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 2 },
      config: obj({
        mode: { enum: ["fast", "safe"] },
        retries: { type: "integer" },
        nested: obj({ enabled: { type: "boolean" } }, ["enabled"], { additionalProperties: false }),
      }, ["mode", "nested"], { additionalProperties: false }),
      note: { type: "string" },
    },
    required: ["text", "integer", "number", "flag", "empty", "labels", "config"],
    additionalProperties: false,
  };
  const labels = '["北京", "SF"]';
  const config = '{"mode": "fast", "retries": 3, "nested": {"enabled": true}}';
  const ok = kimiArg("text", "string", "ok") + kimiArg("integer", "number", "2") + kimiArg("number", "number", "1.5") + kimiArg("flag", "boolean", "true")
    + kimiArg("empty", "null", "null") + kimiArg("labels", "array", labels) + kimiArg("config", "object", config);
  const retype = (key: string, from: string, to: string) => ok.replace(`key="${key}" type="${from}"`, `key="${key}" type="${to}"`);
  return [{
    name: "test_json_schema_style_kimi_k3_xml_all_value_types_and_nested_json",
    format: json(schema, { style: "kimi_k3_xml" }),
    accepted: [ok, ok.replace(config, '{"mode": "fast", "nested": {"enabled": true}}')],
    rejected: [
      retype("text", "string", "number"), retype("integer", "number", "string"), retype("number", "number", "integer"), retype("flag", "boolean", "string"),
      retype("empty", "null", "string"), retype("labels", "array", "object"), retype("config", "object", "array"),
      ok.replace("<|sep|>ok<|close|>", "<|sep|>x<|close|>"),
      ok.replace('key="integer" type="number"<|sep|>2', 'key="integer" type="number"<|sep|>0'),
      ok.replace(labels, '["北京"]'), ok.replace(labels, '["北京", "SF", "NY"]'), ok.replace(labels, '["北京", 1]'),
      ok.replace(config, config.replace('"fast"', '"slow"')),
      ok.replace(config, '{"mode": "fast", "nested": {}}'),
      ok.replace(config, '{"mode": "fast", "nested": {"enabled": true, "extra": 1}}'),
      ok.replace(config, kimiArg("mode", "string", "fast")),
      ok + kimiArg("extra", "string", "x"),
    ],
  }];
}

function kimiRefs(): TagCase[] {
  const entry = obj({ id: { type: "integer" }, label: { type: "string" } }, ["id", "label"], { additionalProperties: false });
  const schema = { $defs: { entry }, ...obj({ entry: { $ref: "#/$defs/entry" }, entries: { type: "array", items: { $ref: "#/$defs/entry" } } }, ["entry", "entries"], { additionalProperties: false }) };
  const e = '{"id": 1, "label": "主"}';
  const es = '[{"id": 2, "label": "备"}]';
  const ok = kimiArg("entry", "object", e) + kimiArg("entries", "array", es);
  return [{
    name: "test_json_schema_style_kimi_k3_xml_nested_refs_and_arrays_of_objects",
    format: json(schema, { style: "kimi_k3_xml" }),
    accepted: [ok],
    rejected: [ok.replace(e, '{"id": 1}'), ok.replace(es, '[{"id": "2", "label": "备"}]')],
  }];
}

function kimiPatternProperties(): TagCase[] {
  const root = {
    ...obj({ name: { type: "string" } }),
    patternProperties: { "^metric_[a-z]+$": { type: "number" }, "^flag_[a-z]+$": { type: "boolean" } },
    additionalProperties: false,
  };
  const ok = kimiArg("name", "string", "worker") + kimiArg("metric_cpu", "number", "0.5") + kimiArg("flag_hot", "boolean", "true");
  const nested = obj({ payload: { type: "object", patternProperties: { "^x_[a-z]+$": { type: "integer" } }, additionalProperties: false } }, ["payload"], { additionalProperties: false });
  return [
    {
      name: "test_json_schema_style_kimi_k3_xml_pattern_properties_pin_each_value_type",
      format: json(root, { style: "kimi_k3_xml" }),
      accepted: [ok],
      rejected: [
        ok.replace('key="metric_cpu" type="number"', 'key="metric_cpu" type="string"'),
        ok.replace('key="flag_hot" type="boolean"', 'key="flag_hot" type="string"'),
        ok.replace("metric_cpu", "other"),
      ],
    },
    {
      name: "test_json_schema_style_kimi_k3_xml_nested_pattern_properties_stay_json",
      format: json(nested, { style: "kimi_k3_xml" }),
      accepted: [kimiArg("payload", "object", '{"x_count": 2}')],
      rejected: [kimiArg("payload", "object", '{"x_count": "2"}'), kimiArg("payload", "object", '{"bad": 2}'), kimiArg("payload", "object", kimiArg("x_count", "number", "2"))],
    },
  ];
}

function kimiAnyOrder(): TagCase[] {
  const schema = obj({
    name: { type: "string" },
    settings: obj({ first: { type: "integer" }, second: { type: "boolean" } }, ["first", "second"], { additionalProperties: false }),
  }, ["name", "settings"], { additionalProperties: false });
  const ordered = kimiArg("name", "string", "n") + kimiArg("settings", "object", '{"first": 1, "second": true}');
  const reordered = kimiArg("settings", "object", '{"second": true, "first": 1}') + kimiArg("name", "string", "n");
  return [
    { name: "test_json_schema_style_kimi_k3_xml_any_order_applies_outer_and_nested_objects: in order", format: json(schema, { style: "kimi_k3_xml", any_order: false }), accepted: [ordered], rejected: [reordered] },
    {
      name: "test_json_schema_style_kimi_k3_xml_any_order_applies_outer_and_nested_objects: any order",
      format: json(schema, { style: "kimi_k3_xml", any_order: true }),
      accepted: [ordered, reordered],
      rejected: [],
    },
  ];
}

function kimiConstEnum(): TagCase[] {
  const schema = obj({ mode: { enum: ["fast", "safe"] }, version: { const: 3 }, target: { type: ["string", "null"] } }, ["mode", "version", "target"], { additionalProperties: false });
  const call = (t: string, v: string) => kimiArg("mode", "string", "fast") + kimiArg("version", "number", "3") + kimiArg("target", t, v);
  const s = call("string", "primary");
  return [{
    name: "test_json_schema_style_kimi_k3_xml_const_enum_and_nullable_values",
    format: json(schema, { style: "kimi_k3_xml" }),
    accepted: [s, call("null", "null")],
    rejected: [s.replace("fast", "slow"), s.replace("<|sep|>3<|close|>", "<|sep|>4<|close|>"), s.replace('key="mode" type="string"', 'key="mode" type="number"'),
      s.replace('key="version" type="number"', 'key="version" type="string"')],
  }];
}

/** xgrammar's two-tag triggered_tags ("A1"/"A2" behind the trigger "A") under its four flag combinations. */
function triggeredTagsA(at_least_one: boolean, stop_after_first: boolean) {
  return {
    type: "triggered_tags",
    triggers: ["A"],
    tags: [tag("A1", str("L1"), "A"), tag("A2", str("L2"), "A")],
    at_least_one,
    stop_after_first,
  };
}

const FLAGS: Array<[boolean, boolean]> = [[false, false], [true, false], [false, true], [true, true]];

/** One case per flag combination, each output accepted or rejected as its verdicts (in FLAGS order) say. */
function flagCases(name: string, make: (least: boolean, first: boolean) => unknown, outputs: Array<[string, boolean[]]>): TagCase[] {
  return FLAGS.map(([least, first], i) => ({
    name: `${name}[at_least_one=${least}, stop_after_first=${first}]`,
    format: make(least, first),
    accepted: outputs.filter(([, v]) => v[i]).map(([s]) => s),
    rejected: outputs.filter(([, v]) => !v[i]).map(([s]) => s),
  }));
}

function tagsWithSeparator(tags: unknown[], separator: string) {
  return (at_least_one: boolean, stop_after_first: boolean) => ({ type: "tags_with_separator", tags, separator, at_least_one, stop_after_first });
}

function triggeredFlags(): TagCase[] {
  const aTags = [tag("A1", str("L1"), "A"), tag("A2", str("L2"), "A")];
  const abTags = [tag("<a>", str("X"), "</a>"), tag("<b>", str("Y"), "</b>")];
  return [
    ...flagCases("test_triggered_tag_format", triggeredTagsA, [
      ["textA1L1AtextA2L2AText", [true, false, false, false]],
    ["textA1L1AtextA2L2A", [true, false, false, false]],
    ["A1L1Atext", [true, true, false, false]],
    ["A1L1AtextA2L2A", [true, true, false, false]],
    ["A1L1A", [true, true, true, true]],
    ["text", [true, false, true, false]],
    ["", [true, false, true, false]],
    ["AA", [false, false, false, false]],
    ["A1L2A", [false, false, false, false]],
    ["A1L1A2L2A", [false, false, false, false]],
    ]),
    ...flagCases("test_triggered_tag_with_outside_tag", (l, f) => tag("begin", triggeredTagsA(l, f), "end"), [
      ["beginabcA1L1Atextend", [true, false, false, false]],
      ["beginA1L1AtextA2L2Aend", [true, true, false, false]],
      ["beginA1L1Aend", [true, true, true, true]],
      ["beginend", [true, false, true, false]],
      ["beginA1L1Aendabc", [false, false, false, false]],
      ["beginA1L2end", [false, false, false, false]],
    ]),
    ...flagCases("test_tags_with_separator_format", tagsWithSeparator(aTags, "AA"), [
      ["", [true, false, true, false]],
      ["A1L1A", [true, true, true, true]],
      ["A1L1AAAA2L2A", [true, true, false, false]],
      ["A1L1AA2L2A", [false, false, false, false]],
    ]),
    ...flagCases("test_tags_with_separator_format_with_outside_tag", (l, f) => tag("begin", tagsWithSeparator(aTags, "AA")(l, f), "end"), [
      ["beginend", [true, false, true, false]],
      ["beginA1L1Aend", [true, true, true, true]],
      ["beginA1L1AAAA2L2Aend", [true, true, false, false]],
      ["beginA1L1A", [false, false, false, false]],
      ["beginA1L1AA2L2Aend", [false, false, false, false]],
    ]),
    ...flagCases("test_tags_with_empty_separator_format", tagsWithSeparator(abTags, ""), [
      ["", [true, false, true, false]],
      ["<a>X</a>", [true, true, true, true]],
      ["<a>X</a><b>Y</b>", [true, true, false, false]],
      ["<b>Y</b><a>X</a><b>Y</b>", [true, true, false, false]],
      ["<a>X</a><a>X</a><a>X</a>", [true, true, false, false]],
      ["<a>X</a>,<b>Y</b>", [false, false, false, false]],
      ["<c>Z</c>", [false, false, false, false]],
    ]),
  ];
}

/** One case per format, each output accepted or rejected as its verdict for that format (by index) says. */
function tableCases(name: string, formats: unknown[], outputs: Array<[string, boolean[]]>): TagCase[] {
  return formats.map((format, i) => ({
    name: `${name}[${i}]`,
    format,
    accepted: outputs.filter(([, v]) => v[i]).map(([s]) => s),
    rejected: outputs.filter(([, v]) => !v[i]).map(([s]) => s),
  }));
}

const T = true;
const F = false;
const numberTag = tag("BEG", json({ type: "number" }), "END");
const ab = seq(str("a"), str("b"));
const AorB = or(str("A"), str("B"));

function quantifierCases(): TagCase[] {
  return [
    ...tableCases("test_optional_format", [str("x"), ab, AorB, numberTag, json({ type: "number" })].map((content) => ({ type: "optional", content })), [
      ["", [T, T, T, T, T]], ["x", [T, F, F, F, F]], ["ab", [F, T, F, F, F]], ["A", [F, F, T, F, F]], ["B", [F, F, T, F, F]],
      ["BEG42END", [F, F, F, T, F]], ["42", [F, F, F, F, T]], ["-3.14", [F, F, F, F, T]], ["xx", [F, F, F, F, F]], ["abab", [F, F, F, F, F]],
      ["AB", [F, F, F, F, F]], ["BEG1ENDBEG2END", [F, F, F, F, F]], ["invalid", [F, F, F, F, F]],
    ]),
    ...tableCases("test_plus_format", [str("x"), ab, AorB, numberTag, { type: "optional", content: str("y") }].map((content) => ({ type: "plus", content })), [
      ["", [F, F, F, F, T]], ["x", [T, F, F, F, F]], ["xx", [T, F, F, F, F]], ["xxx", [T, F, F, F, F]], ["ab", [F, T, F, F, F]], ["abab", [F, T, F, F, F]],
      ["ababab", [F, T, F, F, F]], ["A", [F, F, T, F, F]], ["AB", [F, F, T, F, F]], ["BAB", [F, F, T, F, F]], ["BEG1END", [F, F, F, T, F]],
      ["BEG1ENDBEG2END", [F, F, F, T, F]], ["y", [F, F, F, F, T]], ["yy", [F, F, F, F, T]], ["yyy", [F, F, F, F, T]], ["invalid", [F, F, F, F, F]],
    ]),
    ...tableCases("test_star_format", [str("x"), ab, AorB, numberTag, { type: "optional", content: str("z") }].map((content) => ({ type: "star", content })), [
      ["", [T, T, T, T, T]], ["x", [T, F, F, F, F]], ["xx", [T, F, F, F, F]], ["xxx", [T, F, F, F, F]], ["ab", [F, T, F, F, F]], ["abab", [F, T, F, F, F]],
      ["A", [F, F, T, F, F]], ["BAB", [F, F, T, F, F]], ["BEG1END", [F, F, F, T, F]], ["BEG1ENDBEG2END", [F, F, F, T, F]], ["z", [F, F, F, F, T]],
      ["zz", [F, F, F, F, T]], ["zzz", [F, F, F, F, T]], ["xz", [F, F, F, F, F]], ["invalid", [F, F, F, F, F]],
    ]),
    ...repeatCases(),
  ];
}

function repeatCases(): TagCase[] {
  const rep = (min: number, max: number, content: unknown) => ({ type: "repeat", min, max, content });
  const z = (n: number) => "z".repeat(n);
  const w = (n: number) => "w".repeat(n);
  return tableCases("test_repeat_format", [
    rep(0, -1, str("x")), rep(1, -1, str("x")), rep(2, 3, str("a")), rep(0, 2, str("b")), rep(1, -1, ab), rep(0, 3, AorB),
    rep(0, -1, numberTag), rep(0, 2, { type: "optional", content: str("y") }), rep(0, -1, str("z")), rep(0, 300, str("z")), rep(1, 400, str("w")),
  ], [
    ["", [T, F, F, T, F, T, T, T, T, T, F]],
    ["x", [T, T, F, F, F, F, F, F, F, F, F]], ["xx", [T, T, F, F, F, F, F, F, F, F, F]], ["xxx", [T, T, F, F, F, F, F, F, F, F, F]],
    ["a", [F, F, F, F, F, F, F, F, F, F, F]], ["aa", [F, F, T, F, F, F, F, F, F, F, F]], ["aaa", [F, F, T, F, F, F, F, F, F, F, F]], ["aaaa", [F, F, F, F, F, F, F, F, F, F, F]],
    ["b", [F, F, F, T, F, F, F, F, F, F, F]], ["bb", [F, F, F, T, F, F, F, F, F, F, F]], ["bbb", [F, F, F, F, F, F, F, F, F, F, F]],
    ["ab", [F, F, F, F, T, F, F, F, F, F, F]], ["abab", [F, F, F, F, T, F, F, F, F, F, F]],
    ["A", [F, F, F, F, F, T, F, F, F, F, F]], ["B", [F, F, F, F, F, T, F, F, F, F, F]], ["AB", [F, F, F, F, F, T, F, F, F, F, F]], ["AAB", [F, F, F, F, F, T, F, F, F, F, F]],
    ["AABA", [F, F, F, F, F, F, F, F, F, F, F]], ["AAAB", [F, F, F, F, F, F, F, F, F, F, F]],
    ["BEG1END", [F, F, F, F, F, F, T, F, F, F, F]], ["BEG1ENDBEG2END", [F, F, F, F, F, F, T, F, F, F, F]],
    ["y", [F, F, F, F, F, F, F, T, F, F, F]], ["yy", [F, F, F, F, F, F, F, T, F, F, F]], ["yyy", [F, F, F, F, F, F, F, F, F, F, F]],
    ["z", [F, F, F, F, F, F, F, F, T, T, F]], ["zz", [F, F, F, F, F, F, F, F, T, T, F]], [z(100), [F, F, F, F, F, F, F, F, T, T, F]], [z(350), [F, F, F, F, F, F, F, F, T, F, F]],
    ["w", [F, F, F, F, F, F, F, F, F, F, T]], ["ww", [F, F, F, F, F, F, F, F, F, F, T]], [w(100), [F, F, F, F, F, F, F, F, F, F, T]], [w(450), [F, F, F, F, F, F, F, F, F, F, F]],
    ["invalid", [F, F, F, F, F, F, F, F, F, F, F]],
  ]);
}

const objectTag = (begin: string, end: string) => tag(begin, json({ type: "object" }), end);
const thinkTag = tag("<think>", anyText(), "</think>");
const funcTags = [objectTag("<function=func1>", "</function>"), objectTag("<function=func2>", "</function>")];
const dsCall = (n: number) => objectTag(`<｜tool▁call▁begin｜>function<｜tool▁sep｜>function_name_${n}\n\`\`\`json\n`, "\n```<｜tool▁call▁end｜>");
const dsText = (n: number) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>function_name_${n}\n\`\`\`json\n{"arg": 10}\n\`\`\`<｜tool▁call▁end｜>`;

function compoundCases(): TagCase[] {
  return [
    {
      name: "test_compound_format: Llama JSON tool calls",
      format: { type: "triggered_tags", triggers: ['{"name":'], tags: [objectTag('{"name": "func1", "parameters": ', "}"), objectTag('{"name": "func2", "parameters": ', "}")] },
      accepted: ['<text>{"name": "func2", "parameters": {"arg": 10}}<text>{"name": "func1", "parameters": {"arg": "123"}}<text>'],
      rejected: ['<text>{"name": "func3", "parameters": {"arg": 10}}'],
    },
    {
      name: "test_compound_format: force think",
      format: seq(thinkTag, { type: "triggered_tags", triggers: ["<function="], tags: funcTags }),
      accepted: ['<think>[any_text]</think>[any_text]<function=func2>{"arg": 10}</function>[any_text]<function=func1>{"arg": 10}</function>[any_text]'],
      rejected: ['[any_text]<function=func2>{"arg": 10}</function>[any_text]<function=func1>{"arg": 10}</function>[any_text]', '<think>[any_text]</think>[any_text]<function=func3>{"arg": 10}'],
    },
    {
      name: "test_compound_format: think and force a tool call (Llama)",
      format: seq(thinkTag, { type: "triggered_tags", triggers: ["<function="], tags: funcTags, stop_after_first: true, at_least_one: true }),
      accepted: ['<think>[any_text]</think><function=func2>{"arg": 10}</function>'],
      rejected: ['<think>[any_text]</think>[any_text]<function=func2>{"arg": 10}</function>', '<think>[any_text]</think><function=func2>{"arg": 10}</function>[any_text]'],
    },
    {
      name: "test_compound_format: think and force a tool call (DeepSeek)",
      format: seq(thinkTag, {
        type: "triggered_tags",
        triggers: ["<｜tool▁calls▁begin｜>"],
        tags: [{ begin: "<｜tool▁calls▁begin｜>", end: "<｜tool▁calls▁end｜>", content: { type: "tags_with_separator", separator: "\n", tags: [dsCall(1), dsCall(2)] } }],
        stop_after_first: true,
      }),
      accepted: [
        "<think>[any_text]</think>[any_text]",
        "<think>[any_text]</think>[any_text]<｜tool▁calls▁begin｜><｜tool▁calls▁end｜>",
        `<think>[any_text]</think>[any_text]<｜tool▁calls▁begin｜>${dsText(1)}\n${dsText(2)}<｜tool▁calls▁end｜>`,
      ],
      rejected: [
        `<think>[any_text]</think>[any_text]<｜tool▁calls▁begin｜>${dsText(3)}<｜tool▁calls▁end｜>`,
        `<think>[any_text]</think>[any_text]<｜tool▁calls▁begin｜>${dsText(2)}<｜tool▁calls▁end｜>[any_text]`,
      ],
    },
    {
      name: "test_compound_format: force non-think mode",
      format: seq(str("<think></think>"), {
        type: "triggered_tags",
        triggers: ["<tool_call>"],
        tags: [objectTag('<tool_call>\n{"name": "func1", "arguments": ', "}\n</tool_call>"), objectTag('<tool_call>\n{"name": "func2", "arguments": ', "}\n</tool_call>")],
      }),
      accepted: ['<think></think>[any_text]<tool_call>\n{"name": "func1", "arguments": {"arg": 10}}\n</tool_call>[any_text]'],
      rejected: ['<think>abcd</think>[any_text]<tool_call>\n{"name": "func1", "arguments": {"arg": 10}}\n</tool_call>[any_text]'],
    },
  ];
}

function utf8Cases(): TagCase[] {
  const between = seq(str("开始"), json({ type: "string" }), str("结束"));
  const labelled = tag("标签开始", anyText(), "标签结束");
  return [
    { name: "test_basic_structural_tag_utf8: const_string", format: str("你好"), accepted: ["你好"], rejected: ["hello"] },
    { name: "test_basic_structural_tag_utf8: any_text", format: anyText(), accepted: ["😊"], rejected: [] },
    { name: "test_basic_structural_tag_utf8: sequence", format: between, accepted: ['开始"中间"结束'], rejected: ["开始中间内容"] },
    { name: "test_basic_structural_tag_utf8: tag", format: labelled, accepted: ["标签开始一些内容标签结束"], rejected: ["标签开始一些内容"] },
    { name: "test_basic_structural_tag_utf8: or", format: or(str("选项一"), str("选项二")), accepted: ["选项一"], rejected: ["选项三"] },
    {
      name: "test_basic_structural_tag_utf8: tags_with_separator",
      format: { type: "tags_with_separator", tags: [tag("项开始", anyText(), "项结束")], separator: "分隔符" },
      accepted: ["项开始内容1项结束分隔符项开始内容2项结束"],
      rejected: ["项开始内容1项结束项开始内容2项结束"],
    },
    { name: "test_basic_structural_tag_utf8: json_schema", format: json(obj({ 字段: { type: "string" } }, ["字段"], { additionalProperties: false })), accepted: ['{"字段": "值"}'], rejected: [] },
    {
      name: "test_basic_structural_tag_utf8: qwen_xml_parameter",
      format: { type: "qwen_xml_parameter", json_schema: obj({ 参数: { type: "string" } }, ["参数"], { additionalProperties: false }) },
      accepted: ["<parameter=参数>值</parameter>"],
      rejected: [],
    },
  ];
}

function pythonModelCases(): TagCase[] {
  const name = { type: "object", properties: { name: { type: "string" } } };
  const styled = (style: string) => json(name, { style });
  const b = tag("<b>", anyText(), "</b>");
  const AB = [str("A"), str("B")];
  return [
    { name: "test_from_structural_tag_with_structural_tag_instance: const_string", format: str("hello"), accepted: ["hello"], rejected: ["hello world"] },
    { name: "test_from_structural_tag_with_structural_tag_instance: object", format: json({ type: "object" }), accepted: ['{"key": "value"}'], rejected: [] },
    { name: "test_from_structural_tag_with_structural_tag_instance: string", format: json({ type: "string" }), accepted: ['"abc"'], rejected: [] },
    { name: "test_from_structural_tag_with_structural_tag_instance: integer", format: json({ type: "integer" }), accepted: ["123"], rejected: ["abc"] },
    { name: "test_from_structural_tag_with_structural_tag_instance: qwen_xml", format: styled("qwen_xml"), accepted: ["<parameter=name>value</parameter>"], rejected: ["<parameter=name>value</param>"] },
    { name: "test_from_structural_tag_with_structural_tag_instance: minimax_xml", format: styled("minimax_xml"), accepted: ['<parameter name="name">value</parameter>'], rejected: ['<parameter name="name">value</param>'] },
    {
      name: "test_from_structural_tag_with_structural_tag_instance: deepseek_xml",
      format: styled("deepseek_xml"),
      accepted: ['<｜DSML｜parameter name="name" string="true">value</｜DSML｜parameter>'],
      rejected: ['<｜DSML｜parameter name="name" string="true">value</param>'],
    },
    { name: "test_from_structural_tag_with_structural_tag_instance: glm_xml", format: styled("glm_xml"), accepted: ["<arg_key>name</arg_key><arg_value>value</arg_value>"], rejected: ["<arg_key>name</arg_key><arg_value>value</arg_key>"] },
    {
      name: "test_from_structural_tag_with_structural_tag_instance: cohere_xml",
      format: styled("cohere_xml"),
      accepted: ['<cofl:value name="name" type="raw">value</cofl:value>'],
      rejected: ['<cofl:value name="name" type="raw">value</cofl:value_extra>'],
    },
    { name: "test_from_structural_tag_with_structural_tag_instance: any_text", format: anyText(), accepted: ["", "any text here"], rejected: [] },
    { name: "test_from_structural_tag_with_structural_tag_instance: sequence", format: seq(...AB), accepted: ["AB"], rejected: ["A"] },
    { name: "test_from_structural_tag_with_structural_tag_instance: or", format: or(...AB), accepted: ["A", "B"], rejected: ["C"] },
    { name: "test_from_structural_tag_with_structural_tag_instance: tag", format: b, accepted: ["<b>text</b>"], rejected: ["<b>text</b"] },
    {
      name: "test_from_structural_tag_with_structural_tag_instance: tags_with_separator",
      format: { type: "tags_with_separator", tags: [b], separator: "," },
      accepted: ['<b>"1"</b>,<b>"2"</b>'],
      rejected: ['<b>"1"</b><b>"2"</b>'],
    },
    {
      name: "test_from_structural_tag_with_structural_tag_instance: qwen_xml_parameter",
      format: { type: "qwen_xml_parameter", json_schema: name },
      accepted: ["<parameter=name>value</parameter>"],
      rejected: ["<parameter=name>value</param>"],
    },
  ];
}

function xmlConstEnum(): TagCase[] {
  const v = (schema: unknown) => json({ type: "object", properties: { v: schema }, required: ["v"] }, { style: "qwen_xml" });
  const p = (body: string) => `<parameter=v>${body}</parameter>`;
  const rows: Array<[string, unknown, string[], string[]]> = [
    ["string const", { const: "hello" }, [p("hello")], [p('"hello"')]],
    ["integer const", { const: 42 }, [p("42")], [p("43")]],
    ["boolean const", { const: true }, [p("true")], []],
    ["null const", { const: null }, [p("null")], []],
    ["quote-backslash const", { const: '"\\' }, [p('"\\')], []],
    ["string enum", { enum: ["red", "green"] }, [p("red")], [p('"red"'), p("blue")]],
    ["mixed enum", { enum: ["hello", 42, '"\\'] }, [p("hello"), p("42"), p('"\\')], []],
    ["anyOf of string consts", { anyOf: [{ const: "a" }, { const: "b" }] }, [p("a")], [p("c")]],
    ["anyOf string or integer", { anyOf: [{ type: "string" }, { type: "integer" }] }, [p("hello world"), p("123")], []],
  ];
  return rows.map(([what, schema, accepted, rejected]) => ({ name: `test_xml_const_enum_values: ${what}`, format: v(schema), accepted, rejected }));
}

const ANY_ORDER_SCHEMA = obj({ a: { type: "integer" }, b: { type: "string" }, c: { type: "boolean" } }, ["a", "b"], { additionalProperties: false });
const WS_SCHEMA = obj({ a: { type: "integer" } });

function nested(depth: number): unknown {
  let f: unknown = str("a");
  for (let i = 0; i < depth; i++) f = seq(f);
  return f;
}

export const CONVERTER_CASES: TagCase[] = [
  { name: "test_const_string_empty", format: str(""), accepted: [""], rejected: ["x"] },
  { name: "test_const_string_format", format: str("Hello!"), accepted: ["Hello!"], rejected: ["Hello", "Hello!!", "HELLO!"] },
  {
    name: "test_json_schema_format",
    format: json({ type: "object", properties: { a: { type: "string" } } }),
    accepted: ['{"a": "hello"}'],
    rejected: ['{"a": 123}', '{"b": "hello"}', "invalid json"],
  },
  { name: "test_qwen_parameter_xml_format", format: { type: "qwen_xml_parameter", json_schema: nameAge }, accepted: QWEN_XML_OK, rejected: [] },
  { name: "test_json_schema_style_qwen_xml_format", format: json(nameAge, { style: "qwen_xml" }), accepted: QWEN_XML_OK, rejected: [] },
  {
    name: "test_json_schema_style_minimax_xml_format",
    format: json(nameAge, { style: "minimax_xml" }),
    accepted: [
      '<parameter name="name">Bob</parameter><parameter name="age">\t100\n</parameter>',
      '<parameter name="name">Bob</parameter>\t\n<parameter name="age">\t100\n</parameter>',
      '<parameter name="name">Bob</parameter><parameter name="age">100</parameter>',
      `<parameter name="name">${html}</parameter><parameter name="age">100</parameter>`,
    ],
    rejected: [],
  },
  {
    name: "test_json_schema_style_deepseek_xml_format",
    format: json(nameAge, { style: "deepseek_xml" }),
    accepted: [
      '<｜DSML｜parameter name="name" string="true">Bob</｜DSML｜parameter><｜DSML｜parameter name="age" string="false">\t100\n</｜DSML｜parameter>',
      `<｜DSML｜parameter name="name" string="true">${html}</｜DSML｜parameter><｜DSML｜parameter name="age" string="false">100</｜DSML｜parameter>`,
    ],
    rejected: [],
    stricter: [
      ['<｜DSML｜parameter name="name" string="true">Bob</｜DSML｜parameter>\t\n<｜DSML｜parameter name="age" string="true">\t100\n</｜DSML｜parameter>',
        "The deepseek_xml string flag is pinned"],
      ['<｜DSML｜parameter name="name" string="false">Bob</｜DSML｜parameter><｜DSML｜parameter name="age" string="true">100</｜DSML｜parameter>',
        "The deepseek_xml string flag is pinned"],
    ],
  },
  {
    name: "test_json_schema_style_glm_xml_format",
    format: json(nameAge, { style: "glm_xml" }),
    accepted: ["<arg_key>name</arg_key><arg_value>Bob</arg_value><arg_key>age</arg_key><arg_value>100</arg_value>"],
    rejected: [
      "<arg_key>name</arg_key><arg_value>Bob</arg_value>",
      "<parameter=name>Bob</parameter><parameter=age>100</parameter>",
      '<parameter name="name">Bob</parameter><parameter name="age">100</parameter>',
    ],
  },
  {
    name: "test_json_schema_style_cohere_xml_format",
    format: json(nameAge, { style: "cohere_xml" }),
    accepted: [cv("raw", "Bob", "name") + cv("json", "100", "age")],
    rejected: [
      cv("raw", "Bob", "name"),
      "<cofl:value name=name type=raw>Bob</cofl:value><cofl:value name=age type=json>100</cofl:value>",
      "<parameter=name>Bob</parameter><parameter=age>100</parameter>",
    ],
  },
  {
    name: "test_json_schema_style_cohere_xml_nested_values",
    format: json(obj({
      config: obj({ mode: { type: "string" }, enabled: { type: "boolean" } }),
      items: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 2 },
    }), { style: "cohere_xml" }),
    accepted: [
      '<cofl:value name="config" type="dict">' + cv("raw", "fast", "mode") + cv("json", "true", "enabled") + "</cofl:value>"
        + '<cofl:value name="items" type="list"><cofl:value type="raw">first</cofl:value><cofl:value type="raw">second</cofl:value></cofl:value>',
    ],
    rejected: [
      '<cofl:value name="config" type="dict">' + cv("raw", "fast", "mode") + cv("json", "true", "enabled") + "</cofl:value>"
        + '<cofl:value name="items" type="list"><cofl:value name="0" type="raw">first</cofl:value><cofl:value type="raw">second</cofl:value></cofl:value>',
    ],
  },
  { name: "test_json_schema_style_cohere_xml_type_correlation: $ref", format: cohereValue({ $ref: "#/$defs/Text" }), accepted: [cv("raw", "hello")], rejected: [cv("json", "hello")] },
  { name: "test_json_schema_style_cohere_xml_type_correlation: mixed enum", format: cohereValue({ enum: ["ready", 7] }), accepted: [cv("raw", "ready"), cv("json", "7")], rejected: [cv("json", "ready")] },
  {
    name: "test_json_schema_style_cohere_xml_type_correlation: anyOf",
    format: cohereValue({ anyOf: [{ type: "string" }, { type: "integer" }] }),
    accepted: [cv("raw", "hello")],
    rejected: [cv("dict", "123")],
  },
  {
    name: "test_json_schema_style_cohere_xml_type_correlation: oneOf",
    format: cohereValue(cohereOneOf),
    accepted: ['<cofl:value name="value" type="dict">' + cv("json", "1", "id") + "</cofl:value>"],
    rejected: ['<cofl:value name="value" type="list">' + cv("json", "1", "id") + "</cofl:value>"],
  },
  {
    name: "test_json_schema_style_cohere_xml_type_correlation: type list",
    format: cohereValue({ type: ["string", "integer"] }),
    accepted: [cv("json", "123")],
    rejected: [cv("dict", "123")],
  },
  {
    name: "test_json_schema_style_cohere_xml_type_correlation: allOf of one",
    format: cohereValue({ allOf: [{ type: "string" }] }),
    accepted: [cv("raw", "hello")],
    rejected: [cv("json", "hello")],
  },
  {
    name: "test_json_schema_style_kimi_k3_xml_format",
    format: json(nameAge, { style: "kimi_k3_xml" }),
    accepted: [
      kimiArg("name", "string", "Bob") + kimiArg("age", "number", "100"),
      kimiArg("name", "string", "Bob") + "\n" + kimiArg("age", "number", "\t100\n"),
      kimiArg("name", "string", "<!DOCTYPE html>\n<h1>Hello</h1>") + kimiArg("age", "number", "100"),
    ],
    rejected: [
      kimiArg("name", "string", "Bob") + kimiArg("age", "integer", "100"),
      kimiArg("name", "number", "123") + kimiArg("age", "number", "100"),
      kimiArg("name", "string", "Bob") + kimiArg("age", "string", "100"),
      kimiArg("name", "string", "Bob"),
      '<parameter name="name">Bob</parameter><parameter name="age">100</parameter>',
    ],
  },
  {
    name: "test_json_schema_style_kimi_k3_xml_empty_object",
    format: json({ type: "object", properties: {} }, { style: "kimi_k3_xml" }),
    accepted: [""],
    // This version of the test also accepts "\n"; xgrammar's later test_empty_xml_object.py
    // rejects a whitespace-only body of an object without arguments, and so does tagmask.
    rejected: ["\n"],
  },
  {
    name: "test_json_schema_style_kimi_k3_xml_object_argument_uses_json",
    format: json({ type: "object", properties: { value: { type: "object" } }, required: ["value"], additionalProperties: false }, { style: "kimi_k3_xml" }),
    accepted: [kimiArg("value", "object", "{}"), kimiArg("value", "object", '{"nested":1}')],
    rejected: [kimiArg("value", "object", ""), kimiArg("value", "object", kimiArg("nested", "number", "1"))],
  },
  {
    name: "test_json_schema_style_kimi_k3_xml_free_form_keys_allow_any_type",
    format: json(true, { style: "kimi_k3_xml" }),
    accepted: [["string", "x"], ["number", "1.5"], ["boolean", "true"], ["object", '{"k": 1}'], ["array", "[1]"], ["null", "null"]].map(([t, v]) => kimiArg("k", t!, v!)),
    rejected: [],
    stricter: [[kimiArg("k", "integer", "1"), "for free keys xgrammar also accepts `integer`"]],
  },
  {
    name: "test_json_schema_style_kimi_k3_xml_escapes_key_attribute",
    format: json({ type: "object", properties: { 'we"ird&key': { type: "string" } }, required: ['we"ird&key'] }, { style: "kimi_k3_xml" }),
    accepted: [kimiArg("we&quot;ird&amp;key", "string", "v")],
    rejected: [kimiArg('we"ird&key', "string", "v")],
  },
  ...kimiAllTypes(),
  ...kimiRefs(),
  ...kimiPatternProperties(),
  ...kimiAnyOrder(),
  ...kimiConstEnum(),
  {
    name: "test_json_schema_style_minimax_m3_xml_fixed_nested_values",
    format: { type: "structural_tag", format: json({ type: "object", properties: { city: { type: "string" }, days: { type: "array", items: { type: "integer" } } }, required: ["city", "days"], additionalProperties: false }, { style: "minimax_m3_xml" }) },
    accepted: [m3("city", "Paris") + m3("days", m3("item", "1") + m3("item", "2"))],
    rejected: [(m3("city", "Paris") + m3("days", m3("item", "1") + m3("item", "2"))).replace("</days>", "</wrong>")],
  },
  {
    name: "test_ebnf_grammar_format",
    format: { type: "grammar", grammar: 'root ::= "Hello!" number\n            number ::= [0-9] | [0-9] number' },
    accepted: ["Hello!12345", "Hello!0"],
    rejected: ["Hello!", "Hello!123a", "Hi!123"],
  },
  { name: "test_regex_format", format: { type: "regex", pattern: "Hello![0-9]+" }, accepted: ["Hello!12345", "Hello!0"], rejected: ["Hello!", "Hello!123a", "Hi!123"] },
  {
    name: "test_sequence_format",
    format: seq(str("Hello!"), json({ type: "number" }), { type: "grammar", grammar: 'root ::= "" | [-+*/]' }, regex("[simple]?")),
    accepted: ["Hello!123", "Hello!123+", "Hello!123-", "Hello!123s", "Hello!123+s"],
    rejected: ["Hello!Hello!", "Hello!", "123Hello!", "???", "Hello!123!", "Hello!123q"],
  },
  { name: "test_or_format", format: or(str("Hello!"), json({ type: "number" })), accepted: ["Hello!", "123"], rejected: ["Hello!Hello!", "123Hello!", "???"] },
  ...[json({ type: "number" }), { type: "grammar", grammar: "root ::= [+\\-]?[1-9][0-9]*" }, regex("[+\\-]?[1-9][0-9]*")].map((content, i): TagCase => ({
    name: `test_tag_format[${i}]`,
    format: tag("BEG", content, "END"),
    accepted: ["BEG12345END", "BEG123456END", "BEG1234567END"],
    rejected: ["BEG???END", "BEG12345ENDEND"],
  })),
  { name: "test_any_text_format", format: tag("BEG", anyText(), "END"), accepted: ["BEGHello!END", "BEGENENNDENEND"], rejected: ["BEGENENDEN", "BEGBEGENDEND"] },
  { name: "test_any_text_only_format", format: anyText(), accepted: ["ABCDEF", "123456", ""], rejected: [] },
  { name: "test_any_text_length_budgets", format: tag("<think>", anyText({ max_tokens: 2, max_chars: 4 }), "</think>"), accepted: ["<think>abcd</think>", "<think></think>"], rejected: ["<think>abcde</think>"] },
  { name: "test_any_text_zero_token_budget_is_empty", format: anyText({ max_tokens: 0 }), accepted: [""], rejected: ["x"] },
  {
    name: "test_no_end_anytext_format_with_excludes",
    format: { type: "triggered_tags", triggers: ["<TOOL>"], tags: [{ begin: "<TOOL>", content: anyText({ excludes: ["<END>"] }), end: "" }], at_least_one: true },
    accepted: ["<TOOL>hello world", "<TOOL>hello world<END>", "<TOOL>"],
    rejected: [],
  },
  ...triggeredFlags(),
  {
    name: "test_triggered_tags_corner_case",
    format: { type: "triggered_tags", triggers: ["<start>"], tags: [{ begin: "<start>", content: str("[TEXT]"), end: "<end>" }] },
    accepted: ["<start>[TEXT]<end>[TEXT]<start>[TEXT]<end>[TEXT]"],
    rejected: [],
  },
  ...quantifierCases(),
  ...compoundCases(),
  {
    name: "test_end_string_detector[0]",
    format: tag("<start>", seq(str("[TEXT]"), anyText()), "<end>"),
    accepted: ["<start>[TEXT]<end>", "<start>[TEXT]abcde<end>"],
    rejected: ["<start>[TEXT]abcde", "<start><end>"],
  },
  {
    name: "test_end_string_detector[1]",
    format: tag("<start>", or(
      { type: "triggered_tags", triggers: ["<start2"], tags: [tag("<start2>", anyText(), "<end2>")], at_least_one: true },
      seq(str("[TEXT2]"), anyText()),
      { type: "tags_with_separator", tags: [tag("<start3>", anyText(), "<end3>")], separator: "<sep>" },
    ), "<end>"),
    accepted: ["<start><start2>[TEXT]<end2><end>", "<start><start2><end2><end>", "<start>[TEXT2]abc<end>", "<start><start3>abc<end3><end>", "<start><start3><end3><end>", "<start><end>"],
    rejected: ["<start>[TEXT2]"],
  },
  {
    name: "test_end_string_detector[2]",
    format: or(
      { type: "triggered_tags", triggers: ["<start2"], tags: [tag("<start2>", anyText(), "<end2>")], at_least_one: true },
      seq(str("[TEXT]"), anyText()),
      or({ type: "tags_with_separator", tags: [tag("<start3>", anyText(), "<end3>")], separator: "<sep>", at_least_one: true }, seq(str("[TEXT2]"), anyText())),
    ),
    accepted: ["<start2>abc<end2>abcdef", "[TEXT]abc", "[TEXT]", "<start3>abc<end3>", "<start3>abc<end3><sep><start3>def<end3>", "[TEXT2]def", "[TEXT2]"],
    rejected: ["<start>abc<end>", "<start2>abc", "abc<end2>", "<start3>abc", "<start3>abc<end3><start3>def<end3>", "random text"],
  },
  ...utf8Cases(),
  ...pythonModelCases(),
  { name: "test_multiple_end_tokens_tag_instance", format: tag("BEG", str("CONTENT"), ["END1", "END2"]), accepted: ["BEGCONTENTEND1", "BEGCONTENTEND2"], rejected: ["BEGCONTENTEND3", "BEGCONTENTEND"] },
  { name: "test_multiple_end_tokens_tag_grammar[1]", format: tag("<start>", str("X"), ["</end>"]), accepted: ["<start>X</end>"], rejected: ["<start>X"] },
  {
    name: "test_multiple_end_tokens_any_text_instance",
    format: tag("BEG", anyText(), ["END1", "END2"]),
    accepted: ["BEGHello!END1", "BEGHello!END2", "BEGEND1", "BEGEND2", "BEGsome text hereEND1", "BEGsome text hereEND2"],
    rejected: ["BEGHello!END3", "BEGHello!END"],
  },
  { name: "test_multiple_end_tokens_with_empty_instance", format: tag("BEG", str("CONTENT"), ["END1", ""]), accepted: ["BEGCONTENTEND1", "BEGCONTENT"], rejected: ["BEGCONTENTEND2", "BEGCONTENTEND"] },
  { name: "test_multiple_end_tokens_with_empty_grammar[1]", format: tag("<start>", str("X"), ["", "</end>"]), accepted: ["<start>X", "<start>X</end>"], rejected: ["<start>X</en"] },
  {
    name: "test_excluded_strings_in_any_text",
    format: tag("", anyText({ excludes: ["<end>", "</tag>"] }), "."),
    accepted: ["This is a test string.", "A clean string without excluded substrings."],
    rejected: ["This string contains <end> which is excluded.", "Another string with </tag> inside.", "<end> at the beginning.", "At the end </tag>."],
  },
  {
    name: "test_excluded_strings_in_triggered_format",
    format: { ...triggeredTagsA(true, false), excludes: ["L1", "L2"] },
    accepted: ["A1L1AB", "A1L1AA2L2A"],
    rejected: ["A", "A1", "A1L2A", "L1A1L1A", "L2A2L2A", "A1L1AL1"],
  },
  { name: "test_excluded_strings_in_single_any_text", format: anyText({ excludes: ["ABC"] }), accepted: ["XYZ", "Hello World", "A quick brown fox", ""], rejected: ["ABC", "123ABC456"] },
  {
    name: "test_excluded_any_text_within_sequence",
    format: seq(anyText({ excludes: ["ABC"] }), str("ABC")),
    accepted: ["HelloABC", "WorldABC", "ABC", "SomeTextBeforeABC"],
    rejected: ["NoExclusionHere", "JustSomeText"],
  },
  {
    name: "test_excludes_triggered_tags_without_end",
    format: seq({ type: "triggered_tags", triggers: ["1"], tags: [{ begin: "1", content: anyText(), end: ["1"] }], excludes: ["ABC"] }, str("ABC")),
    accepted: ["11ABC", "2ABC"],
    rejected: ["1ABC", "1HelloWorld", "1ABC123"],
  },
  ...xmlConstEnum(),
  {
    name: "test_tag_dispatch_format_simple",
    format: { type: "dispatch", rules: [["tag1", str("abcd")], ["tag2", str("efg")]], loop: true },
    accepted: ["tag1abcd", "tag1abcdtag2efg", "tag1abcdqqqqtag2efg"],
    rejected: ["tag1abc", "tag1abce", "ttag1abd"],
  },
  {
    name: "test_tag_dispatch_format_no_loop",
    format: { type: "dispatch", rules: [["tag1", str("abcd")], ["tag2", str("efg")]], loop: false },
    accepted: ["tag1abcd", "tag2efg"],
    rejected: ["tag1abcdtag2efg", "tag2efgtag1abcd"],
  },
  {
    name: "test_tag_dispatch_format_with_excludes",
    format: { type: "dispatch", rules: [["tag1", str("abcd")], ["tag2", str("efg")]], loop: true, excludes: ["tag3", "ll"] },
    accepted: ["tag1abcd123", "tag1abcdqqqtag2efg12W3"],
    rejected: ["tag1abcdll", "tag1abcdlltag3"],
  },
  {
    name: "test_json_schema_format_any_order",
    format: json(ANY_ORDER_SCHEMA, { any_order: true }),
    accepted: ['{"c": true, "a": 1, "b": "x"}', '{"b": "x", "a": 1}'],
    rejected: ['{"a": 1}', '{"a": 1, "b": "x", "d": 5}'],
    stricter: [['{"a": 1, "b": "x", "c": true, "c": false}', "counts the entries only"]],
  },
  { name: "test_json_schema_format_any_order_default_is_ordered", format: json(ANY_ORDER_SCHEMA), accepted: ['{"a": 1, "b": "x"}'], rejected: ['{"b": "x", "a": 1}'] },
  {
    name: "test_json_schema_format_any_order_additional_properties",
    format: json(obj({ a: { type: "integer" }, b: { type: "string" } }, ["a"], { additionalProperties: true }), { any_order: true }),
    accepted: ['{"a": 1}', '{"a": 1, "b": "x"}', '{"a": 1, "z": 5, "y": "q", "w": true}', '{"z": 5, "a": 1}'],
    rejected: ["{}"],
  },
  {
    name: "test_json_schema_format_any_order_qwen_xml",
    format: json(ANY_ORDER_SCHEMA, { style: "qwen_xml", any_order: true }),
    accepted: ["<parameter=a>1</parameter><parameter=b>hello</parameter>", "<parameter=b>hello</parameter><parameter=a>1</parameter>",
      "<parameter=a>1</parameter><parameter=b>hello</parameter><parameter=c>true</parameter>"],
    rejected: ["<parameter=a>1</parameter>", "<parameter=a>1</parameter><parameter=b>hello</parameter><parameter=c>true</parameter><parameter=d>false</parameter>"],
  },
  {
    name: "test_structural_tag_max_whitespace_cnt: unbounded",
    format: tag("<call>", json(WS_SCHEMA, { style: "json" }), "</call>"),
    accepted: [1, 2, 5].map((n) => `<call>{"a":${" ".repeat(n)}1}</call>`),
    rejected: [],
  },
  {
    name: "test_structural_tag_max_whitespace_cnt: at most 2",
    format: tag("<call>", json(WS_SCHEMA, { style: "json", max_whitespace_cnt: 2 }), "</call>"),
    accepted: [1, 2].map((n) => `<call>{"a":${" ".repeat(n)}1}</call>`),
    rejected: ['<call>{"a":     1}</call>'],
  },
  {
    name: "test_structural_tag_per_tag_whitespace_independent",
    format: seq(tag("<a>", json(WS_SCHEMA, { style: "json", max_whitespace_cnt: 2 }), "</a>"), tag("<b>", json(WS_SCHEMA, { style: "json" }), "</b>")),
    accepted: ['<a>{"a":  1}</a><b>{"a":     1}</b>'],
    rejected: ['<a>{"a":     1}</a><b>{"a":     1}</b>'],
  },
  { name: "test_deeply_nested_formats_rejected: 50 deep loads", format: nested(50), accepted: ["a"], rejected: ["aa"] },
];

const tok = (token: number) => ({ type: "token", token });
const tokTag = (begin: number, value: string, end: number) => tag(tok(begin), str(value), tok(end));

/** The token-level tags whose tests compare grammar text only: each loads and lowers (token ids need no vocabulary until compiled). */
export const CONVERTER_LOADS: Array<[string, unknown]> = [
  ["test_token_format_basic", tok(42)],
  ["test_token_format_in_tag_begin_end", tag(tok(10), str("X"), tok(20))],
  ["test_token_format_in_tag_begin_string_end", tag(tok(10), str("Y"), "</end>")],
  ["test_exclude_token_format_no_excludes", { type: "exclude_token" }],
  ["test_exclude_token_format_with_excludes", { type: "exclude_token", exclude_tokens: [5, 10] }],
  ["test_exclude_token_detects_end_from_parent_tag", tag(tok(1), { type: "exclude_token", exclude_tokens: [5] }, tok(99))],
  ["test_any_tokens_format_no_excludes", { type: "any_tokens" }],
  ["test_any_tokens_format_with_excludes", { type: "any_tokens", exclude_tokens: [5, 10] }],
  ["test_any_tokens_format_max_tokens", { type: "any_tokens", exclude_tokens: [5, 10], max_tokens: 3 }],
  ["test_any_tokens_format_zero_token_budget_is_empty", { type: "any_tokens", exclude_tokens: [5], max_tokens: 0 }],
  ["test_any_tokens_detects_end_from_parent_tag", tag(tok(1), { type: "any_tokens", exclude_tokens: [5] }, tok(99))],
  ["test_token_triggered_tags_stop_after_first", { type: "token_triggered_tags", trigger_tokens: [10, 20], tags: [tokTag(10, "A", 99), tokTag(20, "B", 99)], stop_after_first: true }],
  ["test_token_triggered_tags_at_least_one_stop_after_first", { type: "token_triggered_tags", trigger_tokens: [10], tags: [tokTag(10, "A", 99)], at_least_one: true, stop_after_first: true }],
  ["test_token_triggered_tags_with_excludes", { type: "token_triggered_tags", trigger_tokens: [10], tags: [tokTag(10, "C", 99)], exclude_tokens: [50], stop_after_first: true }],
  ["test_token_triggered_tags_looping", { type: "token_triggered_tags", trigger_tokens: [10], tags: [tokTag(10, "D", 99)] }],
  ["test_token_triggered_tags_detects_end_from_parent", tag(tok(1), { type: "token_triggered_tags", trigger_tokens: [10], tags: [tokTag(10, "E", 99)], stop_after_first: true }, tok(88))],
  ["test_token_tag_dispatch_format_simple", { type: "token_dispatch", rules: [[10, str("A")], [20, str("B")]], loop: false }],
  ["test_token_tag_dispatch_format_with_excludes", { type: "token_dispatch", rules: [[10, str("C")]], loop: false, exclude_tokens: [50] }],
  ["test_token_tag_dispatch_format_looping", { type: "token_dispatch", rules: [[10, str("D")]], loop: true }],
  ["test_length_budget_pydantic_roundtrip: any_text", { type: "any_text", excludes: ["END"], max_tokens: 3, max_chars: 7 }],
  ["test_length_budget_pydantic_roundtrip: any_tokens", { type: "any_tokens", exclude_tokens: [5, "END"], max_tokens: 3 }],
];
