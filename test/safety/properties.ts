/**
 * Property tests of the engine (fast-check): random grammars (IR, regexes, EBNF, JSON Schemas,
 * structural tags) compiled against a vocabulary, then walked with random token streams that
 * include forbidden and out-of-range ids. At every step the engine's mask must equal the
 * reference recognizer's brute-force mask; a refused token leaves the state exactly as it was;
 * rollback(n) restores the exact earlier mask; a fork is independent of its origin; and
 * acceptString of some tokens' bytes equals accepting the tokens one by one.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { GrammarBuilder, charClass, choice, lit, ref, repeat, seq, type IrExpr, type IrGrammar } from "../../lib/compile/ir.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import type { CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { InvalidArgumentError } from "../../lib/errors.js";
import type { JsonSchema, StructuralTag } from "../../lib/format/types.js";
import type { VocabularyData } from "../../lib/tokenizer/vocabulary.js";
import { BruteForce, describeToken, maskHas, type OracleState } from "../engine/oracle.js";
import { expectSameMask } from "../engine/walk.js";
import { rng } from "../helpers/random.js";

// ---- grammars ---------------------------------------------------------------------------------

// Texts and classes that the tiny vocabulary's tokens cover (whole and split multi-byte
// characters included), so that walks go somewhere.
const TEXTS = ["a", "b", "ab", "[", "]", ",", "1", "12", "é", "€", "x", "\"", ":"];
const CLASSES: Array<Array<[number, number]>> = [[[0x61, 0x62]], [[0x30, 0x39]], [[0x61, 0x61], [0xe9, 0xe9]], [[0x20ac, 0x20ac], [0x78, 0x79]]];

/** IR expressions; `ref(1)` leaves refer to a rule that starts with `[` (never left-recursive). */
export const irGrammar: fc.Arbitrary<IrGrammar> = fc
  .letrec<{ expr: IrExpr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(...TEXTS).map((t) => lit(t)),
      fc.constantFrom(...CLASSES).map((r) => charClass(r)),
      fc.constant(ref(1)),
      fc.array(tie("expr"), { minLength: 2, maxLength: 3 }).map((items) => seq(...items)),
      fc.array(tie("expr"), { minLength: 2, maxLength: 3 }).map((items) => choice(...items)),
      fc.tuple(tie("expr"), fc.nat(2), fc.option(fc.nat(3), { nil: null })).map(([item, min, extra]) => repeat(item, min, extra === null ? null : min + extra)),
    ),
  }))
  .expr.chain((root) =>
    fc.tuple(fc.constant(root), fc.constantFrom(...TEXTS)).map(([body, leaf]) => {
      const b = new GrammarBuilder();
      b.define("root", body);
      // The recursive rule: `[` then root-like content or a leaf, then `]`; or the leaf alone.
      b.define("nested", choice(seq(lit("["), choice(ref(1), lit(leaf)), lit("]")), lit(leaf)));
      return b.build("root");
    }),
  );

const regexAtom = fc.constantFrom("a", "b", "é", "1", "[ab]", "[0-9]", "\\d", "x", "€", ".");
/** Regex sources: atoms, groups, alternations and quantifiers. */
export const regexSource: fc.Arbitrary<string> = fc
  .letrec<{ re: string }>((tie) => ({
    re: fc.oneof(
      { depthSize: "small" },
      regexAtom,
      fc.array(tie("re"), { minLength: 2, maxLength: 3 }).map((xs) => xs.join("")),
      fc.array(tie("re"), { minLength: 2, maxLength: 3 }).map((xs) => `(${xs.join("|")})`),
      fc.tuple(tie("re"), fc.constantFrom("?", "*", "+", "{2}", "{0,2}", "{1,3}")).map(([r, q]) => `(?:${r})${q}`),
    ),
  })).re;

const ebnfAtom = fc.constantFrom('"a"', '"b"', '"ab"', '"["', '"]"', "[a-b]", "[0-9]", '"é"', "inner");
/** EBNF sources with a root rule and a rule `inner` (which may recurse after a `[`). */
export const ebnfSource: fc.Arbitrary<string> = fc
  .letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: "small" },
      ebnfAtom,
      fc.array(tie("e"), { minLength: 2, maxLength: 3 }).map((xs) => xs.join(" ")),
      fc.array(tie("e"), { minLength: 2, maxLength: 3 }).map((xs) => `(${xs.join(" | ")})`),
      fc.tuple(tie("e"), fc.constantFrom("?", "*", "+")).map(([e, q]) => `(${e})${q}`),
    ),
  }))
  .e.chain((root) => fc.constantFrom('"x"', '"1"').map((leaf) => `root ::= ${root}\ninner ::= "[" (inner | ${leaf}) "]" | ${leaf}\n`));

