/**
 * `multipleOf` over digits, Llama 3 vocabulary, one thread: divisors the automaton holds
 * (lib/compile/json-schema/numerals.ts, up to 4,096 remainder classes) and divisors past it whose
 * remainder the matcher keeps (residue-ir.ts: 9973, 32771, 999983, 1000003, 0.123457) — schema to
 * IR, IR to mask cache, states, memory, fills along an array of multiples — and how fast what is
 * still refused is refused. Also how many remainder entries the fill decides by arithmetic and
 * how many tokens are still walked on the real stack (CompileStats residueTokens / residualTokens).
 *
 * `npm run bench -- json-schema-multiple-of` (results in bench/results/json-schema-multiple-of.json).
 */
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { compileGrammar, type CompiledGrammar } from "../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../lib/engine/matcher.js";
import { encodeForTest } from "../test/helpers/vocab.js";
import { loadVocabulary } from "./engine-fixtures.js";
import { printRows, quantile, saveReport, type BenchRow } from "./harness.js";

const vocab = loadVocabulary();
const rows: BenchRow[] = [];
const notes: string[] = [];

const schemaOf = (divisor: string) => `{"type":"array","items":{"type":"number","multipleOf":${divisor}}}`;
const divisors: Array<[divisor: string, multiple: (i: number) => string]> = [
  ["1024", (i) => String(1024 * (i + 1))],
  ["1000000", (i) => String(1_000_000 * (i + 1))],
  ["0.000007", (i) => (7 * (i + 1) / 1e6).toFixed(6)],
  ["1009", (i) => String(1009 * (i + 1))],
  ["4001", (i) => String(4001 * (i + 1))],
  ["9973", (i) => String(9973 * (i + 1))],
  ["16381", (i) => String(16381 * (i + 1))],
  ["32771", (i) => String(32771 * (i + 1))],
  ["999983", (i) => String(999983n * BigInt(i + 1) * 1234567n)],
  ["1000003", (i) => String(-1000003 * (i + 1))],
  ["0.123457", (i) => (0.123457 * (i + 1)).toFixed(6)],
];

for (const [divisor, multiple] of divisors) {
  const t0 = performance.now();
  let compiled: CompiledGrammar;
  let t1 = t0;
  try {
    const { grammar } = compileJsonSchema(schemaOf(divisor));
    t1 = performance.now();
    compiled = compileGrammar(vocab, grammar, { threads: 1 });
  } catch (err) {
    notes.push(`multipleOf ${divisor}: failed after ${(performance.now() - t0).toFixed(0)} ms: ${(err as Error).message.replace(/ \(one per.*$/, "")}`);
    continue;
  }
  const t2 = performance.now();
  notes.push(
    `multipleOf ${divisor}: schema to IR ${(t1 - t0).toFixed(0)} ms, IR to mask cache ${(t2 - t1).toFixed(0)} ms, ` +
      `${compiled.stateCount} states, ${(compiled.memoryBytes / 1e6).toFixed(1)} MB, ` +
      `${compiled.stats().residueTokens} remainder entries decided by arithmetic, ${compiled.stats().residualTokens} tokens walked on the stack at fill time`,
  );
  const text = `[${Array.from({ length: 200 }, (_, i) => multiple(i)).join(", ")}]`;
  const tokens = encodeForTest("llama3", text);
  const trace = new GrammarMatcher(compiled).handle.benchTrace(Uint32Array.from(tokens), 15);
  const fill = [...trace.fillNs].map((ns) => ns / 1000).sort((a, b) => a - b);
  const out: BenchRow[] = [{ suite: `multipleOf ${divisor}`, task: `fill, every step (${tokens.length} tokens)`, medianUs: quantile(fill, 0.5), p99Us: quantile(fill, 0.99), samples: fill.length }];
  printRows(`multipleOf ${divisor}`, out);
  rows.push(...out);
}

for (const schema of [schemaOf("0.246914"), '{"type":"integer","multipleOf":999983,"minimum":0}']) {
  const t0 = performance.now();
  let verdict = "compiled";
  try {
    compileJsonSchema(schema);
  } catch (err) {
    verdict = `refused: ${(err as Error).message.replace(/ \(one per.*$/, "")}`;
  }
  notes.push(`${schema}: ${verdict} (${(performance.now() - t0).toFixed(1)} ms)`);
}

// Token lists of a remainder counter: tokens all digits (accepted whatever the remainder) and
// tokens that end a number (one remainder each, per digit state the grammar is in).
let digitsOnly = 0;
let ending = 0;
for (let id = 0; id < vocab.data.kinds.length; id++) {
  if (vocab.data.kinds[id] !== 0) continue;
  const from = vocab.data.offsets[id]!;
  const to = vocab.data.offsets[id + 1]!;
  let k = from;
  while (k < to && vocab.data.bytes[k]! >= 0x30 && vocab.data.bytes[k]! <= 0x39) k++;
  if (k === from) continue;
  if (k === to) digitsOnly++;
  else ending++;
}
notes.push(`Llama 3 tokens: ${digitsOnly} all digits, ${ending} digits then another byte`);

for (const n of notes) console.log(n);
saveReport("json-schema-multiple-of", rows, { notes });
