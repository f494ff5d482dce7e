/**
 * Cases of xgrammar's tests/python/test_builtin_structural_tag.py: the structural tags its
 * per-model builtins (`get_model_structural_tag`) build, written out here as the wire form those
 * builtins produce (read off the grammars its test prints), with the outputs its test checks in
 * each of the three reasoning modes: reasoning off, reasoning on, and reasoning forced empty.
 * Each tag loads through tagmask's xgrammar wire reader and must give xgrammar's verdicts.
 * The models' own formats in tagmask are its families (lib/tools); builtin-families.ts compares
 * those with the same outputs.
 */
import { anyText, json, or, regex, seq, str, tag, type TagCase } from "./cases.js";

/** The tools of the instance tests: one function whose arguments may hold a string `q`. */
export const SIMPLE_SCHEMA = { type: "object", properties: { q: { type: "string" } } };

const THINK_MARKERS = ["<think>", "</think>"];

/** One model's builtin: how its reasoning is written and how a call to `name` is written. */
interface Builtin {
  /** The reasoning block as a tag (`begin` may be empty: the prompt opened it). */
  think: [begin: string, end: string];
  /** What the model writes for reasoning forced empty. */
  emptyThink: string;
  /** The tool calls as one format, free text around them, for tool `name` with `schema`. */
  calls: (name: string, schema: unknown) => unknown;
}

const triggered = (trigger: string, tags: unknown[]) => ({ type: "triggered_tags", triggers: [trigger], tags, excludes: THINK_MARKERS });
const separated = (tags: unknown[], separator: string) => ({ type: "tags_with_separator", tags, separator });

/** A block of calls opened by `open` + "\n", calls separated by "\n", closed by `close`. */
const block = (open: string, close: string, invoke: [open: string, close: string], style: string) => (name: string, schema: unknown) =>
  triggered(open, [tag(`${open}\n`, separated([tag(`${invoke[0]}${name}">\n`, json(schema, { style }), invoke[1])], "\n"), close)]);

/** The think block most builtins write, and its empty form. */
const THINK_BLOCK: Pick<Builtin, "think" | "emptyThink"> = { think: ["<think>", "</think>"], emptyThink: "<think>\n\n</think>" };

export const BUILTINS: Record<string, Builtin> = {
  llama: {
    ...THINK_BLOCK,
    calls: (name, schema) => triggered('{"name": ', [tag(`{"name": "${name}", "parameters": `, json(schema), "}")]),
  },
  kimi: {
    think: ["<think>", "</think>"],
    emptyThink: "<think></think>",
    calls: (name, schema) => triggered("<|tool_call_begin|>", [
      tag(`<|tool_call_begin|>functions.${name}:`, seq(regex("[0-9]+"), str("<|tool_call_argument_begin|>"), json(schema)), "<|tool_call_end|>"),
    ]),
  },
  deepseek_r1: {
    think: ["", "</think>"],
    emptyThink: "</think>",
    calls: (name, schema) => triggered("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>", [
      tag(`<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>${name}<｜tool▁sep｜>`, json(schema), "<｜tool▁call▁end｜>"),
    ]),
  },
  deepseek_v3_2: {
    ...THINK_BLOCK,
    calls: block("<｜DSML｜function_calls>", "</｜DSML｜function_calls>\n", ['<｜DSML｜invoke name="', "</｜DSML｜invoke>\n"], "deepseek_xml"),
  },
  deepseek_v4: {
    ...THINK_BLOCK,
    calls: block("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>\n", ['<｜DSML｜invoke name="', "</｜DSML｜invoke>\n"], "deepseek_xml"),
  },
  minimax: {
    ...THINK_BLOCK,
    calls: block("<minimax:tool_call>", "</minimax:tool_call>\n", ['<invoke name="', "</invoke>\n"], "minimax_xml"),
  },
  qwen_coder: {
    ...THINK_BLOCK,
    calls: (name, schema) => triggered("<tool_call>\n<function=", [tag(`<tool_call>\n<function=${name}>\n`, json(schema, { style: "qwen_xml" }), "\n</function>\n</tool_call>")]),
  },
  qwen: {
    ...THINK_BLOCK,
    calls: (name, schema) => triggered("<tool_call>", [tag(`<tool_call>\n{"name": "${name}", "arguments": `, json(schema), "}\n</tool_call>")]),
  },
};

/** 0: reasoning off; 1: reasoning on; 2: reasoning forced empty. */
type Mode = 0 | 1 | 2;
const MODE_NAMES = ["reasoning off", "reasoning on", "reasoning forced empty"];

/** The builtin's whole format in one mode: `body` after the reasoning. */
function withReasoning(b: Builtin, mode: Mode, body: unknown): unknown {
  if (mode === 0) return body;
  if (mode === 1) return seq(tag(b.think[0], anyText(), b.think[1]), body);
  return seq(str(b.emptyThink), body);
}

