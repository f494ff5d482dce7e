#!/usr/bin/env node
// `npm run bench [-- NAME ...]`: builds the TypeScript, then runs every dist/bench/*.bench.js
// (or those whose name contains one of the given words) one after another, each in its own
// process so one suite's memory and JIT state do not colour the next.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const filters = process.argv.slice(2);
const dir = join(root, "dist", "bench");
const files = readdirSync(dir).filter((f) => f.endsWith(".bench.js") && (filters.length === 0 || filters.some((w) => f.includes(w)))).sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${filters.join(", ")} (have: ${readdirSync(dir).filter((f) => f.endsWith(".bench.js")).join(", ")})`);
  process.exit(2);
}
let failed = 0;
for (const f of files) {
  console.log(`\n# ${f}`);
  const res = spawnSync(process.execPath, ["--expose-gc", join(dir, f)], { cwd: root, stdio: "inherit" });
  if (res.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
