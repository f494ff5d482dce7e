/**
 * Counted repetition (issue 12, docs/engine.md "Counted repetition"), Llama 3 vocabulary, one
 * thread: compile time of the grammars whose bounds used to be unrolled, memory at growing bounds,
 * and fill times along documents that run up to the bound (every step, natively). web-xgrammar
 * 0.1.27 compiles the same grammars in the same run where it can express them.
 *
 * `npm run bench -- engine-counted` (results in bench/results/engine-counted.json).
 * `BENCH_PEER_MAXLENGTH=1` also times web-xgrammar on `maxLength: 65535` (about half a minute).
 */
import { ebnfToIr } from "../lib/compile/ebnf/index.js";
import { GrammarBuilder, type IrGrammar } from "../lib/compile/ir.js";
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { lowerFormat } from "../lib/compile/lower.js";
import type { JsonSchema } from "../lib/format/types.js";
import { compileGrammar, type CompiledGrammar } from "../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../lib/engine/matcher.js";
import { buildToolCallingFormat } from "../lib/tools/index.js";
import { encodeForTest } from "../test/helpers/vocab.js";
import { loadVocabulary, loadWebXgrammar, peerTokenList } from "./engine-fixtures.js";
import { printRows, quantile, runSuite, saveReport, type BenchRow } from "./harness.js";

const N = 1000;
const vocab = loadVocabulary();
const rows: BenchRow[] = [];
const notes: string[] = [];

function ebnf(source: string): IrGrammar {
  const b = new GrammarBuilder();
  ebnfToIr(source, b);
  return b.build("root");
}
const arrayEbnf = (n: number) => `root ::= "[" (root ("," root){0,${n}})? "]" | [a-z]+`;
const defs = (n: number) => ({ n: { anyOf: [{ type: "integer" }, { type: "array", items: { $ref: "#/$defs/n" }, maxItems: n }] } });
const nested = (n: number): JsonSchema => ({ $defs: defs(n), $ref: "#/$defs/n" });
const k3Tool = (n: number): IrGrammar => {
  const parameters = { type: "object", $defs: defs(n), properties: { values: { type: "array", maxItems: n, items: { $ref: "#/$defs/n" } } }, required: ["values"] };
  const tag = buildToolCallingFormat({ family: "kimi-k3", tools: [{ type: "function", function: { name: "nest", parameters } }], tool_choice: "required" } as never);
  if (!tag) throw new Error("no format");
  return lowerFormat(tag);
};
const grammars: Array<[string, (n: number) => IrGrammar]> = [
  [`root ::= "[" (root ("," root){0,{N}})? "]" | [a-z]+`, (n) => ebnf(arrayEbnf(n))],
  ["JSON Schema: nested arrays, maxItems {N}", (n) => compileJsonSchema(nested(n)).grammar],
  ["Kimi K3 tool: array parameter, maxItems {N}", k3Tool],
  ["JSON Schema: string, maxLength 65535", () => compileJsonSchema({ type: "string", maxLength: 65535 }).grammar],
  ["root ::= [a-z ]{0,65535}", () => ebnf("root ::= [a-z ]{0,65535}")],
  ["JSON Schema: email, maxLength 254 (was refused)", () => compileJsonSchema({ type: "string", format: "email", maxLength: 254 }).grammar],
];

// ---- compile ----------------------------------------------------------------------------------

const xgr = loadWebXgrammar();
const peerList = peerTokenList();
const peerInfo = await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops);
const peer = (await xgr.GrammarCompiler.createGrammarCompiler(peerInfo, false)) as unknown as {
  compileJSONSchema(schema: string, anyWhitespace?: boolean): Promise<{ dispose(): void }>;
  compileGrammar(ebnf: string): Promise<{ dispose(): void }>;
};
const built = grammars.map(([name, make]) => [name, make(N)] as const);
rows.push(
  ...(await runSuite(
    `compile at N = ${N}, 1 thread (tagmask: IR to mask cache; web-xgrammar: its compile)`,
    [
      ...built.map(([name, g]) => ({
        name: `tagmask ${name.replace("{N}", String(N))}`,
        fn: () => compileGrammar(vocab, g, { threads: 1 }),
        ...(name.startsWith("root ::= \"[\"") ? { peer: "web-xgrammar EBNF array grammar" } : name.startsWith("JSON Schema: nested") ? { peer: "web-xgrammar nested arrays" } : {}),
      })),
      { name: "web-xgrammar EBNF array grammar", fn: async () => (await peer.compileGrammar(arrayEbnf(N))).dispose() },
      { name: "web-xgrammar nested arrays", fn: async () => (await peer.compileJSONSchema(JSON.stringify(nested(N)), true)).dispose() },
    ],
    { timeMs: 3000, warmupMs: 300 },
  )),
);
if (process.env.BENCH_PEER_MAXLENGTH === "1") {
  const t0 = performance.now();
  (await peer.compileJSONSchema(JSON.stringify({ type: "string", maxLength: 65535 }), true)).dispose();
  notes.push(`web-xgrammar compileJSONSchema({type: "string", maxLength: 65535}): ${(performance.now() - t0).toFixed(0)} ms (one run)`);
}