/** Free text without the reasoning markers: the output when no tool is given. */
const text = anyText({ excludes: THINK_MARKERS });

/** The instances of one model and xgrammar's verdicts per mode (accepted: true). */
interface InstanceTable {
  model: string;
  tool: string;
  withTools: string[];
  withToolsVerdicts: [boolean[], boolean[], boolean[]];
  noTools: string[];
  noToolsVerdicts: [boolean[], boolean[], boolean[]];
}

const T = true;
const F = false;
/** The verdicts most models share: a call alone / after reasoning / after the empty block. */
const USUAL: [boolean[], boolean[], boolean[]] = [[T, F, F, F, F], [F, T, T, F, T], [F, F, F, F, T]];
const USUAL_TEXT: [boolean[], boolean[], boolean[]] = [[T, T, F, F, F], [F, F, T, F, T], [F, F, F, F, T]];
const THINK_TEXT = ["", "text", "<think>123</think>123", "<think></think></think>", "<think>\n\n</think>text"];

const dsml = (calls: string) => (prefix: string) =>
  `${prefix}<｜DSML｜${calls}>\n<｜DSML｜invoke name="search">\n<｜DSML｜parameter name="q" string="true">v</｜DSML｜parameter></｜DSML｜invoke>\n</｜DSML｜${calls}>\n`;
const minimaxCall = (prefix: string) => `${prefix}<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">v</parameter></invoke>\n</minimax:tool_call>\n`;
const afterThink = (call: (prefix: string) => string) => [call("text"), call("<think>123</think>"), call("<think>123</think>text"), "<think>\n\n</think>text<think>123</think>", call("<think>\n\n</think>text")];
const r1Call = (prefix: string) => `${prefix}<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{"q": "v"}<｜tool▁call▁end｜>`;
const kimiCall = (name: string, i: number, q: string) => `<|tool_call_begin|>functions.${name}:${i}<|tool_call_argument_begin|>{"q": "${q}"}<|tool_call_end|>`;
const qwenCall = '<tool_call>\n{"name": "t1", "arguments": {"q": "v"}}\n</tool_call>';
const coderCall = (name: string) => `<tool_call>\n<function=${name}>\n<parameter=q>v</parameter>\n</function>\n</tool_call>`;

export const INSTANCE_TABLES: InstanceTable[] = [
  {
    model: "llama",
    tool: "t1",
    withTools: ['{"name": "t1", "parameters": {"q": "v"}}', 'text{"name": "t1", "parameters": {}}', '<think>123</think>text{"name": "t1", "parameters": {"q": ""}}', "<think>\n\n</think></think>", '<think>\n\n</think>text{"name": "t1", "parameters": {"q": "v"}}'],
    withToolsVerdicts: [[T, T, F, F, F], [F, F, T, F, T], [F, F, F, F, T]],
    noTools: ["", "text", "<think>123</think>text", "<think>\n\n</think></think>", "<think>\n\n</think>text"],
    noToolsVerdicts: USUAL_TEXT,
  },
  {
    model: "kimi",
    tool: "get_weather",
    withTools: [
      `123${kimiCall("get_weather", 0, "v")}`,
      "123<|tool_call_begin|>123<|tool_call_argument_begin|>{}<|tool_call_end|>",
      "<think>123</think>",
      "<think></think></think>",
      `<think></think>123<|tool_calls_section_begin|>\n${kimiCall("get_weather", 0, "v")}\n<|tool_calls_section_end|>`,
      `<think></think>123<|tool_calls_section_begin|>${kimiCall("get_weather", 0, "v0")}${kimiCall("get_weather", 1, "v1")}<|tool_calls_section_end|>`,
    ],
    withToolsVerdicts: [[T, F, F, F, F, F], [F, F, T, F, T, T], [F, F, F, F, T, T]],
    noTools: ["", "text", "<think>123</think>", "<think>\n\n</think></think>", "<think></think>text", "</think>123"],
    noToolsVerdicts: [[T, T, F, F, F, F], [F, F, T, F, T, F], [F, F, F, F, T, F]],
  },
  {
    model: "deepseek_r1",
    tool: "search",
    withTools: [r1Call("text"), r1Call("123</think>"), r1Call("thinking</think>text"), "</think>text<think>123</think>", r1Call("</think>text")],
    withToolsVerdicts: USUAL,
    noTools: ["", "text", "123</think>123", "</think></think>", "</think>text"],
    noToolsVerdicts: USUAL_TEXT,
  },
  { model: "deepseek_v3_2", tool: "search", withTools: afterThink(dsml("function_calls")), withToolsVerdicts: USUAL, noTools: THINK_TEXT, noToolsVerdicts: USUAL_TEXT },
  { model: "deepseek_v4", tool: "search", withTools: afterThink(dsml("tool_calls")), withToolsVerdicts: USUAL, noTools: THINK_TEXT, noToolsVerdicts: USUAL_TEXT },
  { model: "minimax", tool: "search", withTools: afterThink(minimaxCall), withToolsVerdicts: USUAL, noTools: THINK_TEXT, noToolsVerdicts: USUAL_TEXT },
  {
    model: "qwen_coder",
    tool: "run_sql",
    withTools: [coderCall("run_sql"), coderCall("other"), `<think>123</think>${coderCall("run_sql")}`, "<think>\n\n</think><think></think>", `<think>\n\n</think>text${coderCall("run_sql")}`],
    withToolsVerdicts: [[T, F, F, F, F], [F, F, T, F, T], [F, F, F, F, T]],
    noTools: ["", "text", "<think>123</think>123", "<think>\n\n</think></think>", "<think>\n\n</think>text"],
    noToolsVerdicts: USUAL_TEXT,
  },
  {
    model: "qwen",
    tool: "t1",
    withTools: [`text${qwenCall}`, `<think>123</think>${qwenCall}`, "<think>\n\n</think></think>", `<think>\n\n</think>${qwenCall}`],
    withToolsVerdicts: [[T, F, F, F], [F, T, F, T], [F, F, F, T]],
    noTools: ["", "text", "<think>123</think>123", "<think>\n\n</think></think>", "<think>\n\n</think>text"],
    noToolsVerdicts: USUAL_TEXT,
  },
];

