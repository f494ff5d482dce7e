/**
 * The examples of xgrammar's structural-tag documentation (the "Structural Tag Usage" page, its
 * advanced page, and the docstrings of its Python format models), reconstructed as structural
 * tags with outputs and the verdict xgrammar gives each: `match`, `prefix` (viable, not complete)
 * or rejected at a position. Schemas the documentation elides (`"json_schema": ...`) are filled
 * in with small ones. Where xgrammar is looser than tagmask, the row says so (`stricter`) and
 * docs/compatibility.md explains the difference.
 */

/** A text-level example: outputs as text. */
export interface TextExample {
  name: string;
  format: unknown;
  match: string[];
  prefix: string[];
  /** [viable part, rest]: the output stops matching at the first byte of `rest`. */
  reject: Array<[string, string]>;
  /** Outputs xgrammar accepts that tagmask rejects at the given byte, with the section of docs/compatibility.md. */
  stricter?: Array<[string, string, string]>;
  /** Inside the subset of xgrammar 0.1.27 (the WebAssembly peer): verdicts cross-checked with it. */
  peer?: boolean;
}

/** A token-level example: outputs as lists of token ids or token texts of {@link DOC_VOCAB}. */
export interface TokenExample {
  name: string;
  format: unknown;
  match: Array<Array<string | number>>;
  prefix: Array<Array<string | number>>;
  /** [tokens, index of the first token no match can continue with]. */
  reject: Array<[Array<string | number>, number]>;
}

const str = (value: string) => ({ type: "const_string", value });
const obj = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({ type: "object", properties, required });
const json = (schema: unknown) => ({ type: "json_schema", json_schema: schema });
const tag = (begin: unknown, content: unknown, end: unknown) => ({ type: "tag", begin, content, end });
const tok = (t: string | number) => ({ type: "token", token: t });

const weather = tag("<function=get_weather>", json(obj({ city: { type: "string" } })), "</function>");
const time = tag("<function=get_time>", json(obj({ timezone: { type: "string" } })), "</function>");
const nameAge = obj({ name: { type: "string" }, age: { type: "integer" } });
const func = (n: string) => tag(`<function=${n}>`, json(nameAge), "</function>");
const anyFunc = (n: string) => tag(`<function=${n}>`, json({ type: "object" }), "</function>");

