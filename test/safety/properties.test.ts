/**
 * Property tests (fast-check, fixed seed): random grammars of every input kind against the
 * reference recognizer, on the tiny vocabulary and on the real Llama 3 one, walked with token
 * streams that include forbidden and out-of-range ids (see properties.ts for what is checked).
 *
 * `npm run test:props` runs them longer, with a fresh seed, and prints the slowest single fill
 * and accept seen (scripts/property-run.mjs): TAGMASK_PROPERTY_RUNS, TAGMASK_PROPERTY_SEED and
 * TAGMASK_PROPERTY_REPORT set the runs per property, the seed and a file for that report.
 */
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ebnfToIr } from "../../lib/compile/ebnf/index.js";
import { matchesNothing } from "../../lib/compile/empty-language.js";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { GrammarBuilder, type IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { regexToIr } from "../../lib/compile/regex/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarError, SchemaError, TagmaskError } from "../../lib/errors.js";
import type { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { tinyVocabulary } from "../engine/tiny-vocab.js";
import { loadTestVocabulary } from "../helpers/vocab.js";
import { checkWalk, ebnfSource, irGrammar, jsonSchema, regexSource, structuralTag, timings, type WalkSettings } from "./properties.js";

const RUNS = Number(process.env.TAGMASK_PROPERTY_RUNS ?? 30);
const SEED = Number(process.env.TAGMASK_PROPERTY_SEED ?? 0x5afe11);
const params = (runs: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns: runs, endOnFailure: true });

let tiny: TokenizerInfo;
let llama: TokenizerInfo;
beforeAll(() => {
  tiny = tinyVocabulary();
  llama = loadTestVocabulary("llama3", { kimiMarkers: true });
});

afterAll(() => {
  const report = process.env.TAGMASK_PROPERTY_REPORT;
  if (!report) return;
  const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.99 * (xs.length - 1))] ?? 0;
  writeFileSync(report, JSON.stringify({
    seed: SEED, runs: RUNS, walked: Object.fromEntries(walked), ...timings.slowest,
    fills: timings.fillMs.length, fillP99Ms: p99(timings.fillMs), accepts: timings.acceptMs.length, acceptP99Ms: p99(timings.acceptMs),
  }));
});

const TINY_WALK: WalkSettings = { steps: 14, every: 1 };
const REAL_WALK: WalkSettings = { steps: 6, every: 3 };

/** Steps walked per property (each property checks that its walks went somewhere). */
const walked = new Map<string, number>();

/** Compiles and walks `grammar`; a grammar matching nothing must be refused by the engine instead. */
function compileAndWalk(property: string, grammar: IrGrammar, vocab: TokenizerInfo, walkSeed: number, settings: WalkSettings): void {
  if (matchesNothing(grammar)) {
    expect(() => compileGrammar(vocab, grammar)).toThrow(GrammarError);
    return;
  }
  const steps = checkWalk(grammar, compileGrammar(vocab, grammar, { threads: 1 }), vocab.data, walkSeed, settings);
  walked.set(property, (walked.get(property) ?? 0) + steps);
}

/** The walks of `property` took at least `min` steps in all. */
function expectWalked(property: string, min: number): void {
  expect(walked.get(property) ?? 0, `steps walked for ${property}`).toBeGreaterThanOrEqual(min);
}

const walkSeed = fc.integer({ min: 1, max: 2 ** 31 - 1 });

describe("random grammars on the tiny vocabulary", () => {
  it("IR grammars (recursive rules included)", () => {
    fc.assert(fc.property(irGrammar, walkSeed, (g, s) => compileAndWalk("ir", g, tiny, s, TINY_WALK)), params(RUNS));
    expectWalked("ir", RUNS * 2);
  });

  it("regexes", () => {
    fc.assert(fc.property(regexSource, walkSeed, (source, s) => {
      compileAndWalk("regex", { rules: [{ name: "root", body: regexToIr(source) }], root: 0 }, tiny, s, TINY_WALK);
    }), params(RUNS));
    expectWalked("regex", RUNS * 2);
  });

  it("EBNF grammars", () => {
    fc.assert(fc.property(ebnfSource, walkSeed, (source, s) => {
      const b = new GrammarBuilder();
      const root = ebnfToIr(source, b);
      compileAndWalk("ebnf", { ...b.build("root"), root: root.rule }, tiny, s, TINY_WALK);
    }), params(RUNS));
    expectWalked("ebnf", RUNS * 2);
  });

  it("JSON Schemas (unsatisfiable ones are refused by the engine)", () => {
    fc.assert(fc.property(jsonSchema, walkSeed, (schema, s) => {
      let grammar: IrGrammar;
      try {
        grammar = compileJsonSchema(schema, { whitespace: "compact" }).grammar;
      } catch (err) {
        // A keyword the compiler cannot enforce exactly: refused with its path, never a crash.
        expect(err).toBeInstanceOf(SchemaError);
        return;
      }
      compileAndWalk("schema", grammar, tiny, s, TINY_WALK);
    }), params(RUNS));
    expectWalked("schema", RUNS);
  });

  it("structural tags", () => {
    let lowered = 0;
    fc.assert(fc.property(structuralTag, walkSeed, (tag, s) => {
      let grammar: IrGrammar;
      try {
        grammar = lowerFormat(tag);
      } catch (err) {
        expect(err).toBeInstanceOf(TagmaskError);
        return;
      }
      compileAndWalk("tag", grammar, tiny, s, TINY_WALK);
      lowered++;
    }), params(RUNS));
    expect(lowered).toBeGreaterThan(RUNS / 2);
    expectWalked("tag", RUNS * 2);
  });
});

describe("random grammars on the Llama 3 vocabulary", () => {
  it("IR grammars", () => {
    fc.assert(fc.property(irGrammar, walkSeed, (g, s) => compileAndWalk("ir-llama", g, llama, s, REAL_WALK)), params(Math.max(3, Math.round(RUNS / 8))));
    expectWalked("ir-llama", Math.max(3, Math.round(RUNS / 8)));
  });

  it("JSON Schemas", () => {
    fc.assert(fc.property(jsonSchema, walkSeed, (schema, s) => {
      let grammar: IrGrammar;
      try {
        grammar = compileJsonSchema(schema).grammar;
      } catch (err) {
        expect(err).toBeInstanceOf(SchemaError);
        return;
      }
      compileAndWalk("schema-llama", grammar, llama, s, REAL_WALK);
    }), params(Math.max(3, Math.round(RUNS / 8))));
    expectWalked("schema-llama", 1);
  });
});
