#!/usr/bin/env node
// `npm run load-test [-- options]`: builds the TypeScript, starts a tagmask server on the tiny
// random model on 127.0.0.1 (a free port) and runs concurrent `openai` clients against it
// (bench/load-test.ts). Exits 1 if any request failed or any tool call was invalid.
//
//   --clients N     concurrent clients (default 32)
//   --requests N    requests per client, one after another (default 5)
//   --parallel N    server sequences (default 8: the rest wait in the queue)
//   --max-tokens N  most tokens per completion (default 256)
//   --seed N        seed of the request mix (default 1)
//   --overhead      instead: the masking share of a decoding step at 1, 8 and 32 concurrent
//                   sequences (clients = sequences, tool choices that always constrain)
//   --json          print the report(s) as JSON
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let args;
try {
  ({ values: args } = parseArgs({
    options: {
      clients: { type: "string", default: "32" },
      requests: { type: "string", default: "5" },
      parallel: { type: "string", default: "8" },
      "max-tokens": { type: "string", default: "256" },
      seed: { type: "string", default: "1" },
      overhead: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  }));
} catch (err) {
  console.error(`load-test: ${err.message}`);
  process.exit(2);
}
const int = (name, min) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < min) {
    console.error(`load-test: --${name} must be an integer ≥ ${min}, got ${args[name]}`);
    process.exit(2);
  }
  return n;
};
const options = {
  clients: int("clients", 1), requestsPerClient: int("requests", 1), parallel: int("parallel", 1),
  maxTokens: int("max-tokens", 1), seed: int("seed", 0),
};

const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const { runLoadTest, formatReport } = await import(pathToFileURL(join(root, "dist", "bench", "load-test.js")).href);

const runs = args.overhead
  ? [1, 8, 32].map((n) => [`${n} concurrent sequence${n === 1 ? "" : "s"}`, { ...options, clients: n, parallel: n, requestsPerClient: Math.max(2, Math.ceil(32 / n)), constrainedOnly: true }])
  : [[`${options.clients} clients × ${options.requestsPerClient} requests, ${options.parallel} sequences`, options]];
const reports = [];
let bad = 0;
for (const [title, opts] of runs) {
  const report = await runLoadTest(opts);
  reports.push({ title, ...report });
  bad += report.failedRequests + report.invalidToolCalls + report.problems.length;
  if (!args.json) console.log(`${formatReport(report, title)}\n`);
}
if (args.json) console.log(JSON.stringify(reports, null, 2));
process.exit(bad === 0 ? 0 : 1);
