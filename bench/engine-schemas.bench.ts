/**
 * Compiling real-world JSON Schemas (JSONSchemaBench subsets in ../shared/data/jsonschemabench)
 * against the Llama 3 vocabulary: compile time percentiles (JSON Schema compiler + engine, one
 * thread) with @mlc-ai/web-xgrammar 0.1.27 compiling the same schemas in the same run, and how
 * many each refuses. Skips, saying why, where the data is absent.
 *
 * `npm run bench -- engine-schemas`; TAGMASK_SCHEMAS=N sets the schemas per subset (default 40),
 * TAGMASK_SCHEMA_SUBSETS=A,B picks subsets (default all four).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import { compileGrammar } from "../lib/engine/compiled-grammar.js";
import type { JsonSchema } from "../lib/format/types.js";
import { packageRoot } from "../lib/package-root.js";
import { loadVocabulary, loadWebXgrammar, peerTokenList } from "./engine-fixtures.js";
import { printRows, quantile, saveReport, type BenchRow } from "./harness.js";

const dataDir = join(packageRoot(), "..", "shared", "data", "jsonschemabench");
if (!existsSync(dataDir)) {
  console.log(`skipped: ${dataDir} is absent (JSONSchemaBench data)`);
  process.exit(0);
}
const perSubset = Number(process.env.TAGMASK_SCHEMAS ?? 40);
const vocab = loadVocabulary();
vocab.native();
const xgr = loadWebXgrammar();
const peerList = peerTokenList();
const peerInfo = await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops);
const peerCompiler = await xgr.GrammarCompiler.createGrammarCompiler(peerInfo, false);

const rows: BenchRow[] = [];
const summary: string[] = [];
const subsets = process.env.TAGMASK_SCHEMA_SUBSETS?.split(",") ?? ["Glaiveai2K", "Github_easy", "Github_medium", "Snowplow"];
for (const subset of subsets) {
  const dir = join(dataDir, subset);
  if (!existsSync(dir)) continue;
  const files = readdirSync(dir).sort().slice(0, perSubset);
  const ours: number[] = [];
  const peer: number[] = [];
  let ourRefused = 0;
  let peerRefused = 0;
  for (const file of files) {
    const text = readFileSync(join(dir, file), "utf8");
    const t0 = performance.now();
    try {
      compileGrammar(vocab, compileJsonSchema(JSON.parse(text) as JsonSchema, { lenient: true }).grammar, { threads: 1 });
      ours.push(performance.now() - t0);
    } catch {
      ourRefused++;
    }
    const t1 = performance.now();
    try {
      (await peerCompiler.compileJSONSchema(text, true)).dispose();
      peer.push(performance.now() - t1);
    } catch {
      peerRefused++;
    }
  }
  ours.sort((a, b) => a - b);
  peer.sort((a, b) => a - b);
  const row = (task: string, xs: number[], peerName?: string): BenchRow => ({
    suite: `compile JSONSchemaBench ${subset} (${files.length} schemas)`, task, medianUs: quantile(xs, 0.5) * 1000, p99Us: quantile(xs, 0.99) * 1000,
    samples: xs.length, ...(peerName ? { peer: peerName } : {}),
  });
  const mine = row("tagmask (schema compiler + engine, 1 thread)", ours, "web-xgrammar compileJSONSchema");
  const theirs = row("web-xgrammar compileJSONSchema", peer);
  mine.speedupVsPeer = theirs.medianUs / mine.medianUs;
  rows.push(mine, theirs);
  printRows(mine.suite, [mine, theirs]);
  summary.push(`${subset}: tagmask median ${quantile(ours, 0.5).toFixed(1)} ms, p90 ${quantile(ours, 0.9).toFixed(1)} ms, max ${quantile(ours, 1).toFixed(1)} ms, refused ${ourRefused}; ` +
    `web-xgrammar median ${quantile(peer, 0.5).toFixed(1)} ms, p90 ${quantile(peer, 0.9).toFixed(1)} ms, max ${quantile(peer, 1).toFixed(1)} ms, refused ${peerRefused}`);
}
console.log(`\n${summary.join("\n")}`);
console.log(saveReport("engine-schemas", rows, { summary }));