export const TEXT_EXAMPLES: TextExample[] = [
  {
    name: "quick start: a minimal tag",
    format: tag("<think>", { type: "any_text" }, "</think>"),
    match: ["<think>Let me see.</think>", "<think></think>", "<think>a </thin b</think>"],
    prefix: ["", "<thi", "<think>still thinking", "<think>a </think"],
    reject: [["<think>a</think>", "b"], ["", "x"]],
    peer: true,
  },
  {
    name: "quick start: a minimal triggered_tags",
    format: { type: "triggered_tags", triggers: ["<function="], tags: [weather] },
    match: ['I will call a tool now. <function=get_weather>{"city": "San Francisco"}</function>', "", "no call at all",
      '<function=get_weather>{"city": "Oslo"}</function> and then text'],
    prefix: ["<function=", '<function=get_weather>{"city"'],
    reject: [["<function=get_", "time>"], ["<function=get_weather>{", "}"], ['<function=get_weather>{"city": "Oslo"}</', "x"]],
    peer: true,
  },
  {
    name: "const_string",
    format: str("Let's think step by step."),
    match: ["Let's think step by step."],
    prefix: ["", "Let's"],
    reject: [["Let's think step by step.", " "], ["Let", " us"]],
    peer: true,
  },
  {
    name: "json_schema",
    format: json(nameAge),
    match: ['{"name": "Bob", "age": 30}', '{"name":"Bob","age":-1}'],
    prefix: ["{", '{"name": "Bob"'],
    reject: [['{"', 'age": 30, "name": "Bob"}'], ['{"name": "Bob", "age": ', '"30"}'], ['{"name": ', "1}"]],
    peer: true,
  },
  {
    name: "json_schema with any_order",
    format: { type: "json_schema", json_schema: nameAge, any_order: true },
    match: ['{"age": 30, "name": "Bob"}', '{"name": "Bob", "age": 30}'],
    prefix: ['{"age": 30'],
    reject: [['{"age": 30', "}"]],
    // xgrammar counts entries only: two valid entries pass even when one key is repeated.
    stricter: [['{"age": 30, "', 'age": 31}', "any_order"]],
  },
  {
    name: "grammar",
    format: { type: "grammar", grammar: 'root ::= ("yes" | "no")' },
    match: ["yes", "no"],
    prefix: ["", "ye"],
    reject: [["", "maybe"], ["yes", "!"]],
    peer: true,
  },
  {
    name: "regex",
    format: { type: "regex", pattern: "[A-Z]{3}-[0-9]{4}" },
    match: ["ABC-1234"],
    prefix: ["AB", "ABC-12"],
    reject: [["ABC-12", "a4"], ["AB", "1"], ["ABC-1234", "5"]],
    peer: true,
  },
  {
    name: "any_text with excludes",
    format: { type: "any_text", excludes: ["<function="] },
    match: ["", "hello <function", "a<function"],
    prefix: [],
    reject: [["a<function", "=x"]],
  },
  {
    name: "any_text with max_tokens and max_chars in a tag",
    format: tag("<think>", { type: "any_text", excludes: ["</think>"], max_tokens: 256, max_chars: 4096 }, "</think>"),
    match: ["<think>short</think>", `<think>${"a".repeat(4096)}</think>`],
    prefix: ["<think>short"],
    reject: [[`<think>${"a".repeat(4096)}`, "a</think>"]],
  },
  {
    name: "sequence",
    format: { type: "sequence", elements: [str("Answer: "), json({ type: "object" })] },
    match: ['Answer: {"a": 1}', "Answer: {}"],
    prefix: ["Answer", "Answer: {"],
    reject: [["Answer: ", "[]"], ["", "answer"]],
    peer: true,
  },
  {
    name: "or",
    format: { type: "or", elements: [str("yes"), str("no")] },
    match: ["yes", "no"],
    prefix: ["", "n"],
    reject: [["yes", "no"], ["", "x"]],
    peer: true,
  },
  {
    name: "optional",
    format: { type: "optional", content: str("Optional prefix: ") },
    match: ["", "Optional prefix: "],
    prefix: ["Opt"],
    reject: [["Optional prefix: ", "x"], ["", "x"]],
  },
  {
    name: "plus",
    format: { type: "plus", content: str("item") },
    match: ["item", "itemitemitem"],
    prefix: ["", "it", "itemit"],
    reject: [["item", "s"]],
  },
  {
    name: "star",
    format: { type: "star", content: str("x") },
    match: ["", "x", "xxx"],
    prefix: [],
    reject: [["xx", "y"]],
  },
  {
    name: "repeat",
    format: { type: "repeat", min: 1, max: 3, content: str("item") },
    match: ["item", "itemitemitem"],
    prefix: ["", "itemit"],
    reject: [["itemitemitem", "item"]],
  },
  {
    name: "tag with several ends",
    format: tag("<response>", json({ type: "object" }), ["</response>", "</answer>"]),
    match: ['<response>{"a": 1}</response>', "<response>{}</answer>"],
    prefix: ["<response>{}</"],
    reject: [["<response>{}</", "end>"], ["<response>", "hi"]],
  },
  {
    name: "triggered_tags with two tools",
    format: { type: "triggered_tags", triggers: ["<function="], tags: [weather, time], at_least_one: false, stop_after_first: false },
    match: ['Let me check. <function=get_time>{"timezone": "UTC"}</function> and <function=get_weather>{"city": "Paris"}</function>.'],
    prefix: ["<function=get_t"],
    reject: [["<function=get_", "date>"]],
    peer: true,
  },
  {
    name: "tags_with_separator",
    format: { type: "tags_with_separator", tags: [tag("<item>", json({ type: "object" }), "</item>")], separator: ",", at_least_one: false, stop_after_first: false },
    match: ["", "<item>{}</item>", '<item>{}</item>,<item>{"a": 1}</item>'],
    prefix: ["<item>{}</item>,", "<it"],
    reject: [["<item>{}</item>", " "], ["", "text"]],
    peer: true,
  },
  {
    name: "dispatch",
    format: { type: "dispatch", rules: [["<function=func1>", json({ type: "object" })], ["<function=func2>", json(obj({ x: { type: "integer" } }))]], loop: true, excludes: ["</end>"] },
    match: ["", 'hi <function=func1>{"a": 1} and <function=func2>{"x": 2} bye'],
    prefix: ["<function=func1>{"],
    reject: [["text </end", ">"], ["<function=func1>", "x"], ["<function=func2>{", "}"]],
  },
  {
    name: "dispatch in a tag, stopped by its excludes",
    format: tag("<response>", { type: "dispatch", rules: [["<function=func1>", json({ type: "object" })], ["<function=func2>", json({ type: "object" })]], loop: true, excludes: ["</response>"] }, "</response>"),
    match: ["<response>Sure. <function=func1>{}</response>", "<response></response>"],
    prefix: ["<response>Sure"],
    reject: [["<response>a</response>", "b"]],
  },
  {
    name: "recipe: force exactly one tool call",
    format: { type: "triggered_tags", triggers: ["<function="], tags: [anyFunc("func1"), anyFunc("func2")], at_least_one: true, stop_after_first: true },
    match: ["<function=func1>{}</function>", '<function=func2>{"k": [1]}</function>'],
    prefix: ["", "<function=func2>{"],
    reject: [["", "Sure"], ["<function=func1>{}</function>", " more"]],
    peer: true,
  },
  {
    name: "recipe: reasoning, then free text and tool calls",
    format: { type: "sequence", elements: [tag("<think>", { type: "any_text" }, "</think>"), { type: "triggered_tags", triggers: ["<function="], tags: [anyFunc("func1"), anyFunc("func2")] }] },
    match: ['<think>plan</think>Answer: <function=func2>{"x": 1}</function>', "<think></think>"],
    prefix: ["<think>plan"],
    reject: [["", "Answer"], ["<think>plan</think><function=func", "3>"]],
    peer: true,
  },
  {
    name: "docstring: TriggeredTagsFormat",
    format: { type: "triggered_tags", triggers: ["<function="], tags: [func("func1"), func("func2")], at_least_one: false, stop_after_first: false },
    match: [
      '<function=func1>{"name": "John", "age": 30}</function>',
      '<function=func2>{"name": "Jane", "age": 25}</function>',
      'any_text<function=func1>{"name": "John", "age": 30}</function>any_text1<function=func2>{"name": "Jane", "age": 25}</function>any_text2',
    ],
    prefix: ['<function=func1>{"name": "John"'],
    reject: [['<function=func1>{"name": "John", "age": ', '"30"}</function>']],
    peer: true,
  },
  {
    name: "docstring: TagsWithSeparatorFormat",
    format: { type: "tags_with_separator", tags: [func("func1"), func("func2")], separator: ",", at_least_one: false, stop_after_first: false },
    match: [
      "",
      '<function=func1>{"name": "John", "age": 30}</function>',
      '<function=func1>{"name": "John", "age": 30}</function>,<function=func2>{"name": "Jane", "age": 25}</function>',
      '<function=func1>{"name": "John", "age": 30}</function>,<function=func2>{"name": "Jane", "age": 25}</function>,<function=func1>{"name": "John", "age": 30}</function>',
    ],
    prefix: ['<function=func1>{"name": "John", "age": 30}</function>,'],
    reject: [['<function=func1>{"name": "John", "age": 30}</function>', "text"]],
    peer: true,
  },
  {
    name: "docstring: TagFormat with several ends",
    format: tag("<response>", { type: "any_text" }, ["</response>", "</answer>"]),
    match: ["<response>yes</response>", "<response>no</answer>"],
    prefix: ["<response>maybe"],
    reject: [["<response>x</answer>", "y"]],
  },
  {
    name: "deprecated API: structural tag items and triggers (the legacy form)",
    format: {
      type: "structural_tag",
      structures: [
        { begin: "<function=f>", schema: { properties: { arg1: { title: "Arg1", type: "string" }, arg2: { title: "Arg2", type: "integer" } }, required: ["arg1", "arg2"], title: "Schema1", type: "object" }, end: "</function>" },
        { begin: "<function=g>", schema: { properties: { arg3: { title: "Arg3", type: "number" }, arg4: { items: { type: "string" }, title: "Arg4", type: "array" } }, required: ["arg3", "arg4"], title: "Schema2", type: "object" }, end: "</function>" },
      ],
      triggers: ["<function="],
    },
    match: ['x<function=f>{"arg1": "a", "arg2": 1}</function>y<function=g>{"arg3": 1.5, "arg4": ["u"]}</function>', "plain text"],
    prefix: ["<function=g>{"],
    reject: [['<function=f>{"arg1": ', "1}"]],
  },
];

