/**
 * EBNF test grammars with strings each must and must not match. `llama` marks sources that are
 * also valid llama.cpp GBNF as written (no '_' in names, rules continue only after '|' or inside
 * parentheses), so node-llama-cpp's own parser can be used as a second oracle.
 */
export interface GrammarCase {
  name: string;
  source: string;
  match: string[];
  reject: string[];
  llama: boolean;
}

export const GRAMMARS: GrammarCase[] = [
  {
    name: "arithmetic",
    source: `
root   ::= expr
expr   ::= term (("+" | "-") term)*
term   ::= factor (("*" | "/") factor)*
factor ::= number | "(" expr ")"
number ::= [0-9]+
`,
    match: ["1", "12+3", "1+2*3", "(1+2)*3", "((4))", "7/8-9"],
    reject: ["", "1+", "(1", "1++2", "a", "(1))", " 1"],
    llama: true,
  },
  {
    name: "json",
    source: `# JSON values with optional blanks between tokens
root    ::= sp value sp
value   ::= obj | arr | str | num | "true" | "false" | "null"
obj     ::= "{" sp ( member ( sp "," sp member )* sp )? "}"
member  ::= str sp ":" sp value
arr     ::= "[" sp ( value ( sp "," sp value )* sp )? "]"
str     ::= "\\"" ( [^"\\\\\\x00-\\x1f] | "\\\\" ( ["\\\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\\""
num     ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [+-]? [0-9]+ )?
sp      ::= [ \\t\\n\\r]*
`,
    match: ['{"a": [1, 2.5e3, true, null], "b": {}}', "[]", ' "x\\u00e9\\n" ', "-0.5", '{"k":"é😀"}', "[[[]]]"],
    reject: ["{", '{"a" 1}', "[1,]", "01", '"\n"', "tru", '{"a":1,}', "'a'"],
    llama: true,
  },
  {
    name: "multi-line continuation and comments",
    source: `root ::= greeting # trailing comment
  ( "," name )?
greeting ::=
    "hello"
  | "hi"   # after a bar
  | (
      "hey"
      "!"
    )
name ::= [A-Z] [a-z]*
`,
    match: ["hello", "hi,Ann", "hey!,Bo", "hello,Z"],
    reject: ["hey", "hello,", "hi,ann", "hello ,Ann", "hey!Bo"],
    llama: false,
  },
  {
    name: "escapes in strings and classes",
    source: String.raw`root ::= "\x41\u00e9\U0001F600" "\t\n\r\"\\" [\]\-^\[] "\\x" [\x00-\x08] "é😀"`,
    match: ["Aé😀\t\n\r\"\\]\\x\u0000é😀", "Aé😀\t\n\r\"\\-\\x\u0008é😀", "Aé😀\t\n\r\"\\^\\x\u0005é😀", "Aé😀\t\n\r\"\\[\\x\u0001é😀"],
    reject: ["Aé😀\t\n\r\"\\a\\x\u0000é😀", "Aé😀\t\n\r\"\\]\\x\u0009é😀", "Aé😀\t\n\r\"\\]\\x\u0000é"],
    llama: true,
  },
  {
    name: "counted repeats",
    source: `root ::= "a"{3} "b"{2,} "c"{0,2} "d"{ 1 , 3 } ("e" "f"){2}`,
    match: ["aaabbdefef", "aaabbbbccddd efef".replace(" ", ""), "aaabbcdefef"],
    reject: ["aabbdefef", "aaabdefef", "aaabbcccdefef", "aaabbdddddefef", "aaabbdef", "aaabbefef"],
    llama: true,
  },
  {
    name: "any character and negated classes",
    source: `root ::= . [^a-z] [^\\n]* "."`,
    match: ["xY.", "\nZ abc.", "😀é中文.", "aA\t.", "aB\u2028."],
    reject: ["ab.", "x", "xY\n.", "xY", ""],
    llama: true,
  },
  {
    name: "names with underscores and hyphens",
    source: `root ::= tool_call | tool-result
tool_call ::= "call:" fn_name
tool-result ::= "result:" [0-9]+
fn_name ::= [a-z_]+
`,
    match: ["call:get_weather", "result:42", "call:_"],
    reject: ["call:", "result:", "call:Get", "tool_call"],
    llama: false,
  },
  {
    name: "empty alternatives and empty groups",
    source: `root ::= "x" opt () "y"
opt ::= "z" |
`,
    match: ["xy", "xzy"],
    reject: ["x", "xzzy", "y", ""],
    llama: true,
  },
  {
    name: "right recursion and nesting",
    source: `root ::= "(" root ")" | ""`,
    match: ["", "()", "(())", "((()))"],
    reject: ["(", ")(", "(()", "())"],
    llama: true,
  },
  {
    name: "CRLF line endings",
    source: 'root ::= a b\r\na ::= "a" |\r\n  "A"\r\nb ::= [0-9]?\r\n',
    match: ["a", "A7", "a0"],
    reject: ["b", "a77", ""],
    llama: true,
  },
  {
    name: "nullable prefixes without left recursion",
    source: `root ::= pre "x" root | "!"
pre ::= "" | "-" pre
`,
    match: ["!", "x!", "--x-x!", "xxx!"],
    reject: ["", "x", "-!", "x-!x"],
    llama: true,
  },
  {
    name: "repeat stacking and optional groups",
    source: `root ::= ("ab"?)+ "c"* ("d" | "e")?`,
    match: ["", "ab", "ababc", "ccd", "e", "abccce"],
    reject: ["a", "abd e", "dd", "ba"],
    llama: false,
  },
  {
    name: "xgrammar-style continuation of a sequence on the next line",
    source: `root ::= "<tool>" name
    "</tool>"
name ::= [a-z]+
`,
    match: ["<tool>search</tool>"],
    reject: ["<tool></tool>", "<tool>search", "<tool>Search</tool>"],
    llama: false,
  },
  {
    name: "non-ASCII ranges",
    source: `root ::= [а-яё]+ " " [\\u4e00-\\u9fff]{1,2} [😀-🙏]?`,
    match: ["привет 中", "ёж 中文😀", "я 文🙏"],
    reject: ["hello 中", "привет 中文字", "привет  中", "Привет 中"],
    llama: true,
  },
  {
    // xgrammar's reading of the class that leaves nothing out (its test_max_chars.py uses it).
    name: "[^] is any code point",
    source: 'root ::= [^]* ">"',
    match: [">", "ab>", "中\n😀>", ">>"],
    reject: ["", "ab"],
    llama: false,
  },
];
