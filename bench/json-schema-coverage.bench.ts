/**
 * JSON Schema coverage on JSONSchemaBench (../shared/data/jsonschemabench; skipped with a note
 * when absent), `npm run bench -- json-schema-coverage`:
 *
 * 1. Front end, every schema: strict compile to the grammar IR — success rate per set, refusal
 *    reasons ranked, compile time p50 / p99, serialized grammar size. Lenient success too.
 * 2. Whole pipeline against the peer, every SAMPLE-th schema (default 10): tagmask schema → IR → engine
 *    (Llama 3 vocabulary, one thread) and @mlc-ai/web-xgrammar compileJSONSchema in the same run.
 *    The peer compiles more because it ignores keywords it cannot enforce; tagmask refuses them.
 *
 * Results go to bench/results/json-schema-coverage.json and are quoted in docs/json-schema.md.
 */
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { compileGrammar } from "../lib/engine/compiled-grammar.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { benchDir, percentile, report, runSet, SETS, type SetResult } from "./json-schema-coverage.js";
import { loadVocabulary, loadWebXgrammar, peerTokenList, type XgrCompiler } from "./engine-fixtures.js";
import { saveReport } from "./harness.js";

/** The pipeline comparison takes every SAMPLE-th schema (the peer needs minutes on a few). */
const SAMPLE = Number(process.env.COVERAGE_SAMPLE ?? "10");

const dir = benchDir();
if (dir === null) {
  console.log("json-schema-coverage: skipped: ../shared/data/jsonschemabench is absent");
  process.exit(0);
}

// ---- 1. front end ----------------------------------------------------------------------------

// Warm up the caches every compile shares (region automata, format automata).
compileJsonSchema({ type: "object", properties: { a: { type: "number", minimum: 0 }, d: { type: "string", format: "date-time" } } });
const strict: SetResult[] = SETS.map((s) => runSet(dir, s));
const lenient: SetResult[] = SETS.map((s) => runSet(dir, s, { lenient: true }));
console.log("\n## strict compile to the grammar IR\n");
console.log(report(strict));
console.log("\nlenient mode compiles:", lenient.map((r) => `${r.set} ${r.compiled}/${r.total - r.unreadable}`).join(", "));
for (const r of [...strict, ...lenient]) for (const e of r.errors) console.log(`UNEXPECTED ERROR ${e}`);

// ---- 2. whole pipeline vs web-xgrammar -------------------------------------------------------

const vocab = loadVocabulary();
const xgr = loadWebXgrammar();
const peerList = peerTokenList();
const peerInfo = await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops);
const peer: XgrCompiler = await xgr.GrammarCompiler.createGrammarCompiler(peerInfo, false);

interface PipelineRow {
  set: string;
  schemas: number;
  tagmaskCompiled: number;
  tagmaskMs: number[];
  peerCompiled: number;
  peerMs: number[];
}
const pipeline: PipelineRow[] = [];
const engineFailures = new Map<string, number>();
for (const set of SETS) {
  const row: PipelineRow = { set, schemas: 0, tagmaskCompiled: 0, tagmaskMs: [], peerCompiled: 0, peerMs: [] };
  const files = readdirSync(join(dir, set)).filter((f) => f.endsWith(".json")).sort();
  for (let i = 0; i < files.length; i += SAMPLE) {
    let schema: unknown;
    try {
      schema = JSON.parse(readFileSync(join(dir, set, files[i]!), "utf8"));
    } catch {
      continue;
    }
    row.schemas++;
    let t0 = performance.now();
    try {
      compileGrammar(vocab, compileJsonSchema(schema as never).grammar, { threads: 1 });
      row.tagmaskMs.push(performance.now() - t0);
      row.tagmaskCompiled++;
    } catch (err) {
      // Refused (SchemaError) or too large for the engine (GrammarError).
      const key = `${(err as Error).name}: ${(err as Error).message.replace(/#[^:]*:|rule '[^']*'/g, "…").slice(0, 90)}`;
      engineFailures.set(key, (engineFailures.get(key) ?? 0) + 1);
    }
    t0 = performance.now();
    try {
      (await peer.compileJSONSchema(JSON.stringify(schema), true)).dispose();
      row.peerMs.push(performance.now() - t0);
      row.peerCompiled++;
    } catch {
      // The peer rejects the schema.
    }
  }
  row.tagmaskMs.sort((a, b) => a - b);
  row.peerMs.sort((a, b) => a - b);
  pipeline.push(row);
  console.error(`pipeline ${set}: ${row.schemas} schemas done`);
}
console.log(`\n## whole pipeline vs web-xgrammar (every ${SAMPLE}th schema, Llama 3 vocabulary, one thread)\n`);
console.log("| set | schemas | tagmask compiled | tagmask p50 / p99 ms | web-xgrammar compiled | web-xgrammar p50 / p99 ms |");
console.log("|---|---:|---:|---:|---:|---:|");
const f = (xs: number[], p: number): string => percentile(xs, p).toFixed(1);
for (const r of pipeline) {
  console.log(`| ${r.set} | ${r.schemas} | ${r.tagmaskCompiled} | ${f(r.tagmaskMs, 50)} / ${f(r.tagmaskMs, 99)} | ${r.peerCompiled} | ${f(r.peerMs, 50)} / ${f(r.peerMs, 99)} |`);
}
peer.dispose();
console.log("\ntagmask pipeline failures (refusals and engine limits):");
for (const [k, n] of [...engineFailures].sort((a, b) => b[1] - a[1])) console.log(`  ${n} × ${k}`);

const file = saveReport("json-schema-coverage", [], {
  strict: strict.map((r) => ({ set: r.set, total: r.total, compiled: r.compiled, refused: r.refused, unreadable: r.unreadable, p50Ms: percentile(r.timesMs, 50), p99Ms: percentile(r.timesMs, 99), grammarBytesP50: percentile(r.sizes, 50), reasons: Object.fromEntries(r.reasons) })),
  lenient: lenient.map((r) => ({ set: r.set, compiled: r.compiled, total: r.total - r.unreadable })),
  pipeline: pipeline.map((r) => ({ set: r.set, schemas: r.schemas, tagmaskCompiled: r.tagmaskCompiled, tagmaskP50Ms: percentile(r.tagmaskMs, 50), tagmaskP99Ms: percentile(r.tagmaskMs, 99), peerCompiled: r.peerCompiled, peerP50Ms: percentile(r.peerMs, 50), peerP99Ms: percentile(r.peerMs, 99) })),
});
console.log(`\nreport: ${file}`);
