/**
 * Engine benchmarks on the Llama 3 vocabulary (128,256 ids + the Kimi K3 markers), with
 * @mlc-ai/web-xgrammar 0.1.27 measured in the same run where it can express the grammar:
 * the vocabulary handle, compiling, filling masks (per state, through the JS call, and natively
 * over whole outputs), and accepting tokens. Targets from issue 6 are checked at the end.
 *
 * `npm run bench -- engine` (results in bench/results/engine.json). Keep the machine otherwise
 * idle: on 2 shared cores the figures move with the load.
 */
import { GrammarBuilder, type IrGrammar } from "../lib/compile/ir.js";
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { jsonValueRule } from "../lib/compile/json-value.js";
import { compileGrammar, type CompiledGrammar } from "../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../lib/engine/matcher.js";
import { native, type NativeTokenizerInfoHandle } from "../lib/native.js";
import type { TokenizerInfo } from "../lib/tokenizer/tokenizer-info.js";
import { encodeForTest } from "../test/helpers/vocab.js";
import type { XgrCompiled, XgrCompiler, XgrMatcher } from "../test/helpers/web-xgrammar.js";
import {
  loadVocabulary, loadWebXgrammar, longStringDocument, longStringGrammar, LONG_STRING_SCHEMA, peerStructuralTag, peerTokenList,
  SEED_REQUIRED_OUTPUT, seedGrammar, seedTag,
} from "./engine-fixtures.js";
import { printRows, quantile, runSuite, saveReport, type BenchRow } from "./harness.js";

const vocab = loadVocabulary();
const handle = vocab.native() as NativeTokenizerInfoHandle;
const xgr = loadWebXgrammar();
const peerList = peerTokenList();
const peerInfo = await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops);
const peerCompiler: XgrCompiler = await xgr.GrammarCompiler.createGrammarCompiler(peerInfo, false);
const allRows: BenchRow[] = [];
const notes: string[] = [];

// ---- vocabulary -----------------------------------------------------------------------------

allRows.push(
  ...(await runSuite(
    "vocabulary handle (Llama 3 + K3 markers)",
    [
      { name: "tagmask createTokenizerInfo(data)", fn: () => native().createTokenizerInfo(vocab.data), peer: "web-xgrammar createTokenizerInfo(list)" },
      { name: "web-xgrammar createTokenizerInfo(list)", fn: async () => (await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops)).dispose() },
    ],
    { timeMs: 3000, warmupMs: 500 },
  )),
);
const trie = handle.trieStats();
notes.push(`native vocabulary memory ${(handle.memoryBytes / 1e6).toFixed(2)} MB (tries ${(trie.trieBytes / 1e6).toFixed(2)} MB: ${trie.plainTokens} plain tokens in ${trie.plainNodes} nodes, ${trie.impureTokens} others in ${trie.impureNodes})`);

// ---- compile --------------------------------------------------------------------------------

const weatherSchema = { type: "object", properties: { location: { type: "string" } }, required: ["location"] };
const jsonAny = (() => {
  const b = new GrammarBuilder();
  b.define("root", jsonValueRule(b));
  return b.build("root");
})();
const seed: IrGrammar = seedGrammar("required");
const seedOpen: IrGrammar = seedGrammar("required", true);
const peerSeed = peerStructuralTag(seedTag("required"));
const weather = compileJsonSchema(weatherSchema).grammar;
const longString = longStringGrammar();

async function peerCompile(make: () => Promise<XgrCompiled>): Promise<void> {
  (await make()).dispose();
}

allRows.push(
  ...(await runSuite(
    "compile (fresh, no cache)",
    [
      { name: "tagmask seed required, 1 thread", fn: () => compileGrammar(vocab, seed, { threads: 1 }), peer: "web-xgrammar seed-like structural tag" },
      { name: "tagmask seed required, pool threads", fn: () => compileGrammar(vocab, seed) },
      { name: "tagmask seed required, open argument objects, 1 thread", fn: () => compileGrammar(vocab, seedOpen, { threads: 1 }), peer: "web-xgrammar seed-like structural tag" },
      { name: "web-xgrammar seed-like structural tag", fn: () => peerCompile(() => peerCompiler.compileStructuralTag(peerSeed)) },
      { name: "tagmask weather schema, 1 thread", fn: () => compileGrammar(vocab, weather, { threads: 1 }), peer: "web-xgrammar weather schema" },
      { name: "web-xgrammar weather schema", fn: () => peerCompile(() => peerCompiler.compileJSONSchema(JSON.stringify(weatherSchema), true)) },
      { name: "tagmask any JSON, 1 thread", fn: () => compileGrammar(vocab, jsonAny, { threads: 1 }), peer: "web-xgrammar builtin JSON" },
      { name: "web-xgrammar builtin JSON", fn: () => peerCompile(() => peerCompiler.compileBuiltinJSONGrammar()) },
    ],
    { timeMs: 3000, warmupMs: 500 },
  )),
);
const seedStats = compileGrammar(vocab, seed, { threads: 1 }).stats();
notes.push(`seed required: ${seedStats.states} states, ${seedStats.byteClasses} byte classes, kept rules [${seedStats.keptRules.join(", ")}], ` +
  `${seedStats.distinctMasks} distinct masks, ${seedStats.uncertainTokens} uncertain tokens (${seedStats.residualTokens} residual); ` +
  `automaton ${seedStats.automatonMs.toFixed(2)} ms + masks ${seedStats.masksMs.toFixed(2)} ms`);

