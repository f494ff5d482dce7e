/**
 * Objects whose members may come in any order (issue 12, "Enums and member order"; docs/engine.md
 * "Marks"), Llama 3 vocabulary, one thread: compile time of flat objects with 11 and 30 optional
 * members (schema to IR, IR to mask cache), states and memory against the number of members, and
 * fill times along documents that write the members in an order of their own. web-xgrammar
 * 0.1.27 compiles the 11-member schema once in the same run (it writes members in declared order
 * only, so its figure is the declared-order cost, given for scale; it unrolls each maxLength, ~9 s
 * a compile on a loaded machine, too slow to repeat). BENCH_PEER_30=1 also times its 30-member
 * compile once.
 *
 * `npm run bench -- engine-any-order` (results in bench/results/engine-any-order.json).
 */
import { compileJsonSchema } from "../lib/compile/json-schema/index.js";
import type { JsonSchema } from "../lib/format/types.js";
import { compileGrammar, type CompiledGrammar } from "../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../lib/engine/matcher.js";
import { encodeForTest } from "../test/helpers/vocab.js";
import { loadVocabulary, loadWebXgrammar, peerTokenList } from "./engine-fixtures.js";
import { printRows, quantile, runSuite, saveReport, type BenchRow } from "./harness.js";

const vocab = loadVocabulary();
const rows: BenchRow[] = [];
const notes: string[] = [];

// A Snowplow-like event: flat, every member optional, no other keys.
const NAMES = [
  "appId", "platform", "eventId", "userId", "domainUserid", "networkUserid", "pageUrl", "pageTitle", "referrer", "useragent", "geoCountry",
  "geoRegion", "geoCity", "geoZipcode", "geoLatitude", "geoLongitude", "ipAddress", "browserName", "browserVersion", "osName", "osVersion",
  "deviceType", "screenWidth", "screenHeight", "timezone", "language", "sessionId", "sessionIndex", "eventName", "eventVendor",
];
const members = (n: number) => Object.fromEntries(NAMES.slice(0, n).map((x, i) => [x, i % 3 === 0 ? { type: "integer" } : { type: "string", maxLength: 256 }]));
const flat = (n: number): JsonSchema => ({ type: "object", properties: members(n), additionalProperties: false });
const mixed: JsonSchema = {
  type: "object",
  properties: { id: { type: "integer" }, name: { type: "string" }, tags: { type: "array", items: { type: "string" } }, ...members(8) },
  required: ["id", "name"],
  additionalProperties: { type: "boolean" },
  minProperties: 3,
};
const cases: Array<[string, JsonSchema]> = [
  ["11 optional members", flat(11)],
  ["30 optional members", flat(30)],
  ["11 members: 2 required, additional members, minProperties 3", mixed],
];
const lower = (s: JsonSchema) => compileJsonSchema(s, { anyOrder: true }).grammar;

const xgr = loadWebXgrammar();
const peerList = peerTokenList();
const peerInfo = await xgr.TokenizerInfo.createTokenizerInfo(peerList.tokens, "byte_level", false, undefined, peerList.stops);
const peer = (await xgr.GrammarCompiler.createGrammarCompiler(peerInfo, false)) as unknown as {
  compileJSONSchema(schema: string, anyWhitespace?: boolean): Promise<{ dispose(): void }>;
};
const grammars = cases.map(([name, s]) => [name, s, lower(s)] as const);
rows.push(
  ...(await runSuite(
    "compile, any order, 1 thread (schema to IR; IR to mask cache)",
    [
      ...grammars.map(([name, s]) => ({ name: `tagmask lower ${name}`, fn: () => lower(s) })),
      ...grammars.map(([name, , g]) => ({ name: `tagmask engine ${name}`, fn: () => compileGrammar(vocab, g, { threads: 1 }) })),
    ],
    { timeMs: 3000, warmupMs: 300 },
  )),
);
for (const [name, s] of grammars.slice(0, process.env.BENCH_PEER_30 === "1" ? 2 : 1)) {
  const t0 = performance.now();
  (await peer.compileJSONSchema(JSON.stringify(s), true)).dispose();
  notes.push(`web-xgrammar compileJSONSchema(${name}, declared order): ${(performance.now() - t0).toFixed(0)} ms (one run)`);
}

// ---- states and memory against the members -----------------------------------------------------

notes.push(
  `states / memory by optional members: ${[5, 10, 15, 20, 25, 30]
    .map((n) => {
      const c = compileGrammar(vocab, lower(flat(n)), { threads: 1 });
      return `${n}: ${c.stateCount} / ${(c.memoryBytes / 1e3).toFixed(0)} kB`;
    })
    .join("; ")}`,
);

// ---- fills along documents in an order of their own ---------------------------------------------

function trace(suite: string, compiled: CompiledGrammar, text: string): BenchRow[] {
  const tokens = encodeForTest("llama3", text);
  const t = new GrammarMatcher(compiled).handle.benchTrace(Uint32Array.from(tokens), 15);
  const fill = [...t.fillNs].map((ns) => ns / 1000).sort((a, b) => a - b);
  const accept = [...t.acceptNs].map((ns) => ns / 1000).sort((a, b) => a - b);
  const out: BenchRow[] = [
    { suite, task: `fill, every step (${tokens.length} tokens)`, medianUs: quantile(fill, 0.5), p99Us: quantile(fill, 0.99), samples: fill.length },
    { suite, task: "acceptToken, every step", medianUs: quantile(accept, 0.5), p99Us: quantile(accept, 0.99), samples: accept.length },
  ];
  printRows(suite, out);
  return out;
}

const value = (x: string, i: number) => (i % 3 === 0 ? i * 37 : `${x} value ${i}`);
const shuffled = (n: number) => NAMES.slice(0, n).map((x, i) => [x, value(x, i)] as const).sort((a, b) => (a[0].length * 7919) % 13 - (b[0].length * 7919) % 13 || a[0].localeCompare(b[0]));
for (const [i, n] of [11, 30].entries()) {
  const compiled = compileGrammar(vocab, grammars[i]![2], { threads: 1 });
  rows.push(...trace(`${grammars[i]![0]}: all ${n}, shuffled`, compiled, JSON.stringify(Object.fromEntries(shuffled(n)), null, 2)));
}
{
  const compiled = compileGrammar(vocab, grammars[2]![2], { threads: 1 });
  const doc = { appId: 1, x: true, name: "n", platform: "web", id: 7, tags: ["a", "b"], y: false };
  rows.push(...trace(`${grammars[2]![0]}`, compiled, JSON.stringify(doc, null, 2)));
}

for (const n of notes) console.log(n);
saveReport("engine-any-order", rows, { notes });
