#!/usr/bin/env node
// The GPU benchmark as one command (on a machine with a CUDA device and the addon built with
// nvcc, i.e. after `npm install` there):   node bench/gpu/run.mjs [--quick]
// Builds the TypeScript, then runs dist/bench/gpu/kernels.bench.js; the figures are printed and
// written to bench/results/gpu-kernels.json. Takes a few minutes (--quick: under one).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], {
  cwd: root,
  stdio: "inherit",
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const res = spawnSync(process.execPath, [join(root, "dist", "bench", "gpu", "kernels.bench.js"), ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
process.exit(res.status ?? 1);