// ---- fill, per state (JS call) ----------------------------------------------------------------

const seedCompiled = compileGrammar(vocab, seed);
const peerSeedCompiled = await peerCompiler.compileStructuralTag(peerSeed);
const seedTokens = encodeForTest("llama3", SEED_REQUIRED_OUTPUT);

/** The number of tokens after which the decoded output first ends with `marker`. */
function stepAfter(tokens: number[], info: TokenizerInfo, marker: string): number {
  let text = "";
  for (let i = 0; i < tokens.length; i++) {
    text += info.tokenText(tokens[i]!);
    if (text.endsWith(marker)) return i + 1;
  }
  throw new Error(`the output never ends with ${JSON.stringify(marker)}`);
}

async function at(compiled: CompiledGrammar, peer: XgrCompiled, tokens: number[], steps: number): Promise<[GrammarMatcher, XgrMatcher]> {
  const m = new GrammarMatcher(compiled);
  const p = await xgr.GrammarMatcher.createGrammarMatcher(peer);
  for (const id of tokens.slice(0, steps)) {
    if (!m.acceptToken(id)) throw new Error(`tagmask rejected token ${id}`);
    if (!p.acceptToken(id)) throw new Error(`web-xgrammar rejected token ${id}`);
  }
  return [m, p];
}

const STATES: Array<[string, string]> = [
  ["structural (call index)", 'call tool="get_weather" index="'],
  ["free text", "<|open|>response<|sep|>Let me check"],
  ["argument string", 'type="string"<|sep|>San'],
  ["JSON string", '"items": ["apples", "two'],
  ["JSON number", '{"y": 12'],
];
const mask = new Int32Array(Math.ceil(vocab.vocabSize / 32));
const fillTasks = [];
for (const [label, marker] of STATES) {
  const [m, p] = await at(seedCompiled, peerSeedCompiled, seedTokens, stepAfter(seedTokens, vocab, marker));
  const n = 200;
  fillTasks.push(
    { name: `tagmask fill: ${label}`, fn: () => { for (let i = 0; i < n; i++) m.fillNextTokenBitmask(mask); }, opsPerCall: n, peer: `web-xgrammar fill: ${label}` },
    { name: `web-xgrammar fill: ${label}`, fn: async () => { for (let i = 0; i < 20; i++) await p.getNextTokenBitmask(); }, opsPerCall: 20 },
  );
}
allRows.push(...(await runSuite("fill one mask, seed required grammar (JS call, batched per sample)", fillTasks, { timeMs: 1500, warmupMs: 200 })));

// ---- fill over whole outputs (per step) ------------------------------------------------------

/** Per-step fill times over an output: natively (benchTrace) and through the JS call. */
async function traceRows(suite: string, compiled: CompiledGrammar, peer: XgrCompiled | undefined, tokens: number[]): Promise<BenchRow[]> {
  const m = new GrammarMatcher(compiled);
  const trace = m.handle.benchTrace(Uint32Array.from(tokens), 31);
  const nativeFill = [...trace.fillNs].map((ns) => ns / 1000).sort((a, b) => a - b);
  const nativeAccept = [...trace.acceptNs].map((ns) => ns / 1000).sort((a, b) => a - b);
  const jsFill: number[] = [];
  const peerFill: number[] = [];
  const p = peer ? await xgr.GrammarMatcher.createGrammarMatcher(peer) : undefined;
  for (let step = 0; step <= tokens.length; step++) {
    const reps: number[] = [];
    for (let r = 0; r < 15; r++) {
      const t0 = performance.now();
      m.fillNextTokenBitmask(mask);
      reps.push((performance.now() - t0) * 1000);
    }
    jsFill.push(reps.sort((a, b) => a - b)[7]!);
    if (p) {
      const peerReps: number[] = [];
      for (let r = 0; r < 3; r++) {
        const t0 = performance.now();
        await p.getNextTokenBitmask();
        peerReps.push((performance.now() - t0) * 1000);
      }
      peerFill.push(peerReps.sort((a, b) => a - b)[1]!);
    }
    if (step < tokens.length) {
      m.acceptToken(tokens[step]!);
      p?.acceptToken(tokens[step]!);
    }
  }
  jsFill.sort((a, b) => a - b);
  peerFill.sort((a, b) => a - b);
  const row = (task: string, xs: number[], peerName?: string): BenchRow => ({
    suite, task, medianUs: quantile(xs, 0.5), p99Us: quantile(xs, 0.99), samples: xs.length, ...(peerName ? { peer: peerName } : {}),
  });
  const rows = [
    row("tagmask fill, native (benchTrace)", nativeFill),
    row("tagmask fill, JS call (performance.now per call)", jsFill, p ? "web-xgrammar fill" : undefined),
    row("tagmask acceptToken, native (benchTrace)", nativeAccept),
  ];
  if (p) rows.push(row("web-xgrammar fill", peerFill));
  for (const r of rows) {
    const peerRow = rows.find((x) => x.task === r.peer);
    if (peerRow) r.speedupVsPeer = peerRow.medianUs / r.medianUs;
  }
  printRows(suite, rows);
  return rows;
}

