#!/usr/bin/env node
// Builds the native addon: cmake-js first (CUDA kernels where nvcc is found), node-gyp as a
// CPU-only fallback, and a message naming what to install when both fail.
//
//   node scripts/build-addon.mjs            build (used by `npm install`)
//   node scripts/build-addon.mjs --force    rebuild from scratch
//   options: --cpu-only, --debug, --out DIR (default build/), --jobs N,
//            --sanitize address|thread (a CPU-only sanitized build, for scripts/test-sanitized.mjs)
//   env: TAGMASK_CPU_ONLY=1 (same as --cpu-only), TAGMASK_BUILD_JOBS=N
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};

const sanitize = option("--sanitize", "");
if (sanitize !== "" && sanitize !== "address" && sanitize !== "thread") {
  console.error(`build-addon: --sanitize expects address or thread, got ${JSON.stringify(sanitize)}`);
  process.exit(2);
}
// Sanitizers instrument host code only: a sanitized build leaves the CUDA kernels out.
const cpuOnly = flag("--cpu-only") || process.env.TAGMASK_CPU_ONLY === "1" || sanitize !== "";
const debug = flag("--debug");
const out = resolve(root, option("--out", "build"));
const jobs = Number(option("--jobs", process.env.TAGMASK_BUILD_JOBS ?? String(Math.max(1, cpus().length))));

function run(cmd, cmdArgs) {
  const res = spawnSync(cmd, cmdArgs, { cwd: root, stdio: "inherit", env: process.env });
  if (res.error) return { ok: false, why: res.error.message };
  return { ok: res.status === 0, why: `exit code ${res.status}` };
}

function have(cmd) {
  const res = spawnSync(cmd, ["--version"], { stdio: "ignore" });
  return !res.error && res.status === 0;
}

if (flag("--force") && existsSync(out)) rmSync(out, { recursive: true, force: true });

const failures = [];
if (have("cmake")) {
  let cmakeJs;
  try {
    cmakeJs = join(dirname(require.resolve("cmake-js/package.json")), "bin", "cmake-js");
  } catch {
    cmakeJs = undefined;
  }
  if (cmakeJs) {
    const cmArgs = [cmakeJs, "build", "--out", out, "--config", debug ? "Debug" : "Release",
      "--parallel", String(jobs)];
    if (cpuOnly) cmArgs.push("--CDTAGMASK_CPU_ONLY=ON");
    if (sanitize) cmArgs.push(`--CDTAGMASK_SANITIZE=${sanitize}`);
    const res = run(process.execPath, cmArgs);
    if (res.ok) process.exit(0);
    // node-gyp knows no sanitizer option: a sanitized build is cmake-js or nothing.
    if (sanitize) {
      console.error(`build-addon: the sanitized build failed (${res.why})`);
      process.exit(1);
    }
    failures.push(`cmake-js failed (${res.why})`);
  } else {
    failures.push("cmake-js is not installed (it is a dependency of tagmask: run `npm install`)");
  }
} else {
  failures.push("cmake was not found on PATH");
}

if (sanitize) {
  console.error(`build-addon: a sanitized build needs cmake and cmake-js:\n  - ${failures.join("\n  - ")}`);
  process.exit(1);
}

// node-gyp fallback: CPU-only build of the same sources (binding.gyp).
let nodeGyp;
try {
  nodeGyp = require.resolve("node-gyp/bin/node-gyp.js");
} catch {
  const npmDir = dirname(dirname(process.execPath));
  const candidate = join(npmDir, "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js");
  if (existsSync(candidate)) nodeGyp = candidate;
}
if (nodeGyp) {
  console.error("tagmask: falling back to node-gyp (CPU-only build)");
  const gypArgs = [nodeGyp, "rebuild", debug ? "--debug" : "--release", `--jobs=${jobs}`];
  // Build against the headers of the running Node when they are installed beside it (no download).
  const localHeaders = resolve(dirname(process.execPath), "..");
  if (!process.env.npm_config_nodedir && existsSync(join(localHeaders, "include", "node", "node_api.h"))) {
    gypArgs.push(`--nodedir=${localHeaders}`);
  }
  const res = run(process.execPath, gypArgs);
  if (res.ok) process.exit(0);
  failures.push(`node-gyp failed (${res.why})`);
} else {
  failures.push("node-gyp was not found");
}

console.error(
  [
    "tagmask: could not build the native addon.",
    ...failures.map((f) => `  - ${f}`),
    "Install a C++17 compiler (g++ 9+ or clang 10+), make, python3 and cmake 3.18+ (for example",
    "`apt-get install build-essential cmake python3`), then run `npm rebuild tagmask`.",
    "For the CUDA kernels also install the CUDA toolkit so that `nvcc` is on PATH.",
  ].join("\n"),
);
process.exit(1);
