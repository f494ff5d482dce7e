/**
 * Mask references (BatchMatcher.fillMaskRefs, docs/masking.md "Resident masks") are exact:
 * expanding every ref through the grammar's mask store (a stored row, or the compact row a
 * negative ref names) gives fillNextTokenBitmasks's rows bit for bit. Checked at every step of
 * batches whose rows follow realistic outputs and seeded random walks — with rollbacks, stop
 * tokens (terminated rows) and resets — on the seed grammars, Kimi K3 tool sets with recursive
 * JSON arguments, JSON Schemas and an ambiguous EBNF grammar, on the real Llama 3 and Qwen3
 * vocabularies. Then the API's checks: sizes, row lists, mixed grammars, failed rows.
 */
import { describe, expect, it } from "vitest";
import { ebnfToIr } from "../../lib/compile/ebnf/index.js";
import { GrammarBuilder, type IrGrammar } from "../../lib/compile/ir.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { BatchMatcher } from "../../lib/engine/batch.js";
import { compileGrammar, type CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { InvalidArgumentError, MatcherStateError } from "../../lib/errors.js";
import { compactRowOf, expandMaskRefs } from "../../lib/mask/refs.js";
import type { MaskStore } from "../../lib/mask/types.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import type { Format } from "../../lib/format/types.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { k3Grammar, SCHEMAS, SEED_OUTPUTS, seedGrammar, TOOL_SETS } from "../engine/grammars.js";
import { pickBit } from "../engine/walk.js";
import { rng } from "../helpers/random.js";
import { encodeForTest, loadTestVocabulary, type TestVocabularyName } from "../helpers/vocab.js";
import { nestedBracketsGrammar } from "./fixtures.js";

const ROWS = 12;
const STEPS = 70;

/**
 * An ambiguous grammar: "(1,2)" is both a list and a tuple, so a prefix lives on two parse stacks
 * (one per recursive rule) until the input tells them apart, or to the end.
 */
const AMBIGUOUS_EBNF = `
root  ::= list | tuple
list  ::= "(" (list | num) ("," (list | num))* ")"
tuple ::= "(" (tuple | num) "," (tuple | num) ")"
num   ::= [0-9]+
`;

function ebnfGrammar(source: string): IrGrammar {
  const b = new GrammarBuilder();
  ebnfToIr(source, b);
  return b.build("root");
}

interface Case {
  name: string;
  grammar: () => IrGrammar;
  /** Realistic outputs some rows follow (token by token); the other rows walk at random. */
  outputs: string[];
  /** Bytes that make a token "structural": random walks prefer such tokens half of the time. */
  structural: string;
  /** Whether rows must sometimes have several stacks (an ambiguous grammar). */
  ambiguous?: boolean;
  /** Whether masks depend on a level's count or marks (counted repetition): those rows are compact. */
  counted?: boolean;
}

const JSON_STRUCTURE = '<"{}[],:';
const recursion = TOOL_SETS.find((t) => t.name === "recursion")!;

const CASES: Case[] = [
  ...(["auto", "required", "named"] as const).map((c) => ({
    name: `seed ${c}`, grammar: () => seedGrammar(c), outputs: [SEED_OUTPUTS[c]], structural: JSON_STRUCTURE,
  })),
  { name: "tools: recursion", grammar: () => k3Grammar(recursion.tools, "required"), outputs: [recursion.output], structural: JSON_STRUCTURE },
  ...SCHEMAS.slice(0, 2).map((s) => ({
    name: `schema: ${s.name}`, grammar: () => compileJsonSchema(s.schema).grammar, outputs: [s.document], structural: JSON_STRUCTURE,
  })),
  {
    name: "schema: any JSON value",
    grammar: () => compileJsonSchema({ type: "object", properties: { data: {} }, required: ["data"] }).grammar,
    outputs: ['{"data": {"a": [1, {"b": [[true, null]], "c": "x"}], "d": {"e": {"f": -0.5}}}}'],
    structural: JSON_STRUCTURE,
  },
  {
    name: "schema: counted items and lengths",
    grammar: () => compileJsonSchema({
      type: "object", properties: { tags: { type: "array", items: { type: "string", maxLength: 12 }, minItems: 1, maxItems: 3 } }, required: ["tags"],
    }).grammar,
    outputs: ['{"tags": ["abc", "defghijklmno", "x"]}'],
    structural: JSON_STRUCTURE,
    counted: true,
  },
  {
    name: "schema: members in any order (marks)",
    grammar: () => compileJsonSchema({
      type: "object", properties: { alpha: { type: "integer" }, beta: { type: "string", maxLength: 8 }, gamma: { type: "boolean" } }, additionalProperties: false,
    }, { anyOrder: true }).grammar,
    outputs: ['{"gamma": true, "alpha": 12, "beta": "xyz"}', '{"beta": "", "gamma": false}'],
    structural: JSON_STRUCTURE,
    counted: true,
  },
  { name: "EBNF: ambiguous expressions", grammar: () => ebnfGrammar(AMBIGUOUS_EBNF), outputs: ["((1,2),(3,(4,56)))"], structural: "(),", ambiguous: true },
];

/** Tokens holding any of `bytes`, as a mask. */
function structuralMask(vocab: TokenizerInfo, bytes: string): Int32Array {
  const wanted = new Set([...bytes].map((c) => c.charCodeAt(0)));
  const data = vocab.data;
  const mask = new Int32Array(Math.ceil(data.vocabSize / 32));
  for (let id = 0; id < data.kinds.length; id++) {
    let hit = data.kinds[id] === 1;
    for (let k = data.offsets[id]!; !hit && k < data.offsets[id + 1]!; k++) hit = wanted.has(data.bytes[k]!);
    if (hit) mask[id >>> 5]! |= 1 << (id & 31);
  }
  return mask;
}

/** Fails with the first word where the expanded refs and the dense masks differ. */
function expectSameRows(expanded: Int32Array, dense: Int32Array, refs: Int32Array, words: number, where: string): void {
  for (let i = 0; i < dense.length; i++) {
    if (expanded[i] !== dense[i]) {
      const row = Math.floor(i / words);
      expect.fail(`${where}: row ${row} (ref ${refs[row]}) differs at word ${i % words}: ` +
        `expanded ${(expanded[i]! >>> 0).toString(16)}, dense ${(dense[i]! >>> 0).toString(16)}`);
    }
  }
}

/** Checks the numbering of compact rows: negative refs are ~0, ~1, … in row order. */
function expectCompactNumbering(refs: Int32Array, rows: readonly number[], compactRows: number, where: string): void {
  let next = 0;
  for (const r of rows) {
    const ref = refs[r]!;
    if (ref < 0) {
      expect(compactRowOf(ref), `${where}: compact row of row ${r}`).toBe(next);
      next++;
    }
  }
  expect(next, `${where}: compactRows`).toBe(compactRows);
}

interface WalkStats {
  stored: number;
  compact: number;
  terminated: number;
  multiStack: number;
}

/**
 * One lockstep walk of ROWS rows for STEPS steps, comparing refs with dense masks at every step
 * (every row, then the odd rows alone through options.rows).
 */
function walkBatch(compiled: CompiledGrammar, vocab: TokenizerInfo, outputs: number[][], structuralBytes: string, seed: number): WalkStats {
  const random = rng(seed);
  const structural = structuralMask(vocab, structuralBytes);
  const stopIds = vocab.data.stopTokenIds;
  const matchers = Array.from({ length: ROWS }, () => new GrammarMatcher(compiled));
  const batch = new BatchMatcher(matchers);
  const words = batch.maskWords;
  const store: MaskStore = compiled.maskStore();
  expect(store.wordsPerMask).toBe(words);
  expect(store.words.length).toBe(store.count * words);
  const dense = new Int32Array(ROWS * words);
  const refs = new Int32Array(ROWS);
  const compact = new Int32Array(ROWS * words);
  // Rows 0..2 follow an output from staggered starts; the others walk at random (-1).
  const followed = Array.from({ length: ROWS }, (_, r) => outputs[r % outputs.length]!);
  const position: number[] = Array.from({ length: ROWS }, (_, r) => (r < 3 ? Math.floor((followed[r]!.length * r) / 3) : -1));
  for (let r = 0; r < 3; r++) {
    for (let i = 0; i < position[r]!; i++) expect(matchers[r]!.acceptToken(followed[r]![i]!)).toBe(true);
  }
  const stats: WalkStats = { stored: 0, compact: 0, terminated: 0, multiStack: 0 };
  const allRows = Array.from({ length: ROWS }, (_, r) => r);
  const oddRows = allRows.filter((r) => r % 2 === 1);
  for (let step = 0; step < STEPS; step++) {
    const where = `seed ${seed}, step ${step}`;
    expect(batch.fillNextTokenBitmasks(dense)).toEqual([]);
    refs.fill(0x7ead);
    const { compactRows, errors } = batch.fillMaskRefs(refs, compact);
    expect(errors).toEqual([]);
    expectCompactNumbering(refs, allRows, compactRows, where);
    expectSameRows(expandMaskRefs(refs, store, compact), dense, refs, words, where);
    // A row list: only those rows' refs are written, compact rows numbered in list order.
    const subset = new Int32Array(ROWS).fill(0x7ead);
    const partial = batch.fillMaskRefs(subset, compact, { rows: oddRows });
    expectCompactNumbering(subset, oddRows, partial.compactRows, `${where}, odd rows`);
    for (let r = 0; r < ROWS; r++) {
      if (r % 2 === 0) {
        expect(subset[r], `${where}: row ${r} is not listed`).toBe(0x7ead);
        continue;
      }
      const one = expandMaskRefs(subset.subarray(r, r + 1), store, compact);
      expectSameRows(one, dense.subarray(r * words, (r + 1) * words), subset.subarray(r, r + 1), words, `${where}, odd row ${r}`);
    }
    for (let r = 0; r < ROWS; r++) {
      if (refs[r]! >= 0) stats.stored++;
      else stats.compact++;
      if (matchers[r]!.isTerminated()) stats.terminated++;
      if (matchers[r]!.stackCount > 1) stats.multiStack++;
    }
    // The next token of every row.
    const tokens = new Int32Array(ROWS).fill(-1);
    for (let r = 0; r < ROWS; r++) {
      const m = matchers[r]!;
      if (m.isTerminated() || (m.stepCount > 3 && random() < 0.04)) {
        // Terminated rows stay one step, then start again; now and then a row steps back.
        if (m.isTerminated() && random() < 0.5) m.reset();
        else m.rollback(Math.min(m.stepCount, 1 + Math.floor(random() * 3)));
        if (position[r]! >= 0) position[r] = m.stepCount;
        continue;
      }
      const row = dense.subarray(r * words, (r + 1) * words);
      if (position[r]! >= 0) {
        const ids = followed[r]!;
        if (position[r]! >= ids.length) {
          // The end of the output: stop where the grammar can end (a terminated row), else start again.
          if (m.canTerminate() && stopIds.length > 0) {
            tokens[r] = stopIds[0]!;
          } else {
            m.reset();
          }
          position[r] = 0;
          continue;
        }
        tokens[r] = ids[position[r]!]!;
        position[r]!++;
        continue;
      }
      const stops = stopIds.filter((id) => (row[id >>> 5]! >>> (id & 31)) & 1);
      if (stops.length > 0 && random() < 0.3) {
        tokens[r] = stops[0]!;
        continue;
      }
      const free = row.slice();
      for (const id of stopIds) free[id >>> 5]! &= ~(1 << (id & 31));
      let pick = random() < 0.5 ? pickBit(free, random, structural) : -1;
      if (pick < 0) pick = pickBit(free, random);
      if (pick < 0) m.reset();
      else tokens[r] = pick;
    }
    const { accepted, errors: acceptErrors } = batch.acceptTokens(tokens);
    expect(acceptErrors).toEqual([]);
    for (let r = 0; r < ROWS; r++) {
      if (tokens[r]! >= 0) expect(accepted[r], `${where}: row ${r} rejected token ${tokens[r]} from its own mask`).toBe(1);
    }
  }
  return stats;
}

for (const vocabName of ["llama3", "qwen3"] as TestVocabularyName[]) {
  describe(`mask refs equal the dense masks, ${vocabName}`, () => {
    const vocab = loadTestVocabulary(vocabName, { kimiMarkers: true });
    for (const c of CASES) {
      it(c.name, () => {
        const compiled = compileGrammar(vocab, c.grammar());
        const total: WalkStats = { stored: 0, compact: 0, terminated: 0, multiStack: 0 };
        for (const seed of [1, 2]) {
          const outputs = c.outputs.map((text) => encodeForTest(vocabName, text));
          const s = walkBatch(compiled, vocab, outputs, c.structural, (vocabName === "llama3" ? 100 : 200) + seed);
          total.stored += s.stored;
          total.compact += s.compact;
          total.terminated += s.terminated;
          total.multiStack += s.multiStack;
        }
        // Not vacuous: the walks reach terminated rows, and most rows are stored masks — except in
        // the ambiguous grammar, whose rows often have several stacks and need compact rows.
        expect(total.terminated).toBeGreaterThan(0);
        if (c.counted) {
          expect(total.compact).toBeGreaterThan(0);
          expect(total.stored).toBeGreaterThan(0);
        } else if (c.ambiguous) {
          expect(total.multiStack).toBeGreaterThan(0);
          expect(total.compact).toBeGreaterThan(0);
          expect(total.stored).toBeGreaterThan(0);
        } else {
          expect(total.stored).toBeGreaterThan(total.compact);
        }
      });
    }
  });
}

describe("mask refs equal the dense masks, token edges (tiny token list)", () => {
  // Token edges add tokens reachable through calls and rule ends: the stored rows hold those
  // reachable without leaving the rule; a row whose rule may end with a frame below is compact.
  const TOKENS = ["<s>", "</s>", "<tool>", "<code>", "<end>", "hello", "world", "{", "}", "[", "]", ",", "x", "1", "\"", ":",
    "<", "tool>", "<end", ">", "hel", "lo", "a", "{\"a\": ", "<tool>x"];
  const vocab = TokenizerInfo.fromTokens(TOKENS, { vocabType: "raw", specialTokens: ["<s>", "</s>"], vocabSize: TOKENS.length + 3 });
  const id = (t: string) => TOKENS.indexOf(t);
  const tok = (t: string | number) => ({ type: "token", token: t });
  const tag = (begin: unknown, content: unknown, end: unknown) => ({ type: "tag", begin, content, end });
  const tree = { type: "object", properties: { a: { $ref: "#/$defs/t" } }, $defs: { t: { type: "array", items: { $ref: "#/$defs/t" } } } };
  const cases: Array<[string, unknown, string[]]> = [
    ["token tags around recursive JSON, triggered in free tokens", {
      type: "token_triggered_tags", trigger_tokens: ["<tool>"],
      tags: [tag(tok("<tool>"), { type: "json_schema", json_schema: tree }, tok("<end>"))],
    }, ["hello", "<tool>", "{\"a\": ", "[", "[", "]", ",", "[", "]", "]", "}", "<end>", "world"]],
    ["free tokens with a budget inside tags, in a star", {
      type: "star", content: tag(tok("<code>"), { type: "any_tokens", exclude_tokens: ["<end>"], max_tokens: 2 }, tok("<end>")),
    }, ["<code>", "x", "1", "<end>", "<code>", "<end>"]],
    ["a token or its text, then JSON", {
      type: "sequence",
      elements: [{ type: "or", elements: [tok("<tool>"), { type: "const_string", value: "<tool>" }] }, { type: "json_schema", json_schema: tree }],
    }, ["<tool>", "{\"a\": ", "[", "]", "}"]],
  ];
  for (const [name, format, output] of cases) {
    it(name, () => {
      const compiled = compileGrammar(vocab, lowerFormat(format as Format));
      const total = { stored: 0, compact: 0, terminated: 0 };
      for (const seed of [1, 2, 3]) {
        const s = walkBatch(compiled, vocab, [output.map(id)], "<>{}[],:", 300 + seed);
        total.stored += s.stored;
        total.compact += s.compact;
        total.terminated += s.terminated;
      }
      expect(total.stored).toBeGreaterThan(0);
      expect(total.terminated).toBeGreaterThan(0);
    });
  }
});

describe("BatchMatcher.fillMaskRefs: arguments and failures", () => {
  const vocab = loadTestVocabulary("llama3", { kimiMarkers: true });
  const compiled = compileGrammar(vocab, seedGrammar("required"));
  const words = Math.ceil(vocab.vocabSize / 32);

  it("checks the sizes of refs and compact, stating the expected sizes", () => {
    const batch = new BatchMatcher([new GrammarMatcher(compiled), new GrammarMatcher(compiled), new GrammarMatcher(compiled)]);
    expect(() => batch.fillMaskRefs(new Int32Array(2), new Int32Array(3 * words))).toThrow(
      new InvalidArgumentError("BatchMatcher.fillMaskRefs(refs, compact, options): refs must have at least 3 entries (one per row of the batch), got 2"));
    expect(() => batch.fillMaskRefs(new Int32Array(3), new Int32Array(3 * words - 1))).toThrow(
      `compact must have at least 3*${words} = ${3 * words} int32 words`);
    // With a row list, room for the listed rows is enough.
    expect(batch.fillMaskRefs(new Int32Array(3), new Int32Array(words), { rows: [2] }).compactRows).toBe(0);
    expect(() => batch.fillMaskRefs(new Float32Array(3) as unknown as Int32Array, new Int32Array(3 * words))).toThrow(InvalidArgumentError);
    expect(() => batch.fillMaskRefs(new Int32Array(3), new Int32Array(3 * words), { rows: [0, 0] })).toThrow("appears twice");
    expect(() => batch.fillMaskRefs(new Int32Array(3), new Int32Array(3 * words), { rows: [3] })).toThrow("not a row of the batch");
    expect(batch.fillMaskRefs(new Int32Array(3), new Int32Array(0), { rows: [] })).toEqual({ compactRows: 0, errors: [] });
  });

  it("names the grammar when rows use several, and gives other grammars' rows compact rows", () => {
    const other = compileGrammar(vocab, nestedBracketsGrammar());
    const a = new GrammarMatcher(compiled);
    const b = new GrammarMatcher(other);
    const batch = new BatchMatcher([a, b]);
    const refs = new Int32Array(2);
    const compact = new Int32Array(2 * words);
    expect(() => batch.fillMaskRefs(refs, compact)).toThrow("use different compiled grammars; pass options.grammar");
    expect(() => batch.fillMaskRefs(refs, compact, { grammar: {} as CompiledGrammar })).toThrow(InvalidArgumentError);
    const { compactRows } = batch.fillMaskRefs(refs, compact, { grammar: compiled });
    expect(compactRows).toBe(1);
    expect(refs[0]).toBeGreaterThanOrEqual(0);
    expect(refs[1]).toBe(-1);
    const dense = new Int32Array(2 * words);
    batch.fillNextTokenBitmasks(dense);
    expectSameRows(expandMaskRefs(refs, compiled.maskStore(), compact), dense, refs, words, "mixed grammars");
  });

  it("gives a failed row a zeroed compact row and reports it; the others are filled", () => {
    const deep = compileGrammar(vocab, nestedBracketsGrammar());
    const broken = new GrammarMatcher(deep, { maxStackDepth: 2 });
    const open = vocab.tokenId("[");
    expect(open).toBeDefined();
    expect(() => {
      for (let i = 0; i < 5; i++) broken.acceptToken(open!);
    }).toThrow(MatcherStateError);
    const fine = new GrammarMatcher(deep);
    const batch = new BatchMatcher([fine, broken]);
    const refs = new Int32Array(2);
    const compact = new Int32Array(2 * words).fill(-1);
    const { compactRows, errors } = batch.fillMaskRefs(refs, compact);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.row).toBe(1);
    expect(errors[0]!.error).toBeInstanceOf(MatcherStateError);
    expect(refs[1]).toBeLessThan(0);
    const row = compactRowOf(refs[1]!);
    expect(row).toBeLessThan(compactRows);
    expect(Array.from(compact.subarray(row * words, (row + 1) * words)).every((w) => w === 0)).toBe(true);
    expect(refs[0]).toBeGreaterThanOrEqual(0);
  });
});