function verdictCase(name: string, format: unknown, outputs: string[], verdicts: boolean[]): TagCase {
  return { name, format, accepted: outputs.filter((_, i) => verdicts[i]), rejected: outputs.filter((_, i) => !verdicts[i]) };
}

/** Every model's builtin in every mode, with and without tools. */
function instanceCases(): TagCase[] {
  return INSTANCE_TABLES.flatMap((t) => {
    const b = BUILTINS[t.model]!;
    return ([0, 1, 2] as Mode[]).flatMap((mode) => [
      verdictCase(`test_${t.model}_instances (tools, ${MODE_NAMES[mode]})`, withReasoning(b, mode, b.calls(t.tool, SIMPLE_SCHEMA)), t.withTools, t.withToolsVerdicts[mode]),
      verdictCase(`test_${t.model}_instances (no tools, ${MODE_NAMES[mode]})`, withReasoning(b, mode, text), t.noTools, t.noToolsVerdicts[mode]),
    ]);
  });
}

/**
 * Harmony's builtin: a list of messages separated by `<|start|>assistant`, each a tool call on
 * its channel, the final answer, or (reasoning on) an analysis message, empty when forced empty.
 */
function harmony(mode: Mode, tools: boolean): unknown {
  const tags: unknown[] = [];
  if (tools) {
    tags.push(tag("<|channel|>commentary to=comment_tool<|constrain|>json<|message|>", json(SIMPLE_SCHEMA), "<|call|>"));
    tags.push(tag("<|channel|>analysis to=analysis_tool<|message|>", json(SIMPLE_SCHEMA), "<|call|>"));
  }
  tags.push(tag("<|channel|>final<|message|>", anyText(), "<|end|>"));
  if (mode === 1) tags.push(tag("<|channel|>analysis<|message|>", anyText(), "<|end|>"));
  if (mode === 2) tags.push(tag("<|channel|>analysis<|message|>", str("<|end|>"), ""));
  return { ...separated(tags, "<|start|>assistant"), at_least_one: false };
}

const HARMONY_TOOLS = [
  "<|channel|>analysis<|message|><|end|>",
  '<|channel|>commentary to=comment_tool<|constrain|>json<|message|>{"q": "v"}<|call|>',
  '<|channel|>analysis to=analysis_tool<|message|>{"q": "v"}<|call|>',
  "<|channel|>commentary to=wrong_tool<|constrain|>json<|message|>{}<|call|>",
  "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>123<|end|>",
];
const HARMONY_TEXT = [
  "",
  "<|channel|>final<|message|>123<|end|>",
  "<|channel|>analysis<|message|>123<|end|><|start|>assistant<|channel|>final<|message|>123<|end|>",
  "<|channel|>analysis<|message|><|end|>",
  "<think>\n\n</think>text",
];

function harmonyCases(): TagCase[] {
  const withTools: boolean[][] = [[F, T, T, F, F], [T, T, T, F, T], [T, T, T, F, F]];
  const noTools: boolean[][] = [[T, T, F, F, F], [T, T, T, T, F], [T, T, F, T, F]];
  return ([0, 1, 2] as Mode[]).flatMap((mode) => [
    verdictCase(`test_harmony_instances (tools, ${MODE_NAMES[mode]})`, harmony(mode, true), HARMONY_TOOLS, withTools[mode]!),
    verdictCase(`test_harmony_instances (no tools, ${MODE_NAMES[mode]})`, harmony(mode, false), HARMONY_TEXT, noTools[mode]!),
  ]);
}