allRows.push(...(await traceRows(`every step of a seed required output (${seedTokens.length} tokens)`, seedCompiled, peerSeedCompiled, seedTokens)));
const longCompiled = compileGrammar(vocab, longString);
const peerLong = await peerCompiler.compileJSONSchema(JSON.stringify(LONG_STRING_SCHEMA), true);
const longTokens = encodeForTest("llama3", longStringDocument());
allRows.push(...(await traceRows(`every step of a JSON document with a 1 KB string (${longTokens.length} tokens)`, longCompiled, peerLong, longTokens)));

// ---- accept ---------------------------------------------------------------------------------

{
  const m = new GrammarMatcher(seedCompiled);
  const p = await xgr.GrammarMatcher.createGrammarMatcher(peerSeedCompiled);
  allRows.push(
    ...(await runSuite(
      `acceptToken along the seed output (${seedTokens.length} tokens, then reset; JS call)`,
      [
        { name: "tagmask acceptToken", fn: () => { for (const id of seedTokens) m.acceptToken(id); m.reset(); }, opsPerCall: seedTokens.length, peer: "web-xgrammar acceptToken" },
        { name: "web-xgrammar acceptToken", fn: () => { for (const id of seedTokens) p.acceptToken(id); p.reset(); }, opsPerCall: seedTokens.length },
      ],
      { timeMs: 1500, warmupMs: 200 },
    )),
  );
}

// ---- targets --------------------------------------------------------------------------------

const find = (suiteStart: string, task: string) => allRows.find((r) => r.suite.startsWith(suiteStart) && r.task === task);
const verdict = (ok: boolean | undefined) => (ok === undefined ? "n/a" : ok ? "met" : "NOT met");
const us = (x: number | undefined) => (x === undefined ? "?" : `${x.toFixed(3)} µs`);
const vocabRow = find("vocabulary", "tagmask createTokenizerInfo(data)");
const compileRow = find("compile", "tagmask seed required, 1 thread");
const compileOpenRow = find("compile", "tagmask seed required, open argument objects, 1 thread");
const structural = find("fill one mask", "tagmask fill: structural (call index)");
const freeText = find("fill one mask", "tagmask fill: free text");
const argString = find("fill one mask", "tagmask fill: argument string");
const jsonString = find("fill one mask", "tagmask fill: JSON string");
const seedTrace = allRows.filter((r) => r.suite.startsWith("every step of a seed"));
const longTrace = allRows.filter((r) => r.suite.startsWith("every step of a JSON"));
const acceptJs = find("acceptToken", "tagmask acceptToken");
const acceptNative = seedTrace.find((r) => r.task.startsWith("tagmask acceptToken"));
const p99 = Math.max(...[...seedTrace, ...longTrace].filter((r) => r.task.startsWith("tagmask fill")).map((r) => r.p99Us));
const targets = [
  `native vocabulary handle ≤ 100 ms: ${(vocabRow!.medianUs / 1000).toFixed(1)} ms (the tokenizer.json loader is measured in bench/integration-vocabulary) — ${verdict(vocabRow!.medianUs <= 100_000)}`,
  `vocabulary memory ≤ 20 MB: ${(handle.memoryBytes / 1e6).toFixed(2)} MB native — ${verdict(handle.memoryBytes <= 20e6)}`,
  `compile seed required ≤ 5 ms on 1 thread: ${(compileRow!.medianUs / 1000).toFixed(2)} ms — ${verdict(compileRow!.medianUs <= 5000)}` +
    ` (argument objects opened with additionalProperties: true: ${(compileOpenRow!.medianUs / 1000).toFixed(2)} ms)`,
  `fill ≤ 1 µs structural: ${us(structural?.medianUs)}, free text: ${us(freeText?.medianUs)} — ${verdict(Math.max(structural!.medianUs, freeText!.medianUs) <= 1)}`,
  `fill ≤ 5 µs in strings: argument ${us(argString?.medianUs)}, JSON ${us(jsonString?.medianUs)} — ${verdict(Math.max(argString!.medianUs, jsonString!.medianUs) <= 5)}`,
  `fill p99 ≤ 30 µs over the outputs (JS call and native): ${p99.toFixed(2)} µs — ${verdict(p99 <= 30)}`,
  `acceptToken ≤ 0.2 µs median: JS ${us(acceptJs?.medianUs)}, native ${us(acceptNative?.medianUs)} — ${verdict(acceptJs!.medianUs <= 0.2)}`,
];
console.log(`\n## notes\n${notes.join("\n")}\n\n## targets (issue 6)\n${targets.join("\n")}`);
console.log(saveReport("engine", allRows, { notes, targets }));
