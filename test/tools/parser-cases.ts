/**
 * Hand-written Kimi K3 outputs for every golden case (golden-cases.ts): each valid output with
 * the reasoning, content and tool calls it must parse to, and malformed outputs with the offset
 * and the expectation the error must report. The grammar-agreement test checks the same texts
 * against the golden case's grammar.
 */
import type { ParsedToolOutput } from "../../lib/tools/types.js";

export interface ValidOutput {
  text: string;
  parsed: ParsedToolOutput;
}

// The markers spelled out once, so the texts below stay readable.
const RESPONSE = "<|open|>response<|sep|>";
const END_RESPONSE = "<|close|>response<|sep|>";
const THINK = "<|open|>think<|sep|>";
const END_THINK = "<|close|>think<|sep|>";
const TOOLS = "<|open|>tools<|sep|>";
const END_TOOLS = "<|close|>tools<|sep|>";
const END_MESSAGE = "<|close|>message<|sep|>";
const STOP = "<|end_of_msg|>";
const END_CALL = "<|close|>call<|sep|>";
const END_ARGUMENT = "<|close|>argument<|sep|>";
const END_JSON = "<|close|>json<|sep|>";

// Calls of the seed tools, written out.
const WEATHER_1 = '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris, France<|close|>argument<|sep|><|close|>call<|sep|>';
const WEATHER_1_CALL = { index: 1, name: "get_weather", arguments: { location: "Paris, France" } };
const WEATHER_JSON_1 = '<|open|>call tool="get_weather" index="1"<|sep|><|open|>json type="object"<|sep|>{"location": "Oslo"}<|close|>json<|sep|><|close|>call<|sep|>';
const WEATHER_JSON_1_CALL = { index: 1, name: "get_weather", arguments: { location: "Oslo" } };
const ADD_2 = '<|open|>call tool="add" index="2"<|sep|><|open|>argument key="y" type="number"<|sep|>-1.5e2<|close|>argument<|sep|><|open|>argument key="x" type="number"<|sep|>7<|close|>argument<|sep|><|open|>argument key="items" type="array"<|sep|>["a", "<|close|>argument<|sep|>", "ü"]<|close|>argument<|sep|><|close|>call<|sep|>';
const ADD_2_CALL = { index: 2, name: "add", arguments: { y: -150, x: 7, items: ["a", "<|close|>argument<|sep|>", "ü"] } };
const ADD_1_JSON = '<|open|>call tool="add" index="1"<|sep|><|open|>json type="object"<|sep|>{"y":1,"x":2,"items":[]}<|close|>json<|sep|><|close|>call<|sep|>';
const ADD_1_JSON_CALL = { index: 1, name: "add", arguments: { y: 1, x: 2, items: [] } };

