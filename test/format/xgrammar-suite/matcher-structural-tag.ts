/**
 * Cases of xgrammar's tests/python/test_grammar_matcher_structural_tag.py: the legacy form
 * (`Grammar.from_structural_tag(tags, triggers)`, here `{"structures", "triggers"}`) with the
 * schemas its pydantic models produce.
 */
import type { TagCase } from "./cases.js";

const schema1 = {
  properties: { arg1: { title: "Arg1", type: "string" }, arg2: { title: "Arg2", type: "integer" } },
  required: ["arg1", "arg2"],
  title: "Schema",
  type: "object",
};
const schema2 = {
  properties: { arg3: { title: "Arg3", type: "number" }, arg4: { items: { type: "string" }, title: "Arg4", type: "array" } },
  required: ["arg3", "arg4"],
  title: "Schema2",
  type: "object",
};

const fgTags = {
  structures: [
    { begin: "<function=f1>", schema: schema1, end: "</function>" },
    { begin: "<function=f2>", schema: schema1, end: "</function>" },
    { begin: "<function=g>", schema: schema2, end: "</function>" },
  ],
  triggers: ["<function=f", "<function=g"],
};

export const MATCHER_STRUCTURAL_TAG_CASES: TagCase[] = [
  {
    name: "test_utf8",
    format: {
      structures: [
        { begin: "，，", schema: schema1, end: "。" },
        { begin: "，！", schema: schema1, end: "。。" },
        { begin: "，，？", schema: schema1, end: "。。。" },
        { begin: "｜｜？", schema: schema1, end: "｜？｜" },
      ],
      triggers: ["，", "｜｜"],
    },
    accepted: [
      '这是无用的内容，，{"arg1": "你好，世界！", "arg2": 0}。这是无用的内容',
      '这是无用的内容，！{"arg1": "こんにちは！", "arg2": 1}。。这是无用的内容',
      '这是无用的内容，，？{"arg1": "안녕하세요！", "arg2": 2}。。。这是无用的内容，！{"arg1": "안녕하세요！", "arg2": 3}。。',
      '这是无用的内容｜｜？{"arg1": "။စ်န, ်ပြ！", "arg2": 0}｜？｜｜｜？{"arg1": "။စ်န, ်ပြ", "arg2": 0}｜？｜',
    ],
    rejected: [],
  },
  {
    name: "test_structural_tag",
    format: fgTags,
    accepted: [
      '<function=f1>{"arg1": "abc", "arg2": 1}</function>',
      '<function=g>{"arg3": 1.23, "arg4": ["a", "b", "c"]}</function>',
      '<function=f2>{"arg1": "abc", "arg2": 1}</function><function=g>{"arg3": 1.23, "arg4": ["a", "b", "c"]}</function>',
      'hhhh<function=g>{"arg3": 1.23, "arg4": ["a", "b", "c"]}</function>haha<function=f1>{"arg1": "abc", "arg2": 1}</function>123',
    ],
    rejected: [],
  },
  {
    name: "test_structural_tag_mask_gen (schemas as JSON text)",
    format: {
      structures: [
        { begin: "<function=f>", schema: JSON.stringify(schema1), end: "</function>" },
        { begin: "<function=g>", schema: JSON.stringify(schema2), end: "</function>" },
      ],
      triggers: ["<function=f", "<function=g"],
    },
    accepted: ['hhhh<function=g>{"arg3": 1.23, "arg4": ["a", "b", "c"]}</function>haha<function=f>{"arg1": "abc", "arg2": 1}</function>123'],
    rejected: [],
  },
];