/** Small JSON Schemas over the enforced keywords (some unsatisfiable: minimum > maximum ...). */
export const jsonSchema: fc.Arbitrary<JsonSchema> = fc.letrec<{ s: JsonSchema }>((tie) => ({
  s: fc.oneof(
    { depthSize: "small" },
    fc.record({ type: fc.constant("integer"), minimum: fc.integer({ min: -3, max: 15 }), maximum: fc.integer({ min: -3, max: 15 }) }, { requiredKeys: ["type"] }),
    fc.record({ type: fc.constant("string"), minLength: fc.nat(2), maxLength: fc.nat(3) }, { requiredKeys: ["type"] }),
    fc.record({ enum: fc.uniqueArray(fc.constantFrom<unknown>("a", "ab", 1, 12, null, true), { minLength: 0, maxLength: 3 }) }),
    fc.record({ const: fc.constantFrom<unknown>("é", 2, [1], { a: 1 }) }),
    fc.record({ type: fc.constant("array"), items: tie("s"), minItems: fc.nat(1), maxItems: fc.nat(2) }, { requiredKeys: ["type", "items"] }),
    fc.record({ type: fc.constant("object"), properties: fc.record({ a: tie("s"), b: tie("s") }, { requiredKeys: [] }), required: fc.subarray(["a", "b"]), additionalProperties: fc.constant(false) }),
    fc.array(tie("s"), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    fc.boolean(),
  ),
})).s as fc.Arbitrary<JsonSchema>;

/** Structural tags: const strings, tags, sequences, choices, repetitions, regexes and schemas. */
export const structuralTag: fc.Arbitrary<StructuralTag> = fc
  .letrec<{ f: unknown }>((tie) => ({
    f: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom(...TEXTS).map((value) => ({ type: "const_string", value })),
      regexSource.map((pattern) => ({ type: "regex", pattern })),
      fc.constantFrom<JsonSchema>({ type: "integer", minimum: 0, maximum: 20 }, { enum: ["a", "b"] }, { type: "array", items: { type: "integer" }, maxItems: 2 }).map((json_schema) => ({ type: "json_schema", json_schema, max_whitespace_cnt: 1 })),
      fc.array(tie("f"), { minLength: 1, maxLength: 3 }).map((elements) => ({ type: "sequence", elements })),
      fc.array(tie("f"), { minLength: 2, maxLength: 3 }).map((elements) => ({ type: "or", elements })),
      tie("f").map((content) => ({ type: "optional", content })),
      fc.tuple(tie("f"), fc.nat(1), fc.nat(2)).map(([content, min, extra]) => ({ type: "repeat", content, min, max: min + extra })),
      fc.tuple(fc.constantFrom("[", "<|open|>", "x"), tie("f"), fc.constantFrom("]", "<|close|>", ",")).map(([begin, content, end]) => ({ type: "tag", begin, content, end })),
    ),
  }))
  .f.map((format) => ({ type: "structural_tag", format }) as StructuralTag);

// ---- walks ------------------------------------------------------------------------------------

/** Ids that are never valid token ids, and values that are not ids at all. */
function outOfRange(vocabSize: number): number[] {
  return [vocabSize, vocabSize + 7, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, -1, 1.5, Number.NaN];
}

/** Every fill and accept time of the walks, in ms, and where the slowest of each was (for the long run's report). */
export const timings = {
  fillMs: [] as number[],
  acceptMs: [] as number[],
  slowest: { fillMs: 0, fillAt: "", acceptMs: 0, acceptAt: "" },
};

function timed<T>(kind: "fill" | "accept", where: string, f: () => T): T {
  const t0 = performance.now();
  const r = f();
  const ms = performance.now() - t0;
  timings[kind === "fill" ? "fillMs" : "acceptMs"].push(ms);
  const s = timings.slowest;
  if (kind === "fill" && ms > s.fillMs) Object.assign(s, { fillMs: ms, fillAt: where });
  if (kind === "accept" && ms > s.acceptMs) Object.assign(s, { acceptMs: ms, acceptAt: where });
  return r;
}

function pickAllowed(mask: Int32Array, vocab: VocabularyData, random: () => number): number {
  const ids: number[] = [];
  for (let id = 0; id < vocab.vocabSize; id++) if (maskHas(mask, id) && !vocab.stopTokenIds.includes(id)) ids.push(id);
  return ids.length === 0 ? -1 : ids[Math.floor(random() * ids.length)]!;
}

function pickForbidden(mask: Int32Array, vocab: VocabularyData, random: () => number): number {
  for (let tries = 0; tries < 20; tries++) {
    const id = Math.floor(random() * vocab.vocabSize);
    if (!maskHas(mask, id)) return id;
  }
  return -1;
}

