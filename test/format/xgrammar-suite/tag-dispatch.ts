/**
 * Cases of xgrammar's tests/python/test_grammar_matcher_tag_dispatch.py: EBNF grammars with the
 * TagDispatch macro, their outputs, and the token masks its test expects at each step.
 */
import type { EbnfCase } from "./cases.js";

const twoTags = (rule1: string, rule2: string) => `root ::= TagDispatch(("tag1", rule1), ("tag2", rule2))\nrule1 ::= ${rule1}\nrule2 ::= ${rule2}\n`;

export const TAG_DISPATCH_CASES: EbnfCase[] = [
  {
    name: "test_simple",
    grammar: twoTags('"abcd"', '"efg"'),
    accepted: ["tag1abcd", "tag1abcdtag2efg", "tag1abcdqqqqtag2efg"],
    rejected: ["tag1abc", "tag1abce", "ttag1abd"],
  },
  {
    name: "test_complex_rule",
    grammar: twoTags('"abcd" [p]*', '"efg" [t]*'),
    accepted: ["tag1abcd", "tag1abcdppppptag2efg", "tag2efgtttttag1abc"],
    rejected: [],
  },
];

/** A grammar, a vocabulary, an input read one character at a time, and the tokens allowed before each character and after the last. */
export interface MaskCase {
  name: string;
  grammar: string;
  vocab: string[];
  input: string;
  allowed: string[][];
}

const ALL = ["a", "b", "c", "d", "g", "t", "1", "2", "1a", "2d", "2a", "2dgt", "2dgtag1a", "tag1a", "c哈哈t", "q", "abcdef"];
const NO_2A = ALL.filter((t) => t !== "2a");

export const TAG_DISPATCH_MASKS: MaskCase[] = [
  {
    name: "test_tag_dispatch_mask_generation_correctness",
    grammar: twoTags('"abc"', '"dg"'),
    vocab: ["a", "b", "c", "d", "g", "t", "1", "2", "1a", "2d", "2a", "2dgt", "2dgtag1a", "2dgtag1b", "tag1a", "tag1b", "c哈哈t", "q", "abcdef"],
    input: "tag1abcqqtag2dgq",
    allowed: [ALL, ALL, ALL, NO_2A, ["a", "abcdef"], ["b"], ["c哈哈t", "c"], ALL, ALL, ALL, ALL, ALL, NO_2A, ["d"], ["g"], ALL, ALL],
  },
];