const call = (name: string, index: number, body: string) => `<|open|>call tool="${name}" index="${index}"<|sep|>${body}<|close|>call<|sep|>`;
const arg = (key: string, type: string, value: string) => `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;
const json = (value: string) => `<|open|>json type="object"<|sep|>${value}<|close|>json<|sep|>`;
const tools = (...calls: string[]) => `${TOOLS}${calls.join("")}${END_TOOLS}`;

/** Valid outputs per golden case name. */
export const VALID: Record<string, ValidOutput[]> = {
  // ---- tool_choice auto, final_output_only: the response text first, tools optional.
  "choice-auto.final-output-only.parallel": [
    { text: `It is 20 °C in Paris.${END_RESPONSE}`, parsed: { content: "It is 20 °C in Paris.", toolCalls: [] } },
    { text: `${END_RESPONSE}${END_MESSAGE}`, parsed: { content: "", toolCalls: [] } },
    {
      text: `${RESPONSE}Checking both.${END_RESPONSE}${tools(WEATHER_1, ADD_2)}${END_MESSAGE}${STOP}`,
      parsed: { content: "Checking both.", toolCalls: [WEATHER_1_CALL, ADD_2_CALL] },
    },
  ],
  "choice-auto.final-output-only.single": [
    { text: `Done.${END_RESPONSE}${STOP}`, parsed: { content: "Done.", toolCalls: [] } },
    { text: `${END_RESPONSE}${tools(ADD_1_JSON)}`, parsed: { content: "", toolCalls: [ADD_1_JSON_CALL] } },
  ],
  // ---- tool_choice auto, think: the think channel's rest, then a response and/or tools.
  "choice-auto.think.parallel": [
    { text: `The user wants weather.${END_THINK}${tools(WEATHER_1, ADD_2)}${END_MESSAGE}`, parsed: { reasoning: "The user wants weather.", content: "", toolCalls: [WEATHER_1_CALL, ADD_2_CALL] } },
    { text: `${END_THINK}${RESPONSE}Hello!${END_RESPONSE}`, parsed: { reasoning: "", content: "Hello!", toolCalls: [] } },
    { text: `a <|open|> inside <|close|>thinking is fine${END_THINK}${RESPONSE}One moment.${END_RESPONSE}${tools(WEATHER_JSON_1)}`, parsed: { reasoning: "a <|open|> inside <|close|>thinking is fine", content: "One moment.", toolCalls: [WEATHER_JSON_1_CALL] } },
  ],
  "choice-auto.think.single": [
    { text: `hmm${END_THINK}${tools(WEATHER_1)}`, parsed: { reasoning: "hmm", content: "", toolCalls: [WEATHER_1_CALL] } },
    { text: `ok${END_THINK}${RESPONSE}Hi.${END_RESPONSE}${END_MESSAGE}${STOP}`, parsed: { reasoning: "ok", content: "Hi.", toolCalls: [] } },
  ],
  // ---- tool_choice auto, auto: an optional whole think channel first.
  "choice-auto.auto.parallel": [
    { text: `${RESPONSE}No tools needed.${END_RESPONSE}`, parsed: { content: "No tools needed.", toolCalls: [] } },
    { text: `${THINK}plan${END_THINK}${tools(WEATHER_1, ADD_2)}${END_MESSAGE}`, parsed: { reasoning: "plan", content: "", toolCalls: [WEATHER_1_CALL, ADD_2_CALL] } },
  ],
  "choice-auto.auto.single": [
    { text: `${THINK}${END_THINK}${RESPONSE}x${END_RESPONSE}${tools(ADD_1_JSON)}`, parsed: { reasoning: "", content: "x", toolCalls: [ADD_1_JSON_CALL] } },
    { text: `${tools(WEATHER_1)}${STOP}`, parsed: { content: "", toolCalls: [WEATHER_1_CALL] } },
  ],
  // ---- tool_choice required: the response (final) or an optional response, then tools.
  "choice-required.final-output-only.parallel": [
    { text: `${END_RESPONSE}${tools(WEATHER_1, ADD_2)}`, parsed: { content: "", toolCalls: [WEATHER_1_CALL, ADD_2_CALL] } },
    { text: `${RESPONSE}Let me add.${END_RESPONSE}${tools(ADD_1_JSON)}${END_MESSAGE}`, parsed: { content: "Let me add.", toolCalls: [ADD_1_JSON_CALL] } },
  ],
  "choice-required.final-output-only.single": [
    { text: `Sure.${END_RESPONSE}${tools(WEATHER_JSON_1)}${END_MESSAGE}${STOP}`, parsed: { content: "Sure.", toolCalls: [WEATHER_JSON_1_CALL] } },
  ],
  "choice-required.think.parallel": [
    { text: `two calls${END_THINK}${tools(WEATHER_1, ADD_2)}`, parsed: { reasoning: "two calls", content: "", toolCalls: [WEATHER_1_CALL, ADD_2_CALL] } },
    { text: `${END_THINK}${RESPONSE}…${END_RESPONSE}${tools(WEATHER_1)}${END_MESSAGE}`, parsed: { reasoning: "", content: "…", toolCalls: [WEATHER_1_CALL] } },
  ],
  "choice-required.think.single": [
    { text: `one${END_THINK}${tools(ADD_1_JSON)}`, parsed: { reasoning: "one", content: "", toolCalls: [ADD_1_JSON_CALL] } },
  ],
  "choice-required.auto.parallel": [
    { text: `${tools(ADD_1_JSON, call("get_weather", 2, arg("location", "string", "Rome")))}`, parsed: { content: "", toolCalls: [ADD_1_JSON_CALL, { index: 2, name: "get_weather", arguments: { location: "Rome" } }] } },
    { text: `${THINK}t${END_THINK}${RESPONSE}r${END_RESPONSE}${tools(WEATHER_1)}${END_MESSAGE}`, parsed: { reasoning: "t", content: "r", toolCalls: [WEATHER_1_CALL] } },
  ],
  "choice-required.auto.single": [
    { text: `${THINK}multi\nline\n${END_THINK}${tools(WEATHER_1)}`, parsed: { reasoning: "multi\nline\n", content: "", toolCalls: [WEATHER_1_CALL] } },
  ],
  // ---- a named tool: only get_weather.
  "choice-named.final-output-only.parallel": [
    {
      text: `${END_RESPONSE}${tools(WEATHER_1, call("get_weather", 2, arg("location", "string", "")))}`,
      parsed: { content: "", toolCalls: [WEATHER_1_CALL, { index: 2, name: "get_weather", arguments: { location: "" } }] },
    },
  ],
  "choice-named.final-output-only.single": [
    { text: `${RESPONSE}${END_RESPONSE}${tools(WEATHER_JSON_1)}`, parsed: { content: "", toolCalls: [WEATHER_JSON_1_CALL] } },
  ],
  "choice-named.think.parallel": [
    { text: `x${END_THINK}${RESPONSE}y${END_RESPONSE}${tools(WEATHER_1, WEATHER_JSON_1.replace('index="1"', 'index="2"'))}`, parsed: { reasoning: "x", content: "y", toolCalls: [WEATHER_1_CALL, { ...WEATHER_JSON_1_CALL, index: 2 }] } },
  ],
  "choice-named.think.single": [
    { text: `${END_THINK}${tools(WEATHER_1)}${END_MESSAGE}`, parsed: { reasoning: "", content: "", toolCalls: [WEATHER_1_CALL] } },
  ],
  "choice-named.auto.parallel": [
    { text: `${THINK}weather${END_THINK}${tools(WEATHER_1)}`, parsed: { reasoning: "weather", content: "", toolCalls: [WEATHER_1_CALL] } },
  ],
  "choice-named.auto.single": [
    { text: `${RESPONSE}Looking it up.${END_RESPONSE}${tools(WEATHER_1)}${STOP}`, parsed: { content: "Looking it up.", toolCalls: [WEATHER_1_CALL] } },
  ],
  // ---- schema features (final_output_only, the tool forced).
  "schema-set_unit": [
    {
      text: `${END_RESPONSE}${tools(call("set_unit", 1, arg("unit", "string", "celsius") + arg("level", "number", "2") + arg("only", "string", "yes")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "set_unit", arguments: { unit: "celsius", level: 2, only: "yes" } }] },
    },
    {
      text: `${END_RESPONSE}${tools(call("set_unit", 1, arg("unit", "string", "fahrenheit") + arg("level", "null", "null") + arg("only", "string", "yes")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "set_unit", arguments: { unit: "fahrenheit", level: null, only: "yes" } }] },
    },
  ],
  "schema-search": [
    {
      text: `${END_RESPONSE}${tools(call("search", 1, arg("query", "string", "tagmask grammar")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "search", arguments: { query: "tagmask grammar" } }] },
    },
    {
      text: `${END_RESPONSE}${tools(call("search", 1, arg("limit", "number", "10") + arg("query", "string", "a\tb") + arg("exact", "boolean", "true")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "search", arguments: { limit: 10, query: "a\tb", exact: true } }] },
    },
  ],
  "schema-plan_route": [
    {
      text: `${END_RESPONSE}${tools(call("plan_route", 1, arg("from", "object", '{"name": "home", "near": [1, 2]}') + arg("to", "object", '{"name":"work"}') + arg("mode", "string", "bike") + arg("stops", "array", '[{"minutes": 5}]')))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "plan_route", arguments: { from: { name: "home", near: [1, 2] }, to: { name: "work" }, mode: "bike", stops: [{ minutes: 5 }] } }] },
    },
  ],
  "schema-set_value": [
    {
      text: `${END_RESPONSE}${tools(call("set_value", 1, arg("value", "boolean", "false") + arg("count", "null", "null") + arg("either", "string", "abc") + arg("anything", "object", '{"k": [null]}')))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "set_value", arguments: { value: false, count: null, either: "abc", anything: { k: [null] } } }] },
    },
    {
      text: `${END_RESPONSE}${tools(call("set_value", 1, arg("value", "string", "text") + arg("count", "number", "3") + arg("either", "array", "[1,2]") + arg("anything", "number", "0.5")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "set_value", arguments: { value: "text", count: 3, either: [1, 2], anything: 0.5 } }] },
    },
  ],
  "schema-resize": [
    {
      text: `${END_RESPONSE}${tools(call("resize", 1, arg("width", "number", "640") + arg("scale", "number", "0.25") + arg("steps", "number", "-3")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "resize", arguments: { width: 640, scale: 0.25, steps: -3 } }] },
    },
  ],
  "schema-create_user": [
    {
      text: `${END_RESPONSE}${tools(call("create_user", 1, arg("user", "object", '{"name": "Ada", "address": {"city": "London"}}') + arg("notify", "boolean", "true")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "create_user", arguments: { user: { name: "Ada", address: { city: "London" } }, notify: true } }] },
    },
  ],
  "schema-tag_items": [
    {
      text: `${END_RESPONSE}${tools(call("tag_items", 1, arg("tags", "array", '["x"]') + arg("matrix", "array", "[[1,2],[3]]") + arg("mixed", "array", '["a", 1]')))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "tag_items", arguments: { tags: ["x"], matrix: [[1, 2], [3]], mixed: ["a", 1] } }] },
    },
  ],
  "schema-say-hi-wave": [
    {
      text: `${END_RESPONSE}${tools(call("say &quot;hi&quot; &amp; wave", 1, arg("a&amp;b", "string", "x & y") + arg("&quot;quoted&quot;", "number", "4")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: 'say "hi" & wave', arguments: { "a&b": "x & y", '"quoted"': 4 } }] },
    },
  ],
  "schema-notes": [
    {
      text: `${END_RESPONSE}${tools(call("notes", 1, arg("anything", "string", "free") + arg("n", "number", "1") + arg("a&amp;b", "array", "[]")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "notes", arguments: { anything: "free", n: 1, "a&b": [] } }] },
    },
    { text: `${END_RESPONSE}${tools(call("notes", 1, ""))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "notes", arguments: {} }] } },
  ],
  "schema-ping": [
    { text: `${END_RESPONSE}${tools(call("ping", 1, json('{"any": {"thing": true}}')))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "ping", arguments: { any: { thing: true } } }] } },
  ],
  "schema-no_args": [
    { text: `${END_RESPONSE}${tools(call("no_args", 1, ""))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "no_args", arguments: {} }] } },
    { text: `${END_RESPONSE}${tools(call("no_args", 1, json("{}")))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "no_args", arguments: {} }] } },
  ],
  "schema-codes": [
    {
      text: `${END_RESPONSE}${tools(call("codes", 1, arg("airport", "string", "OSL") + arg("ticket", "string", "no 42!") + arg("prefix", "string", "abc") + arg("short", "string", "") + arg("title", "string", "T") + arg("word", "string", "hi <there>") + arg("size", "string", "M")))}`,
      parsed: { content: "", toolCalls: [{ index: 1, name: "codes", arguments: { airport: "OSL", ticket: "no 42!", prefix: "abc", short: "", title: "T", word: "hi <there>", size: "M" } }] },
    },
  ],
  "schema-schedule": [
    { text: `${END_RESPONSE}${tools(call("schedule", 1, json('{"day": "2024-02-29"}')))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "schedule", arguments: { day: "2024-02-29" } }] } },
  ],
  "schema-scores": [
    { text: `${END_RESPONSE}${tools(call("scores", 1, arg("alice", "number", "9.5") + arg("bob", "number", "7")))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "scores", arguments: { alice: 9.5, bob: 7 } }] } },
  ],
  "schema-open_object": [
    { text: `${END_RESPONSE}${tools(call("open_object", 1, json('{"a": "x", "extra": 1}')))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "open_object", arguments: { a: "x", extra: 1 } }] } },
  ],
  "schema-untyped": [
    { text: `${END_RESPONSE}${tools(call("untyped", 1, arg("x", "number", "1e3")))}`, parsed: { content: "", toolCalls: [{ index: 1, name: "untyped", arguments: { x: 1000 } }] } },
  ],
  // ---- answer constraints.
  "answer.none.final-output-only": [
    { text: `{"answer": "42"}${END_RESPONSE}`, parsed: { content: '{"answer": "42"}', toolCalls: [] } },
    { text: `${RESPONSE}{"answer":""}${END_RESPONSE}${END_MESSAGE}`, parsed: { content: '{"answer":""}', toolCalls: [] } },
  ],
  "answer.none.think": [
    { text: `compute${END_THINK}${RESPONSE}{"answer": "4"}${END_RESPONSE}`, parsed: { reasoning: "compute", content: '{"answer": "4"}', toolCalls: [] } },
  ],
  "answer.none.auto": [
    { text: `${RESPONSE}{"answer": "a"}${END_RESPONSE}${STOP}`, parsed: { content: '{"answer": "a"}', toolCalls: [] } },
    { text: `${THINK}t${END_THINK}${RESPONSE}{"answer": "b"}${END_RESPONSE}`, parsed: { reasoning: "t", content: '{"answer": "b"}', toolCalls: [] } },
  ],
  "answer.auto.final-output-only": [
    { text: `{"answer": "sunny"}${END_RESPONSE}`, parsed: { content: '{"answer": "sunny"}', toolCalls: [] } },
    { text: `${END_RESPONSE}${tools(WEATHER_1)}`, parsed: { content: "", toolCalls: [WEATHER_1_CALL] } },
    { text: `{"answer": "both"}${END_RESPONSE}${tools(ADD_1_JSON)}${END_MESSAGE}`, parsed: { content: '{"answer": "both"}', toolCalls: [ADD_1_JSON_CALL] } },
  ],
  "answer.named.think": [
    { text: `r${END_THINK}${tools(WEATHER_1)}`, parsed: { reasoning: "r", content: "", toolCalls: [WEATHER_1_CALL] } },
    { text: `r${END_THINK}${RESPONSE}${END_RESPONSE}${tools(WEATHER_JSON_1)}`, parsed: { reasoning: "r", content: "", toolCalls: [WEATHER_JSON_1_CALL] } },
    { text: `r${END_THINK}${RESPONSE}{}${END_RESPONSE}${tools(WEATHER_1)}`, parsed: { reasoning: "r", content: "{}", toolCalls: [WEATHER_1_CALL] } },
  ],
  "answer.auto-choice.auto": [
    { text: `${RESPONSE}yes.${END_RESPONSE}`, parsed: { content: "yes.", toolCalls: [] } },
    { text: `${THINK}?${END_THINK}${RESPONSE}${END_RESPONSE}${tools(ADD_1_JSON)}`, parsed: { reasoning: "?", content: "", toolCalls: [ADD_1_JSON_CALL] } },
    { text: `${tools(WEATHER_1)}`, parsed: { content: "", toolCalls: [WEATHER_1_CALL] } },
  ],
  "answer.required.final-output-only": [
    { text: `${END_RESPONSE}${tools(WEATHER_1)}`, parsed: { content: "", toolCalls: [WEATHER_1_CALL] } },
    { text: `${RESPONSE}done${END_RESPONSE}${tools(ADD_1_JSON)}${END_MESSAGE}`, parsed: { content: "done", toolCalls: [ADD_1_JSON_CALL] } },
  ],
  "allowed-required.final-output-only": [
    { text: `adding${END_RESPONSE}${tools(ADD_1_JSON, ADD_2)}`, parsed: { content: "adding", toolCalls: [ADD_1_JSON_CALL, ADD_2_CALL] } },
  ],
  "allowed-auto.think": [
    { text: `${END_THINK}${RESPONSE}hi${END_RESPONSE}`, parsed: { reasoning: "", content: "hi", toolCalls: [] } },
    { text: `w${END_THINK}${tools(WEATHER_1)}`, parsed: { reasoning: "w", content: "", toolCalls: [WEATHER_1_CALL] } },
  ],
};