/**
 * The vocabulary of the token-level examples (ids by position, "</s>" the stop token): the
 * special tokens the documentation names, text tokens, and fillers so that ids 42 and 100 exist.
 */
export const DOC_VOCAB: string[] = (() => {
  const v = ["</s>", "<|eos|>", "<|tool_call|>", "<|tool_call_start|>", "<|tool_call_end|>", "<|think_start|>", "<|think_end|>", "<|tool|>",
    "x", "y", "hello", " ", "{", "}", "\"", ":", "a", "1"];
  while (v.length < 42) v.push(`<filler ${v.length}>`);
  v.push("forty-two");
  while (v.length < 100) v.push(`<filler ${v.length}>`);
  v.push("one hundred");
  return v;
})();

export const TOKEN_EXAMPLES: TokenExample[] = [
  {
    name: "token by id",
    format: tok(42),
    match: [[42], ["forty-two"]],
    prefix: [[]],
    reject: [[["x"], 0], [[42, 42], 1]],
  },
  {
    name: "token by text",
    format: tok("<|tool_call|>"),
    match: [["<|tool_call|>"], [2]],
    prefix: [[]],
    reject: [[["hello"], 0], [["</s>"], 0]],
  },
  {
    name: "exclude_token",
    format: { type: "exclude_token", exclude_tokens: [42, "</s>"] },
    match: [["hello"], ["<|tool|>"], [100]],
    prefix: [[]],
    reject: [[[42], 0], [["</s>"], 0], [["hello", "x"], 1]],
  },
  {
    name: "any_tokens",
    format: { type: "any_tokens", exclude_tokens: ["<|eos|>"] },
    match: [[], ["hello", 42, "x", "<|tool_call|>"], ["x", "</s>"]],
    prefix: [],
    reject: [[["hello", "<|eos|>"], 1], [["x", "</s>", "y"], 1]],
  },
  {
    name: "token_triggered_tags",
    format: {
      type: "token_triggered_tags",
      trigger_tokens: ["<|tool_call_start|>"],
      tags: [tag(tok("<|tool_call_start|>"), json({ type: "object" }), tok("<|tool_call_end|>"))],
      exclude_tokens: ["<|eos|>"],
      at_least_one: false,
      stop_after_first: false,
    },
    match: [[], ["hello", "<|tool_call_start|>", "{", "}", "<|tool_call_end|>", "x"], ["<|tool_call_start|>", "{", "\"", "a", "\"", ":", "1", "}", "<|tool_call_end|>"]],
    prefix: [["<|tool_call_start|>", "{"]],
    reject: [[["<|tool_call_start|>", "hello"], 1], [["<|eos|>"], 0], [["<|tool_call_start|>", "{", "}", "x"], 3]],
  },
  {
    name: "token_dispatch",
    format: { type: "token_dispatch", rules: [[100, str("x")], ["<|tool|>", json({ type: "object" })]], loop: true, exclude_tokens: ["</s>"] },
    match: [[], ["hello", 100, "x", "<|tool|>", "{", "}", "y"], ["one hundred", "x", "</s>"]],
    prefix: [[100], ["<|tool|>", "{"]],
    reject: [[[100, "y"], 1], [["<|tool|>", "hello"], 1]],
  },
  {
    name: "recipe: token-level delimiters",
    format: {
      type: "sequence",
      elements: [
        tag(tok("<|think_start|>"), { type: "any_tokens" }, tok("<|think_end|>")),
        {
          type: "token_triggered_tags",
          trigger_tokens: ["<|tool_call_start|>"],
          tags: [tag(tok("<|tool_call_start|>"), json({ type: "object" }), tok("<|tool_call_end|>"))],
          exclude_tokens: ["<|eos|>"],
          at_least_one: true,
        },
      ],
    },
    match: [["<|think_start|>", "hello", "<|think_end|>", "<|tool_call_start|>", "{", "}", "<|tool_call_end|>", "x"]],
    prefix: [["<|think_start|>", "hello"], ["<|think_start|>", "<|think_end|>"]],
    reject: [[["<|think_start|>", "<|think_end|>", "hello"], 2], [["hello"], 0]],
  },
  {
    name: "advanced: a token end stops the token-level content",
    format: tag(tok("<|think_start|>"), { type: "any_tokens" }, tok("<|think_end|>")),
    match: [["<|think_start|>", "x", "<|think_end|>"]],
    prefix: [["<|think_start|>", "x"]],
    reject: [[["<|think_start|>", "<|think_end|>", "<|think_end|>"], 2]],
  },
];
