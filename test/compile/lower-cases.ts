/**
 * The lowering table: for each format (plain JSON objects, as a user would write them), strings
 * that must match, viable prefixes that must not yet match, and strings that must be rejected.
 * Formats are `unknown` here on purpose: lowerFormat checks and normalizes its input.
 */
export interface LowerCase {
  name: string;
  format: unknown;
  match: Array<string | Uint8Array>;
  prefix: Array<string | Uint8Array>;
  reject: Array<string | Uint8Array>;
}

const bytes = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

const tool = (name: string, content: unknown): Record<string, unknown> => ({ begin: `<tool=${name}>`, content, end: "</tool>" });
const toolA = tool("a", { type: "any_text" });
const toolB = tool("b", { type: "json_schema", json_schema: true });

const ab = [
  { type: "tag", begin: "<a>", content: { type: "const_string", value: "1" }, end: "</a>" },
  { type: "tag", begin: "<b>", content: { type: "regex", pattern: "\\d" }, end: "</b>" },
];

export const lowerCases: LowerCase[] = [
  {
    name: "const_string",
    format: { type: "const_string", value: "hello é" },
    match: ["hello é"],
    prefix: ["", "hel", "hello ", bytes(0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0xc3)],
    reject: ["hello", "hello éx", "Hello é", "hello e"],
  },
  { name: "const_string empty", format: { type: "const_string", value: "" }, match: [""], prefix: [], reject: ["a", " "] },
  {
    name: "regex",
    format: { type: "regex", pattern: "[a-c]+\\d{2}" },
    match: ["a12", "abc99", "cccc00"],
    prefix: ["", "ab", "a1"],
    reject: ["12", "a123", "ad12", "A12"],
  },
  {
    name: "regex with alternation and unicode",
    format: { type: "regex", pattern: "^(?:yes|no|é+)$" },
    match: ["yes", "no", "é", "ééé"],
    prefix: ["y", "n", bytes(0xc3)],
    reject: ["yesno", "e", "", "nope"],
  },
  {
    name: "grammar",
    format: { type: "grammar", grammar: 'root ::= "(" item ("," item)* ")"\nitem ::= [0-9]+ | root\n' },
    match: ["(1)", "(1,(2,3))", "(((7)))", "(10,20)"],
    prefix: ["", "((", "(1,", "(1,(2"],
    reject: ["()", "(1,)", "1", "(1))", "(a)"],
  },
  {
    name: "json_schema (true) with max_whitespace_cnt",
    format: { type: "json_schema", json_schema: true, max_whitespace_cnt: 1 },
    match: ['{"a": 1}', "[1, 2]", '"x"', "null", '{"a":{"b":[true, false]}}'],
    prefix: ["{", '{"a": ', "[1,", "tr"],
    reject: ['{"a":  1}', "[1,  2]", "{'a': 1}", "[1,]", "", " 1"],
  },
  {
    name: "any_text with excludes",
    format: { type: "any_text", excludes: ["</x>", "STOP"] },
    match: ["", "abc", "</y>", "ST0P", "é😀", "STO", "</x"],
    prefix: [bytes(0xe2, 0x82), bytes(0x61, 0xf0)],
    reject: ["a</x>", "STOP", "xSTOPx", bytes(0xff), bytes(0xc3, 0x41)],
  },
  {
    name: "any_text with max_chars and max_tokens",
    format: { type: "any_text", max_chars: 3, max_tokens: 2 },
    match: ["", "abc", "é😀x", "a"],
    prefix: [bytes(0x61, 0x62, 0xc3)],
    reject: ["abcd", "é😀xy", bytes(0x61, 0x62, 0x63, 0xc3)],
  },
  {
    name: "sequence",
    format: { type: "sequence", elements: [{ type: "const_string", value: "a" }, { type: "regex", pattern: "[0-9]+" }, { type: "const_string", value: "b" }] },
    match: ["a1b", "a123b"],
    prefix: ["", "a", "a1", "a12"],
    reject: ["ab", "b", "a1bb", "1b"],
  },
  {
    name: "or",
    format: { type: "or", elements: [{ type: "const_string", value: "yes" }, { type: "const_string", value: "no" }, { type: "regex", pattern: "maybe\\d?" }] },
    match: ["yes", "no", "maybe", "maybe7"],
    prefix: ["", "y", "ye", "mayb"],
    reject: ["yesno", "maybe77", "nope"],
  },
  {
    name: "optional",
    format: { type: "sequence", elements: [{ type: "const_string", value: "a" }, { type: "optional", content: { type: "const_string", value: "bc" } }, { type: "const_string", value: "d" }] },
    match: ["ad", "abcd"],
    prefix: ["a", "ab", "abc"],
    reject: ["abd", "abcbcd", "d"],
  },
  {
    name: "star",
    format: { type: "star", content: { type: "or", elements: [{ type: "const_string", value: "ab" }, { type: "const_string", value: "c" }] } },
    match: ["", "ab", "c", "abcab", "ccc"],
    prefix: ["a", "cca"],
    reject: ["b", "aab", "abb"],
  },
  {
    name: "plus",
    format: { type: "plus", content: { type: "regex", pattern: "[xy]" } },
    match: ["x", "xyyx"],
    prefix: [""],
    reject: ["z", "xz"],
  },
  {
    name: "repeat bounded",
    format: { type: "repeat", min: 2, max: 3, content: { type: "const_string", value: "ab" } },
    match: ["abab", "ababab"],
    prefix: ["", "ab", "aba"],
    reject: ["abababab", "aa"],
  },
  {
    name: "repeat unbounded",
    format: { type: "repeat", min: 1, max: -1, content: { type: "const_string", value: "z" } },
    match: ["z", "zzzzzzzzzz"],
    prefix: [""],
    reject: ["y", "zy"],
  },
  {
    name: "tag with any_text ends at the end string",
    format: { type: "tag", begin: "<a>", content: { type: "any_text" }, end: "</a>" },
    match: ["<a></a>", "<a>x</b></a>", "<a><a></a>", "<a>é</a>"],
    prefix: ["", "<a", "<a>x", "<a>hi</", "<a>hi</a"],
    reject: ["<a>x</a></a>", "<a>x</a>y", "<b></a>"],
  },
  {
    name: "tag with several ends",
    format: { type: "tag", begin: "<a>", content: { type: "any_text", excludes: ["!"] }, end: ["</a>", "</A>"] },
    match: ["<a>x</A>", "<a>x</a>", "<a></A>"],
    prefix: ["<a>x</"],
    reject: ["<a>x</a>y</A>", "<a>x</A>y</a>", "<a>!</a>", "<a>x</a></A>"],
  },
  {
    name: "tag with an empty end among others",
    format: { type: "tag", begin: "[", content: { type: "any_text" }, end: ["", "]"] },
    match: ["[", "[abc", "[abc]"],
    prefix: [],
    reject: ["[a]b", "x", "[a]]"],
  },
  {
    name: "any_text deeper inside a tag excludes the tag's end",
    format: { type: "tag", begin: "<a>", content: { type: "sequence", elements: [{ type: "any_text" }, { type: "const_string", value: "!" }] }, end: "</a>" },
    match: ["<a>hi!</a>", "<a>!</a>", "<a>!!</a>"],
    prefix: ["<a>hi", "<a>hi!"],
    reject: ["<a>hi</a>!</a>", "<a>hi</a>"],
  },
  {
    name: "nested tags: the innermost tag's ends only",
    format: {
      type: "tag",
      begin: "<o>",
      content: { type: "sequence", elements: [{ type: "tag", begin: "<i>", content: { type: "any_text" }, end: "</i>" }, { type: "any_text" }] },
      end: "</o>",
    },
    match: ["<o><i>a</o>b</i>c</o>", "<o><i></i></o>", "<o><i>x</i></i></o>"],
    prefix: ["<o><i>a</o>"],
    reject: ["<o><i>a</i>b</o>c</o>", "<o>a</o>"],
  },
  {
    name: "triggered_tags",
    format: { type: "triggered_tags", triggers: ["<tool"], tags: [toolA, toolB], excludes: ["<bad>"] },
    match: ["", "hello", "hi <tool=a>x</tool> bye", "<tool=b>[1]</tool><tool=a></tool>", "a<too"],
    prefix: ["hi <tool", "<tool=", "<tool=b>[1", "<tool=a>x</tool"],
    reject: ["hi <tool=c>", "<bad>", "<tool=a>x</tool><bad>", "<tool>", "<tool=b>x</tool>"],
  },
  {
    name: "triggered_tags at_least_one",
    format: { type: "triggered_tags", triggers: ["<tool"], tags: [toolA, toolB], at_least_one: true },
    match: ["<tool=a>x</tool>rest", "<tool=a></tool><tool=b>1</tool>"],
    prefix: ["", "<tool", "<tool=a>x</tool>a<tool"],
    reject: ["hello<tool=a>x</tool>", "x"],
  },
  {
    name: "triggered_tags stop_after_first",
    format: { type: "triggered_tags", triggers: ["<tool"], tags: [toolA, toolB], stop_after_first: true },
    match: ["hi<tool=a>x</tool>", "hi", "", "<tool=b>2</tool>"],
    prefix: ["hi<tool=a>x"],
    reject: ["hi<tool=a>x</tool>more", "<tool=a></tool><tool=b>1</tool>"],
  },
  {
    name: "triggered_tags at_least_one and stop_after_first",
    format: { type: "triggered_tags", triggers: ["<tool"], tags: [toolA, toolB], at_least_one: true, stop_after_first: true },
    match: ["<tool=a>x</tool>", "<tool=b>{}</tool>"],
    prefix: ["", "<tool=a>"],
    reject: ["<tool=a>x</tool>x", "x<tool=a>x</tool>", "<tool=a></tool><tool=a></tool>"],
  },
  {
    name: "triggered_tags with two triggers",
    format: {
      type: "triggered_tags",
      triggers: ["<f=", "[call"],
      tags: [{ begin: "<f=1>", content: { type: "const_string", value: "one" }, end: "</f>" }, { begin: "[call]", content: { type: "regex", pattern: "[a-z]+" }, end: "[/call]" }],
    },
    match: ["x<f=1>one</f>y[call]abc[/call]", "[ca", "<f"],
    prefix: ["<f=1>on", "[call]a"],
    reject: ["<f=2>", "[call]ABC[/call]", "<f=1>two</f>"],
  },
  {
    name: "triggered_tags inside a tag: free text ends at the tag's end",
    format: {
      type: "tag",
      begin: "<msg>",
      content: { type: "triggered_tags", triggers: ["<tool"], tags: [toolA] },
      end: "</msg>",
    },
    match: ["<msg>hi<tool=a>x</tool>bye</msg>", "<msg></msg>", "<msg><tool=a></msg></tool></msg>"],
    prefix: ["<msg>hi", "<msg>hi</msg"],
    reject: ["<msg>a</msg>b</msg>", "<msg>a</msg>x"],
  },
  {
    name: "tags_with_separator",
    format: { type: "tags_with_separator", tags: ab, separator: ", " },
    match: ["", "<a>1</a>", "<a>1</a>, <b>2</b>, <a>1</a>"],
    prefix: ["<a>1</a>, <", "<b>", "<a>1</a>,"],
    reject: ["<a>1</a><b>2</b>", ", <a>1</a>", "<a>2</a>", "text"],
  },
  {
    name: "tags_with_separator at_least_one",
    format: { type: "tags_with_separator", tags: ab, separator: "\n", at_least_one: true },
    match: ["<b>9</b>", "<a>1</a>\n<b>9</b>"],
    prefix: ["", "<a>1</a>\n"],
    reject: ["<a>1</a>\n\n<b>9</b>", "<a>1</a> <b>9</b>"],
  },
  {
    name: "tags_with_separator stop_after_first",
    format: { type: "tags_with_separator", tags: ab, separator: ",", stop_after_first: true },
    match: ["", "<a>1</a>", "<b>0</b>"],
    prefix: ["<a>"],
    reject: ["<a>1</a>,<b>2</b>", "<a>1</a>,"],
  },
  {
    name: "tags_with_separator at_least_one and stop_after_first",
    format: { type: "tags_with_separator", tags: ab, separator: ",", at_least_one: true, stop_after_first: true },
    match: ["<a>1</a>", "<b>5</b>"],
    prefix: [""],
    reject: ["<a>1</a>,<a>1</a>", "<a>1</a>,"],
  },
  {
    name: "tags_with_separator with an empty separator inside a tag",
    format: { type: "tag", begin: "<list>", content: { type: "tags_with_separator", tags: ab, separator: "" }, end: "</list>" },
    match: ["<list></list>", "<list><a>1</a><b>2</b></list>"],
    prefix: ["<list><a>1</a>"],
    reject: ["<list>x</list>", "<list><a>1</a>,<b>2</b></list>"],
  },
  {
    name: "json_schema in a tag",
    format: { type: "tag", begin: "<json>", content: { type: "json_schema", json_schema: true }, end: "</json>" },
    match: ['<json>{"a": [1, "</json>"]}</json>', "<json>1</json>"],
    prefix: ['<json>{"a": "</json>'],
    reject: ["<json></json>", "<json>1 </json>", "<json>{}</json>x"],
  },
];

lowerCases.push({
  name: "the same grammar twice shares its rules; different grammars get their own prefixes",
  format: {
    type: "sequence",
    elements: [
      { type: "grammar", grammar: 'root ::= [a-z]+ ":"' },
      { type: "grammar", grammar: 'root ::= "=" val\nval ::= [0-9]+' },
      { type: "grammar", grammar: 'root ::= [a-z]+ ":"' },
    ],
  },
  match: ["ab:=12cd:", "x:=0y:"],
  prefix: ["ab:", "ab:=1"],
  reject: ["ab:=cd:", ":=1a:", "ab:=1cd"],
});