/** Where a malformed text's error is: the test removes this mark and expects the error at its offset. */
export const ERROR_MARK = "⁁";

/**
 * Malformed outputs: in which golden case's reasoning mode to parse them, where the error is
 * (ERROR_MARK) and what it must say was expected. Every one is also outside that case's grammar
 * (`bySchema`: only once the lowering enforces JSON schemas).
 */
export const MALFORMED: { what: string; case: string; text: string; expected: RegExp; bySchema?: true }[] = [
  { what: "response text never closed", case: "choice-auto.final-output-only.parallel", text: "Hello⁁", expected: /^"<\|close\|>response<\|sep\|>" to end the response text$/ },
  { what: "empty final output", case: "choice-auto.final-output-only.parallel", text: "⁁", expected: /"<\|close\|>response<\|sep\|>" to end the response text/ },
  { what: "a marker inside the response text", case: "choice-auto.final-output-only.parallel", text: `Hi ⁁<|open|>there${END_RESPONSE}`, expected: /the response text may not contain "<\|open\|>"/ },
  { what: "the stop text inside the response", case: "choice-auto.final-output-only.parallel", text: `Hi⁁${STOP}`, expected: /may not contain "<\|end_of_msg\|>"/ },
  { what: "another channel's close in the response", case: "choice-auto.final-output-only.parallel", text: `Hi⁁${END_THINK}`, expected: /may not contain "<\|close\|>"/ },
  { what: "an empty tools channel", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}⁁${END_TOOLS}`, expected: /^a tool call "<\|open\|>call tool=\\""$/ },
  { what: "tools channel never closed", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}${WEATHER_1}⁁`, expected: /^"<\|open\|>call tool=\\"" or "<\|close\|>tools<\|sep\|>"$/ },
  { what: "index 0", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="get_weather" index="⁁0"<|sep|>${END_CALL}${END_TOOLS}`, expected: /^a call index 1, 2, … \(a digit 1-9\)$/ },
  { what: "no index digits", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="⁁"<|sep|>`, expected: /a call index/ },
  { what: "an index that never ends", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="12⁁`, expected: /^more digits or "\\"<\|sep\|>"$/ },
  { what: "an empty tool name", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="⁁" index="1"<|sep|>`, expected: /^the tool name \(a non-empty attribute value\)$/ },
  { what: "a bare & in a name", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="a⁁&b" index="1"<|sep|>`, expected: /^"&amp;" or "&quot;" \(a bare "&" is not allowed in the tool name\)$/ },
  { what: "a name never closed", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add⁁`, expected: /the rest of the tool name and its closing/ },
  { what: "an unknown argument type", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>argument key="x" type="⁁integer"<|sep|>1${END_ARGUMENT}${END_CALL}${END_TOOLS}`, expected: /^an argument type \(string, number, boolean, null, object, array\)$/ },
  { what: "a number that is not JSON", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>argument key="x" type="number"<|sep|>⁁abc${END_ARGUMENT}${END_CALL}${END_TOOLS}`, expected: /^a JSON value$/ },
  { what: "a value of another type", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>argument key="x" type="number"<|sep|> ⁁"5"${END_ARGUMENT}${END_CALL}${END_TOOLS}`, expected: /^a number \(the argument's type attribute says number\)$/ },
  { what: "JSON cut short by the close marker", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>argument key="items" type="array"<|sep|>["a",⁁${END_ARGUMENT}${END_CALL}${END_TOOLS}`, expected: /^a JSON value$/ },
  { what: "JSON with a trailing comma", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>json type="object"<|sep|>{"x": 1,⁁}${END_JSON}${END_CALL}${END_TOOLS}`, expected: /^a string key$/ },
  { what: "a string argument holding the call close", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Pa⁁${END_CALL}${END_TOOLS}`, expected: /a string argument may not contain "<\|close\|>call<\|sep\|>"/ },
  { what: "JSON form that is not an object", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>json type="object"<|sep|>⁁[1]${END_JSON}${END_CALL}${END_TOOLS}`, expected: /^an object \(the arguments of the JSON object form\)$/, bySchema: true },
  { what: "an argument after the JSON form", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>json type="object"<|sep|>{}${END_JSON}⁁<|open|>argument key="x" type="number"<|sep|>1${END_ARGUMENT}${END_CALL}${END_TOOLS}`, expected: /^"<\|close\|>call<\|sep\|>"$/ },
  { what: "the JSON form after an argument", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>argument key="x" type="number"<|sep|>1${END_ARGUMENT}⁁<|open|>json type="object"<|sep|>{}${END_JSON}${END_CALL}${END_TOOLS}`, expected: /^"<\|open\|>argument key=\\"" or "<\|close\|>call<\|sep\|>"$/ },
  { what: "a call never closed", case: "choice-required.final-output-only.parallel", text: `${END_RESPONSE}${TOOLS}<|open|>call tool="add" index="1"<|sep|><|open|>argument key="x" type="number"<|sep|>1${END_ARGUMENT}⁁${END_TOOLS}`, expected: /^"<\|open\|>argument key=\\"" or "<\|close\|>call<\|sep\|>"$/ },
  { what: "text after the end of the message", case: "choice-auto.final-output-only.parallel", text: `ok${END_RESPONSE}${END_MESSAGE}⁁more`, expected: /^"<\|end_of_msg\|>" or the end of the text$/ },
  { what: "text after the stop text", case: "choice-auto.final-output-only.parallel", text: `ok${END_RESPONSE}${STOP}⁁${END_MESSAGE}`, expected: /^the end of the text \(nothing may follow the end of the message\)$/ },
  { what: "a response after the tools", case: "choice-auto.auto.parallel", text: `${tools(WEATHER_1)}⁁${RESPONSE}late${END_RESPONSE}`, expected: /^"<\|close\|>message<\|sep\|>" or "<\|end_of_msg\|>" or the end of the text$/ },
  { what: "two think channels", case: "choice-auto.auto.parallel", text: `${THINK}a${END_THINK}⁁${THINK}b${END_THINK}`, expected: /^"<\|open\|>response<\|sep\|>" or "<\|open\|>tools<\|sep\|>"$/ },
  { what: "nothing at all in auto mode", case: "choice-auto.auto.parallel", text: "⁁", expected: /^"<\|open\|>think<\|sep\|>" or "<\|open\|>response<\|sep\|>" or "<\|open\|>tools<\|sep\|>"$/ },
  { what: "plain text in auto mode", case: "choice-auto.auto.parallel", text: "⁁Hello", expected: /^"<\|open\|>think<\|sep\|>" or/ },
  { what: "only reasoning", case: "choice-auto.think.parallel", text: `thinking${END_THINK}⁁`, expected: /^"<\|open\|>response<\|sep\|>" or "<\|open\|>tools<\|sep\|>"$/ },
  { what: "the stop text inside the reasoning", case: "choice-auto.think.parallel", text: `a⁁${STOP}`, expected: /the reasoning may not contain "<\|end_of_msg\|>"/ },
  { what: "reasoning never closed", case: "choice-auto.think.parallel", text: "so⁁", expected: /^"<\|close\|>think<\|sep\|>" to end the reasoning$/ },
  { what: "a misspelt channel", case: "choice-auto.think.parallel", text: `x${END_THINK}⁁<|open|>tool<|sep|>`, expected: /^"<\|open\|>response<\|sep\|>" or "<\|open\|>tools<\|sep\|>"$/ },
];
