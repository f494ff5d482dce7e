/**
 * Cases of xgrammar's tests/python/test_grammar_parser.py. Its tests compare printed grammars,
 * which tagmask's IR does not share; here each grammar it parses must load and mean what its
 * printed normal form means (the outputs below follow from that form), and each grammar it
 * refuses is refused here too or, where tagmask reads it as llama.cpp does, says so.
 * Its lookahead assertions (`(= …)`) are refused here, as docs/compatibility.md says.
 */
import type { EbnfCase, EbnfErrorCase } from "./cases.js";

export const GRAMMAR_PARSER_CASES: EbnfCase[] = [
  { name: "test_basic_string_literal", grammar: 'root ::= "hello"', accepted: ["hello"], rejected: ["", "hell", "hello!"] },
  { name: "test_empty_string", grammar: 'root ::= ""', accepted: [""], rejected: ["a"] },
  { name: "test_character_class", grammar: "root ::= [a-z]", accepted: ["a", "z"], rejected: ["A", "", "ab"] },
  { name: "test_negated_character_class", grammar: "root ::= [^a-z]", accepted: ["A", "中", "\n"], rejected: ["a", ""] },
  {
    name: "test_complex_character_class",
    grammar: String.raw`root ::= [a-zA-Z0-9_-] [\r\n$\x10-o\]\--]`,
    accepted: ["a-", "_]", "Z\x10", "9o", "-$", "x\r"],
    rejected: ["ap", "a", "!-", "a~"],
  },
  { name: "test_sequence", grammar: 'root ::= "a" "b" "c"', accepted: ["abc"], rejected: ["ab", "abcc"] },
  { name: "test_choice", grammar: 'root ::= "a" | "b" | "c"', accepted: ["a", "b", "c"], rejected: ["ab", ""] },
  { name: "test_grouping", grammar: 'root ::= ("a" "b") | ("c" "d")', accepted: ["ab", "cd"], rejected: ["ad", "abcd"] },
  { name: "test_star_quantifier_simple", grammar: 'root ::= "a"*', accepted: ["", "a", "aaa"], rejected: ["b"] },
  { name: "test_plus_quantifier", grammar: 'root ::= "a"+', accepted: ["a", "aa"], rejected: [""] },
  { name: "test_question_quantifier", grammar: 'root ::= "a"?', accepted: ["", "a"], rejected: ["aa"] },
  { name: "test_character_class_star", grammar: "root ::= [a-z]*", accepted: ["", "abc"], rejected: ["aB"] },
  { name: "test_repetition_range_exact", grammar: 'root ::= "a"{3}', accepted: ["aaa"], rejected: ["aa", "aaaa"] },
  { name: "test_repetition_range_min_max", grammar: 'root ::= "a"{2,4}', accepted: ["aa", "aaaa"], rejected: ["a", "aaaaa"] },
  { name: "test_repetition_range_min_only", grammar: 'root ::= "a"{2,}', accepted: ["aa", "a".repeat(30)], rejected: ["a"] },
  { name: "test_escape_sequences", grammar: String.raw`root ::= "\n\t\r\"\\"`, accepted: ['\n\t\r"\\'], rejected: ["\\n\\t"] },
  { name: "test_unicode_escape", grammar: String.raw`root ::= "\u0041\u0042\u0043\u00A9\u2603"`, accepted: ["ABC©☃"], rejected: ["ABC"] },
  {
    name: "test_complex_grammar",
    grammar: 'root ::= expr\nexpr ::= term ("+" term | "-" term)*\nterm ::= factor ("*" factor | "/" factor)*\nfactor ::= number | "(" expr ")"\nnumber ::= [0-9]+ ("." [0-9]+)?\n',
    accepted: ["1", "1.5+2*(3-4)/5", "((0))"],
    rejected: ["1.", "+1", "(1", "1..2"],
  },
  { name: "test_nested_quantifiers", grammar: 'root ::= ("a"*)+', accepted: ["", "a", "aaaa"], rejected: ["b"] },
  { name: "test_bnf_comment", grammar: '# top comment\nroot ::= a b # inline comment\na ::= "a"\nb ::= "b"\n# bottom comment\n', accepted: ["ab"], rejected: ["a", "ab#"] },
  {
    name: "test_star_quantifier",
    grammar: 'root ::= b c d\nb ::= [b]*\nc ::= "b"*\nd ::= ([b] [c] [d] | ([p] [q]))*\ne ::= [e]* [f]* | [g]*\n',
    accepted: ["", "bbb", "bcdpq", "pqbcd"],
    rejected: ["bc", "e", "pqb"],
  },
  { name: "test_star_quantifier (nullable rule)", grammar: "root ::= [a]* [b]* rule1\nrule1 ::= [abc]* [def]*\n", accepted: ["", "abcfed", "bbad"], rejected: ["da", "x"] },
  {
    name: "test_repetition_range",
    grammar: 'root ::= a b c d e f g\na ::= [a]{1,2}\nb ::= (a | "b"){1, 5}\nc ::= "c" {0 , 2}\nd ::= "d" {0,}\ne ::= "e" {2, }\nf ::= "f" {3}\ng ::= "g" {0}\n',
    accepted: ["abeefff", "aabbbbbccddddeeefff", "aaaaaaaaeefff"],
    rejected: ["abefff", "abeeff", "abeefffg", "abbbbbbeefff"],
  },
  {
    name: "test_char",
    grammar: String.raw`root ::= [a-z] [A-z] "\u0234" "\U00000345\xff" [-A-Z] [--] [^a] rest
rest ::= [a-zA-Z0-9-] [\u0234-\U00000345] [测-试] [\--\]]  rest1
rest1 ::= "\?\"\'测试あc" "👀" "" [a-a] [b-b]
`,
    accepted: ["a_\u0234\u0345\xff--bZ\u0300测]?\"'测试あc👀ab"],
    rejected: ["a_\u0234\u0345\xff--aZ\u0300测]?\"'测试あc👀ab", "a_\u0234\u0345\xff--bZ\u0300测^?\"'测试あc👀ab"],
  },
  { name: "test_space", grammar: '\n\nroot::="a"  "b" ("c""d"\n"e") |\n\n"f" | "g"\n', accepted: ["abcde", "f", "g"], rejected: ["abcd", "fg", ""] },
  { name: "test_nest", grammar: 'root::= "a" ("b" | "c" "d") | (("e" "f"))\n', accepted: ["ab", "acd", "ef"], rejected: ["a", "ac", "abcd"] },
  { name: "test_empty_parentheses", grammar: 'root ::= "a" ( ) "b"\n', accepted: ["ab"], rejected: ["a b"] },
  { name: "test_empty_parentheses (an empty rule)", grammar: 'root ::= "a" rule1\nrule1 ::= ( )\n', accepted: ["a"], rejected: ["", "aa"] },
  {
    name: "test_flatten",
    grammar: 'root ::= or_test sequence_test nested_test empty_test\nor_test ::= ([a] | "b") | "de" | "" | or_test | [^a-z]\nsequence_test ::= [a] "a" ("b" ("c" | "d")) ("d" "e") sequence_test ""\nnested_test ::= ("a" ("b" ("c" "d"))) | ("a" | ("b" | "c")) | nested_rest\nnested_rest ::= ("a" | ("b" "c" | ("d" | "e" "f"))) | ((("g")))\nempty_test ::= "d" | (("" | "" "") "" | "a" "") | ("" ("" | "")) "" ""\n',
    // sequence_test refers to itself with nothing else to end it: no string at all.
    accepted: [],
    rejected: ["", "aabcde", "deaabcdeaabcde"],
  },
  {
    name: "test_rule_inliner",
    grammar: 'root ::= rule1 "a" [a-z]* | rule2 "b" "c"\nrule1 ::= "a" [a-z]* | "b"\nrule2 ::= "b" | "c" [b-c]\n',
    accepted: ["aza", "aazz", "ba", "bbc", "cbbc"],
    rejected: ["a", "bc", "cabc"],
  },
  { name: "test_rule_inliner (two rules)", grammar: 'root ::= rule1 | rule2\nrule1 ::= "a" | "b"\nrule2 ::= "b" | "c"\n', accepted: ["a", "b", "c"], rejected: ["ab", ""] },
  { name: "test_dead_code_eliminator (an unused rule)", grammar: 'root ::= rule1 | rule2\nrule1 ::= "a" | "b"\nrule2 ::= "b" | "c"\nunused ::= "x" | "y"\n', accepted: ["a", "c"], rejected: ["x"] },
  {
    name: "test_dead_code_eliminator (unused rules that refer to each other first)",
    grammar: 'root ::= rule1 | rule2\nunused1 ::= unused2 | "x"\nunused2 ::= unused1 | "y"\nrule1 ::= "a" rule2 | "b"\nrule2 ::= "c" rule1 | "d"\n',
    accepted: ["b", "d", "acb", "cad"],
    rejected: ["x", "y", "ac"],
  },
  {
    name: "test_dead_code_eliminator (unused chains)",
    grammar: 'root ::= rule1 "x" | rule2\nrule1 ::= "a" rule3 | "b"\nrule2 ::= "c" | "d" rule4\nrule3 ::= "e" | "f"\nrule4 ::= "g" | "h"\nunused1 ::= "i" unused2\nunused2 ::= "j" unused3\nunused3 ::= "k" | "l"\n',
    accepted: ["aex", "bx", "c", "dh"],
    rejected: ["ijk", "ae"],
  },
  {
    name: "test_repetition_normalizer",
    grammar: "root ::= ([0-9]*){200, 1000}",
    accepted: ["", "0123456789"],
    rejected: ["a"],
  },
  {
    name: "test_repetition_normalizer (one digit each)",
    grammar: "root ::= ([0-9]){200, 1000}",
    accepted: ["7".repeat(200), "7".repeat(1000)],
    rejected: ["7".repeat(199), "7".repeat(1001)],
  },
];