/** tool_choice required and forced: the calls alone, at least one / exactly the forced one. */
function toolChoiceCases(): TagCase[] {
  const call = (name: string) => tag(`{"name": "${name}", "parameters": `, json(SIMPLE_SCHEMA), "}");
  const r1 = (name: string) => tag(`<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>${name}<｜tool▁sep｜>`, json(SIMPLE_SCHEMA), "<｜tool▁call▁end｜>");
  const r1Text = (name: string) => `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>${name}<｜tool▁sep｜>{"q": "v"}<｜tool▁call▁end｜>`;
  const invoke = (name: string) => tag(`<｜DSML｜invoke name="${name}">\n`, json(SIMPLE_SCHEMA, { style: "deepseek_xml" }), "</｜DSML｜invoke>\n");
  const dsmlBlock = (calls: string, body: unknown) => seq(str(`<｜DSML｜${calls}>\n`), body, str(`</｜DSML｜${calls}>\n`));
  const dsmlText = (calls: string, name: string) => dsml(calls)("").replace('name="search"', `name="${name}"`);
  const dsmlRequired = (calls: string): TagCase => ({
    name: `test_tool_choice_instances[${calls === "function_calls" ? "deepseek_v3_2" : "deepseek_v4"}-required]`,
    format: dsmlBlock(calls, { ...separated([invoke("search"), invoke("alt")], "\n"), at_least_one: true }),
    accepted: [dsmlText(calls, "search")],
    rejected: [""],
  });
  return [
    { name: "test_tool_choice_instances[deepseek_r1-required]", format: { ...separated([r1("search"), r1("alt")], ""), at_least_one: true }, accepted: [r1Text("search")], rejected: [""] },
    { name: "test_tool_choice_instances[deepseek_r1-forced]", format: r1("search"), accepted: [r1Text("search")], rejected: [r1Text("alt")] },
    dsmlRequired("function_calls"),
    dsmlRequired("tool_calls"),
    {
      name: "test_tool_choice_instances[deepseek_v3_2-forced]",
      format: dsmlBlock("function_calls", invoke("search")),
      accepted: [dsmlText("function_calls", "search")],
      rejected: [dsmlText("function_calls", "alt")],
    },
    {
      name: "test_tool_choice_instances[llama-required]",
      format: { ...separated([call("t1"), call("t2")], ""), at_least_one: true },
      accepted: ['{"name": "t1", "parameters": {"q": "v"}}'],
      rejected: [""],
    },
    {
      name: "test_tool_choice_instances[llama-forced]",
      format: call("t1"),
      accepted: ['{"name": "t1", "parameters": {"q": "v"}}'],
      rejected: ['{"name": "t2", "parameters": {"q": "v"}}'],
    },
  ];
}

/**
 * test_strict_or_missing_parameters: `strict: false` or no `parameters` make the arguments any
 * JSON (the builtins write `json_schema: true`); the tool name stays fixed.
 */
function strictCases(): TagCase[] {
  const rows: Array<[string, unknown, string, string]> = [
    ["llama", BUILTINS.llama!.calls("t1", true), '{"name": "t1", "parameters": {"q": "v"}}', '{"name": "t2", "parameters": {"q": "v"}}'],
    ["kimi", BUILTINS.kimi!.calls("t1", true), `123${kimiCall("t1", 0, "v")}`, `123${kimiCall("t2", 0, "v")}`],
    ["deepseek_r1", BUILTINS.deepseek_r1!.calls("t1", true), 'text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>t1<｜tool▁sep｜>{"q": "v"}<｜tool▁call▁end｜>', 'text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>t2{"q": "v"}<｜tool▁call▁end｜>'],
    ["qwen", BUILTINS.qwen!.calls("t1", true), `text${qwenCall}`, `text${qwenCall.replace("t1", "t2")}`],
    [
      "harmony",
      or(tag("<|channel|>commentary to=t1<|constrain|>json<|message|>", json(true), "<|call|>"), tag("<|channel|>final<|message|>", anyText(), "<|end|>")),
      '<|channel|>commentary to=t1<|constrain|>json<|message|>{"q": "v"}<|call|>',
      '<|channel|>commentary to=t2<|constrain|>json<|message|>{"q": "v"}<|call|>',
    ],
  ];
  return rows.map(([model, format, ok, bad]) => ({ name: `test_strict_or_missing_parameters[${model}]`, format, accepted: [ok], rejected: [bad] }));
}

export const BUILTIN_TAG_CASES: TagCase[] = [...instanceCases(), ...harmonyCases(), ...toolChoiceCases(), ...strictCases()];
