/**
 * The seed grammar (Kimi K3, tool_choice "required", the tools of ../shared/spec/seeds) compiled
 * against the Llama 3 vocabulary with the K3 markers, realistic outputs tokenized with the npm
 * tokenizer, and matchers advanced to mid-generation states: what the batch tests and the batch
 * benchmark step.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GrammarBuilder, lit, optional, seq, type IrGrammar } from "../../lib/compile/ir.js";
import { lowerFormat } from "../../lib/compile/lower.js";
import { compileGrammar, type CompiledGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { packageRoot } from "../../lib/package-root.js";
import { buildToolCallingFormat } from "../../lib/tools/index.js";
import type { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { encodeForTest, loadTestVocabulary } from "../helpers/vocab.js";

// The seeds copied into the test fixtures (a clone elsewhere has no ../shared).
const seedsDir = join(packageRoot(), "test", "fixtures", "seeds");

/** Outputs a model following the seed grammar could produce (both argument styles, 1–2 calls). */
export const SEED_OUTPUTS = [
  '<|open|>response<|sep|>Let me check.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris, France<|close|>argument<|sep|><|close|>call<|sep|><|open|>call tool="add" index="2"<|sep|><|open|>json type="object"<|sep|>{"y": 1.5, "x": -2, "items": ["a", "b c"]}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="add" index="1"<|sep|><|open|>argument key="y" type="number"<|sep|>3<|close|>argument<|sep|><|open|>argument key="x" type="number"<|sep|>4.25<|close|>argument<|sep|><|open|>argument key="items" type="array"<|sep|>["one", "two", "three"]<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
  '<|open|>response<|sep|>I will look up the weather in Tokyo for you and then add the numbers.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>json type="object"<|sep|>{"location": "Tokyo, Japan"}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
];

export interface SeedSetup {
  vocab: TokenizerInfo;
  grammar: IrGrammar;
  compiled: CompiledGrammar;
  /** Token ids of each of SEED_OUTPUTS. */
  outputs: number[][];
}

let cached: SeedSetup | undefined;

export function seedSetup(): SeedSetup {
  if (cached) return cached;
  const tools = JSON.parse(readFileSync(join(seedsDir, "tools.json"), "utf8")) as never;
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice: "required" });
  if (!tag) throw new Error("the seed grammar did not build");
  const grammar = lowerFormat(tag);
  const vocab = loadTestVocabulary("llama3", { kimiMarkers: true });
  const compiled = compileGrammar(vocab, grammar);
  const outputs = SEED_OUTPUTS.map((text) => encodeForTest("llama3", text));
  cached = { vocab, grammar, compiled, outputs };
  return cached;
}

/**
 * `n` matchers at mid-generation states: matcher i follows output i % 3 for a number of tokens
 * spread over the whole output (so the batch mixes free text, markers, JSON and argument
 * strings). Returns the matchers and, for each, the next token of its output.
 */
export function midGenerationMatchers(setup: SeedSetup, n: number): { matchers: GrammarMatcher[]; next: number[] } {
  const matchers: GrammarMatcher[] = [];
  const next: number[] = [];
  for (let i = 0; i < n; i++) {
    const ids = setup.outputs[i % setup.outputs.length]!;
    const steps = Math.floor(((i * 7919) % 997) / 997 * (ids.length - 1));
    const m = new GrammarMatcher(setup.compiled);
    for (let s = 0; s < steps; s++) {
      if (!m.acceptToken(ids[s]!)) throw new Error(`seed output ${i % 3} rejected at token ${s}`);
    }
    matchers.push(m);
    next.push(ids[steps]!);
  }
  return { matchers, next };
}

/** A recursive grammar (nested brackets) on the same vocabulary, for error-state rows. */
export function nestedBracketsGrammar(): IrGrammar {
  const b = new GrammarBuilder();
  const r = b.ruleRef("nest");
  b.define("nest", seq(lit("["), optional(r), lit("]")));
  return b.build("nest");
}