const LOOKAHEAD = "lookahead assertions '(= …)' are not supported";

export const GRAMMAR_PARSER_ERRORS: EbnfErrorCase[] = [
  { name: "test_lexer_parser_errors (unterminated string)", grammar: 'root ::= "a" "', error: "unterminated string" },
  { name: "test_lexer_parser_errors (bad escape)", grammar: String.raw`root ::= "\@"`, error: "bad escape '\\@'" },
  { name: "test_lexer_parser_errors (short \\u)", grammar: String.raw`root ::= "\uFF"`, error: "\\u must be followed by exactly 4 hex digits" },
  { name: "test_lexer_parser_errors (no rule name)", grammar: '::= "a"', error: "expected a rule name" },
  { name: "test_lexer_parser_errors (undefined rule)", grammar: "root ::= a b", error: "undefined rule 'a'" },
  { name: "test_lexer_parser_errors (range reversed)", grammar: "root ::= [Z-A]", error: "bad character range" },
  { name: "test_lexer_parser_errors (root twice)", grammar: 'root ::= "a"\nroot ::= "b"', error: "duplicate rule 'root'" },
  { name: "test_lexer_parser_errors (no root)", grammar: 'a ::= "a"', error: "missing root rule" },
  { name: "test_lexer_parser_errors (two lookaheads)", grammar: 'root ::= "a" (="a") (="b")', error: LOOKAHEAD },
  { name: "test_end_to_end_errors (choice in a lookahead)", grammar: 'root ::= "a" (=("a" | "b"))', error: LOOKAHEAD },
  { name: "test_lookahead_assertion_simple", grammar: 'root ::= "a" (="b")', error: LOOKAHEAD },
  { name: "test_combined_features", grammar: 'root ::= "start" (rule1 | rule2)+ "end"\nrule1 ::= [a-z]{1,3} (=":")\nrule2 ::= [0-9]+ "." [0-9]*\n', error: LOOKAHEAD },
  { name: "test_lexer_parser_errors (newline in a class)", grammar: "root ::= [a\n]", error: null, why: "a newline inside a character class" },
  { name: "test_lexer_parser_errors (empty last alternative)", grammar: 'root ::= "a" |', error: null, why: "an empty last alternative" },
  { name: "test_error_consecutive_quantifiers ({1,3}{1,3})", grammar: 'root ::= "a"{1,3}{1,3}', error: null, why: "stacked repeats" },
  { name: "test_error_consecutive_quantifiers (++)", grammar: 'root ::= "a"++', error: null, why: "stacked repeats" },
  { name: "test_error_consecutive_quantifiers (??)", grammar: 'root ::= "a"??', error: null, why: "stacked repeats" },
];
