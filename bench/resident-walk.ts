/**
 * Batches stepping along real outputs, for the resident-mask benchmarks (bench/mask-refs.bench.ts
 * on the CPU, bench/gpu/kernels.bench.ts on a device): every row follows a realistic output of
 * its grammar token by token from a staggered start (a new request begins when one ends), so a
 * step's batch mixes every position of the outputs — free text, markers, JSON — the way a
 * serving batch does. Grammars: the seed grammar (Kimi K3, tool_choice "required") and JSON
 * Schemas compiled alone, on Llama 3 with the K3 markers.
 */
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { BatchMatcher } from "../lib/engine/batch.js";
import { compileGrammar, type CompiledGrammar } from "../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../lib/engine/matcher.js";
import { seedSetup } from "../test/batch/fixtures.js";
import { SCHEMAS } from "../test/engine/grammars.js";
import { encodeForTest } from "../test/helpers/vocab.js";

export interface WalkGrammar {
  name: string;
  compiled: CompiledGrammar;
  /** Token ids of the outputs rows follow. */
  outputs: number[][];
}

/** A JSON value of any shape under one key: nested values, the recursive case. */
const ANY_VALUE_SCHEMA = { type: "object", properties: { data: {} }, required: ["data"] } as const;
const ANY_VALUE_DOCUMENT = '{"data": {"items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}], "meta": {"page": {"n": 3, "of": 10}}}}';

/** The grammars of the tables in docs/masking.md, compiled once. */
export function walkGrammars(): WalkGrammar[] {
  const seed = seedSetup();
  const order = SCHEMAS.find((s) => s.name === "order")!;
  return [
    { name: "seed (Kimi K3, required)", compiled: seed.compiled, outputs: seed.outputs },
    {
      name: "JSON Schema (order)",
      compiled: compileGrammar(seed.vocab, compileJsonSchema(order.schema).grammar),
      outputs: [encodeForTest("llama3", order.document)],
    },
    {
      name: "JSON Schema (any value, nested)",
      compiled: compileGrammar(seed.vocab, compileJsonSchema(ANY_VALUE_SCHEMA).grammar),
      outputs: [encodeForTest("llama3", ANY_VALUE_DOCUMENT)],
    },
  ];
}

/** `rows` sequences of one grammar stepping along its outputs together. */
export class RealWalk {
  readonly batch: BatchMatcher;
  readonly #matchers: GrammarMatcher[];
  readonly #outputs: number[][];
  readonly #position: number[];
  readonly #which: number[];
  readonly #tokens: Int32Array;

  constructor(grammar: WalkGrammar, rows: number) {
    this.#outputs = grammar.outputs;
    this.#matchers = [];
    this.#position = [];
    this.#which = [];
    for (let r = 0; r < rows; r++) {
      const which = r % this.#outputs.length;
      const ids = this.#outputs[which]!;
      // Golden-ratio offsets spread the rows evenly over the output's positions.
      const start = Math.floor(((r * 0.6180339887) % 1) * ids.length);
      const m = new GrammarMatcher(grammar.compiled);
      for (let i = 0; i < start; i++) {
        if (!m.acceptToken(ids[i]!)) throw new Error(`${grammar.name}: output ${which} rejected at token ${i}`);
      }
      this.#matchers.push(m);
      this.#position.push(start);
      this.#which.push(which);
    }
    this.batch = new BatchMatcher(this.#matchers);
    this.#tokens = new Int32Array(rows);
  }

  /** Accepts every row's next token; a row at the end of its output starts it again. */
  step(): void {
    for (let r = 0; r < this.#matchers.length; r++) {
      const ids = this.#outputs[this.#which[r]!]!;
      if (this.#position[r]! >= ids.length) {
        this.#matchers[r]!.reset();
        this.#position[r] = 0;
      }
      this.#tokens[r] = ids[this.#position[r]!]!;
      this.#position[r]!++;
    }
    const { accepted } = this.batch.acceptTokens(this.#tokens);
    const rejected = accepted.indexOf(0);
    if (rejected >= 0) throw new Error(`row ${rejected} rejected the next token of its output`);
  }
}

/** Bytes crossing PCIe for one step's masks: dense rows, or refs plus the compact rows. */
export function stepBytes(rows: number, words: number, compactRows: number): { dense: number; refs: number } {
  return { dense: rows * words * 4, refs: rows * 4 + compactRows * words * 4 };
}