function tokenBytes(vocab: VocabularyData, id: number): Uint8Array {
  return vocab.bytes.subarray(vocab.offsets[id]!, vocab.offsets[id + 1]!);
}

export interface WalkSettings {
  steps: number;
  /** Compare the full mask with the oracle every `every` steps (it walks the whole vocabulary). */
  every: number;
}

/**
 * A seeded walk checking every property of the file header. Returns the steps taken.
 */
export function checkWalk(grammar: IrGrammar, compiled: CompiledGrammar, vocab: VocabularyData, seed: number, settings: WalkSettings): number {
  const oracle = new BruteForce(grammar, vocab);
  const random = rng(seed);
  const matcher = new GrammarMatcher(compiled);
  const words = Math.ceil(vocab.vocabSize / 32);
  const fill = (m: GrammarMatcher, where: string): Int32Array => {
    const out = new Int32Array(words);
    timed("fill", where, () => m.fillNextTokenBitmask(out));
    return out;
  };
  const states: OracleState[] = [oracle.initial()];
  const masks: Int32Array[] = [];
  let step = 0;
  for (; step < settings.steps; step++) {
    const where = `seed ${seed}, step ${step}, vocabulary of ${vocab.vocabSize}`;
    const state = states[states.length - 1]!;
    const mask = fill(matcher, where);
    masks[states.length - 1] = mask;
    if (step % settings.every === 0) {
      expectSameMask(mask, oracle.mask(state), vocab, where);
      expect(matcher.canTerminate(), `${where}: canTerminate`).toBe(oracle.accepts(state));
    }
    const steps = matcher.stepCount;

    // A refused token (forbidden, out of range, not an id) changes nothing.
    const bad = random() < 0.5 ? pickForbidden(mask, vocab, random) : outOfRange(vocab.vocabSize)[Math.floor(random() * 9)]!;
    if (bad !== -1) {
      let accepted: boolean;
      try {
        accepted = timed("accept", where, () => matcher.acceptToken(bad));
      } catch (err) {
        expect(err, `${where}: acceptToken(${bad})`).toBeInstanceOf(InvalidArgumentError);
        accepted = false;
      }
      expect(accepted, `${where}: acceptToken(${bad}) is refused`).toBe(false);
      expect(matcher.stepCount).toBe(steps);
      expect(matcher.inError).toBe(false);
      expect(fill(matcher, where), `${where}: the mask after refusing ${bad}`).toEqual(mask);
    }

    // A fork is independent: stepping it leaves this matcher's mask as it was.
    const id = pickAllowed(mask, vocab, random);
    if (id < 0) break;
    if (random() < 0.3) {
      const fork = matcher.fork();
      expect(fork.acceptToken(id)).toBe(true);
      const next = oracle.advance(state, id);
      expect(next, `${where}: the oracle refuses ${describeToken(vocab, id)}`).not.toBeNull();
      if (step % settings.every === 0) expectSameMask(fill(fork, where), oracle.mask(next!), vocab, `${where} (fork)`);
      expect(fill(matcher, where), `${where}: the origin after its fork stepped`).toEqual(mask);
    }

    // acceptString of up to three tokens' bytes equals accepting them one by one.
    if (random() < 0.3) {
      const byTokens = matcher.fork();
      const parts: Uint8Array[] = [];
      for (let k = 0; k < 3; k++) {
        const next = pickAllowed(fill(byTokens, where), vocab, random);
        if (next < 0) break;
        expect(byTokens.acceptToken(next)).toBe(true);
        parts.push(tokenBytes(vocab, next));
      }
      const bytes = Uint8Array.from(parts.flatMap((p) => Array.from(p)));
      const byString = matcher.fork();
      expect(byString.acceptString(bytes), `${where}: acceptString of ${parts.length} tokens' bytes`).toBe(true);
      expect(fill(byString, where), `${where}: acceptString vs acceptToken`).toEqual(fill(byTokens, where));
      expect(byString.stepCount).toBe(steps + 1);
    }

    expect(timed("accept", where, () => matcher.acceptToken(id)), `${where}: acceptToken(${describeToken(vocab, id)})`).toBe(true);
    const next = oracle.advance(state, id);
    expect(next, `${where}: the oracle refuses ${describeToken(vocab, id)}`).not.toBeNull();
    states.push(next!);

    // rollback(n) restores the exact earlier mask (then the walk goes on from there).
    if (random() < 0.25) {
      const n = 1 + Math.floor(random() * Math.min(3, states.length - 1));
      matcher.rollback(n);
      states.length -= n;
      expect(fill(matcher, where), `${where}: the mask after rollback(${n})`).toEqual(masks[states.length - 1]);
    }
  }
  return step;
}