// ---- memory and states against the bound ------------------------------------------------------

for (const [name, make] of grammars.slice(0, 3)) {
  const sizes = [100, N, 65535, 1_000_000].map((n) => {
    const c = compileGrammar(vocab, make(n), { threads: 1 });
    return `N=${n}: ${c.stateCount} states, ${(c.memoryBytes / 1e3).toFixed(0)} kB`;
  });
  notes.push(`${name.replace("{N}", "N")}: ${sizes.join("; ")}`);
}

// ---- fill along documents up to the bound ------------------------------------------------------

function trace(suite: string, compiled: CompiledGrammar, text: string, nearFrom: number): BenchRow[] {
  const tokens = encodeForTest("llama3", text);
  const t = new GrammarMatcher(compiled).handle.benchTrace(Uint32Array.from(tokens), 15);
  const fill = [...t.fillNs].map((ns) => ns / 1000);
  const near = fill.slice(Math.floor(fill.length * nearFrom)).sort((a, b) => a - b);
  const all = [...fill].sort((a, b) => a - b);
  const accept = [...t.acceptNs].map((ns) => ns / 1000).sort((a, b) => a - b);
  const out: BenchRow[] = [
    { suite, task: `fill, every step (${tokens.length} tokens)`, medianUs: quantile(all, 0.5), p99Us: quantile(all, 0.99), samples: all.length },
    { suite, task: `fill, the steps nearest the bound (last ${near.length})`, medianUs: quantile(near, 0.5), p99Us: quantile(near, 0.99), samples: near.length },
    { suite, task: "acceptToken, every step", medianUs: quantile(accept, 0.5), p99Us: quantile(accept, 0.99), samples: accept.length },
  ];
  printRows(suite, out);
  return out;
}

const compiled = built.map(([, g]) => compileGrammar(vocab, g, { threads: 1 }));
const items = (n: number) => Array.from({ length: n }, (_, i) => ["abc", "[x,y]", "hello", "[[a],b]", "[]"][i % 5]);
rows.push(...trace(`${built[0]![0].replace("{N}", String(N))}: ${N + 1} items (the bound)`, compiled[0]!, `[${items(N + 1).join(",")}]`, 0.85));
const numbers = Array.from({ length: N }, (_, i) => (i % 7 === 3 ? [i, [i + 1, [i + 2]], []] : (i * 37) % 1000));
rows.push(...trace(`${built[1]![0].replace("{N}", String(N))}: ${N} items`, compiled[1]!, JSON.stringify(numbers).replace(/,/g, ", "), 0.85));
const k3Output =
  `<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="nest" index="1"<|sep|>` +
  `<|open|>argument key="values" type="array"<|sep|>${JSON.stringify(numbers)}<|close|>argument<|sep|><|close|>call<|sep|>` +
  `<|close|>tools<|sep|><|close|>message<|sep|>`;
rows.push(...trace(`${built[2]![0].replace("{N}", String(N))}: ${N} items`, compiled[2]!, k3Output, 0.85));
const words = "The quick brown fox jumps over the lazy dog, then rests in the shade. ";
const body = words.repeat(Math.ceil(65535 / words.length)).slice(0, 65535);
rows.push(...trace(`${built[3]![0]}: 65,535 characters`, compiled[3]!, JSON.stringify(body), 0.95));
rows.push(...trace(`${built[4]![0]}: 65,535 characters`, compiled[4]!, body.toLowerCase().replace(/[^a-z ]/g, " "), 0.95));
rows.push(...trace(`${built[5]![0]}: 254 characters`, compiled[5]!, JSON.stringify(`${"first.last".repeat(24).slice(0, 240)}@ex.com`), 0.5));

for (const n of notes) console.log(n);
saveReport("engine-counted", rows, { notes });
