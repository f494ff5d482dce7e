#!/usr/bin/env node
// The long run of the property tests (test/safety/properties.test.ts): more runs per property,
// a fresh seed each time (or TAGMASK_PROPERTY_SEED), and a report of the slowest single fill and
// accept seen. `npm test` runs the same properties briefly with a fixed seed.
//
//   npm run test:props                  200 runs per property
//   npm run test:props -- 1000          1000 runs per property
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const runs = Number(process.argv[2] ?? 200);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`property-run: the number of runs must be a positive integer, got ${process.argv[2]}`);
  process.exit(2);
}
const seed = Number(process.env.TAGMASK_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const dir = mkdtempSync(join(tmpdir(), "tagmask-props-"));
const report = join(dir, "report.json");
console.log(`property-run: ${runs} runs per property, seed ${seed} (TAGMASK_PROPERTY_SEED=${seed} repeats this run)`);
const t0 = performance.now();
const res = spawnSync(process.execPath, [join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--testTimeout=3600000", "test/safety/properties.test.ts"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, TAGMASK_PROPERTY_RUNS: String(runs), TAGMASK_PROPERTY_SEED: String(seed), TAGMASK_PROPERTY_REPORT: report },
});
try {
  const r = JSON.parse(readFileSync(report, "utf8"));
  const ms = (x) => `${x.toFixed(3)} ms`;
  console.log(`property-run: steps walked ${JSON.stringify(r.walked)}`);
  console.log(`property-run: ${r.fills} fills: p99 ${ms(r.fillP99Ms)}, slowest ${ms(r.fillMs)} (${r.fillAt})`);
  console.log(`property-run: ${r.accepts} accepts: p99 ${ms(r.acceptP99Ms)}, slowest ${ms(r.acceptMs)} (${r.acceptAt})`);
  console.log(`property-run: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
} catch {
  console.log("property-run: no timing report (the run stopped early)");
}
rmSync(dir, { recursive: true, force: true });
process.exit(res.status ?? 1);
