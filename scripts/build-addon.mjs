#!/usr/bin/env node
// Builds the native addon from source: cmake-js where it and cmake are installed (CUDA kernels
// where nvcc is found), else node-gyp (the one npm bundles; CPU only). Warnings stay warnings
// unless --werror is given (the repository's own builds and CI use it), so that a newer compiler
// with a new warning never breaks a user's install.
//
//   node scripts/build-addon.mjs [--force] [--cpu-only] [--debug] [--werror] [--static-runtime]
//                                [--out DIR] [--jobs N] [--sanitize address|thread]
//   --sanitize: a CPU-only build with AddressSanitizer + UBSan or ThreadSanitizer, for
//   scripts/test-sanitized.mjs (npm run test:asan / test:tsan); cmake-js only.
//   env: TAGMASK_CPU_ONLY=1, TAGMASK_WERROR=1, TAGMASK_BUILD_JOBS=N; CC/CXX choose the compiler.
//
// A successful build writes DIR/build-info.json (the sources hash, the options, the tool).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { nativeSourcesHash, packageVersion, root } from "./native-sources.mjs";

const require = createRequire(import.meta.url);

function run(cmd, args, env) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env });
  if (res.error) return { ok: false, why: res.error.message };
  return { ok: res.status === 0, why: res.signal ? `killed by ${res.signal}` : `exit code ${res.status}` };
}

function have(cmd) {
  const res = spawnSync(cmd, ["--version"], { stdio: "ignore" });
  return !res.error && res.status === 0;
}

function resolveCmakeJs() {
  try {
    return join(dirname(require.resolve("cmake-js/package.json")), "bin", "cmake-js");
  } catch {
    return undefined;
  }
}

/** node-gyp: the one npm runs scripts with (npm_config_node_gyp), a local one, or npm's own copy. */
function resolveNodeGyp() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm && existsSync(fromNpm)) return fromNpm;
  try {
    return require.resolve("node-gyp/bin/node-gyp.js");
  } catch {
    const candidate = join(dirname(dirname(process.execPath)), "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js");
    return existsSync(candidate) ? candidate : undefined;
  }
}

/**
 * Builds the addon into `out` (default build/). Returns {ok, file, tool} or {ok: false, failures}
 * with one line per way tried; never throws for a failed build.
 */
export function buildAddon(options = {}) {
  const out = resolve(root, options.out ?? "build");
  const jobs = options.jobs ?? Math.max(1, cpus().length);
  const config = options.debug ? "Debug" : "Release";
  // Sanitizers instrument host code only: a sanitized build leaves the CUDA kernels out.
  const cpuOnly = !!options.cpuOnly || !!options.sanitize;
  const env = { ...process.env };
  if (options.werror) env.TAGMASK_WERROR = "1";
  else delete env.TAGMASK_WERROR;
  if (options.force && existsSync(out)) rmSync(out, { recursive: true, force: true });
  const failures = [];
  const done = (tool) => {
    const file = join(out, config, "tagmask.node");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "build-info.json"), `${JSON.stringify({
      tagmaskVersion: packageVersion(), sourcesHash: nativeSourcesHash(), tool, config,
      cpuOnly, werror: !!options.werror, staticRuntime: !!options.staticRuntime, sanitize: options.sanitize ?? null,
      compiler: process.env.CXX ?? null,
    }, null, 2)}\n`);
    return { ok: true, file, tool };
  };

  const cmakeJs = resolveCmakeJs();
  if (!have("cmake")) failures.push("cmake was not found on PATH (needed for the CUDA kernels)");
  else if (!cmakeJs) failures.push("cmake-js is not installed (needed with cmake; `npm install --save-dev cmake-js` for a CUDA source build)");
  else {
    const common = ["--out", out, "--config", config,
      `--CDTAGMASK_WERROR=${options.werror ? "ON" : "OFF"}`, `--CDTAGMASK_STATIC_RUNTIME=${options.staticRuntime ? "ON" : "OFF"}`,
      `--CDTAGMASK_CPU_ONLY=${cpuOnly ? "ON" : "OFF"}`, `--CDTAGMASK_SANITIZE=${options.sanitize ?? ""}`];
    // Configure every time: `cmake-js build` alone keeps an existing build's old options.
    let res = run(process.execPath, [cmakeJs, "configure", ...common], env);
    if (res.ok) res = run(process.execPath, [cmakeJs, "build", ...common, "--parallel", String(jobs)], env);
    if (res.ok) return done("cmake-js");
    failures.push(`cmake-js failed (${res.why}; its output is above)`);
  }

  if (options.staticRuntime || options.sanitize || out !== join(root, "build")) {
    failures.push("node-gyp was not tried (it builds into build/ without the static runtime or sanitizer options)");
    return { ok: false, failures };
  }
  const nodeGyp = resolveNodeGyp();
  if (!nodeGyp) {
    failures.push("node-gyp was not found (npm bundles it: run the build through npm, e.g. `npm rebuild tagmask`)");
    return { ok: false, failures };
  }
  console.error("tagmask: building with node-gyp (CPU only)");
  const gypArgs = [nodeGyp, "rebuild", options.debug ? "--debug" : "--release", `--jobs=${jobs}`];
  // The headers of the running Node when they are installed beside it: no download needed.
  const localHeaders = resolve(dirname(process.execPath), "..");
  if (!process.env.npm_config_nodedir && existsSync(join(localHeaders, "include", "node", "node_api.h"))) {
    gypArgs.push(`--nodedir=${localHeaders}`);
  }
  const res = run(process.execPath, gypArgs, env);
  if (res.ok) return done("node-gyp");
  failures.push(`node-gyp failed (${res.why}; its output is above)`);
  return { ok: false, failures };
}

/** The one-paragraph explanation printed when no way of building worked. */
export function buildFailureMessage(failures) {
  return [
    "tagmask: could not build the native addon:",
    ...failures.map((f) => `  - ${f}`),
    "Install a C++17 compiler (g++ >= 11 or clang >= 14), make and python3 (for example",
    "`apt-get install build-essential python3`), then run `npm rebuild tagmask --build-from-source`.",
    "For the CUDA kernels also install cmake >= 3.18, the CUDA toolkit (nvcc on PATH) and cmake-js.",
  ].join("\n");
}

function main() {
  const { values } = parseArgs({
    options: {
      force: { type: "boolean" }, "cpu-only": { type: "boolean" }, debug: { type: "boolean" }, werror: { type: "boolean" },
      "static-runtime": { type: "boolean" }, out: { type: "string" }, jobs: { type: "string" }, sanitize: { type: "string" },
    },
    strict: true,
  });
  const jobs = Number(values.jobs ?? process.env.TAGMASK_BUILD_JOBS ?? Math.max(1, cpus().length));
  if (!Number.isInteger(jobs) || jobs < 1) {
    console.error(`tagmask: --jobs / TAGMASK_BUILD_JOBS must be a positive integer, got ${values.jobs ?? process.env.TAGMASK_BUILD_JOBS}`);
    process.exit(2);
  }
  if (values.sanitize !== undefined && values.sanitize !== "address" && values.sanitize !== "thread") {
    console.error(`tagmask: --sanitize expects address or thread, got ${JSON.stringify(values.sanitize)}`);
    process.exit(2);
  }
  const res = buildAddon({
    force: values.force, cpuOnly: values["cpu-only"] || process.env.TAGMASK_CPU_ONLY === "1", debug: values.debug,
    werror: values.werror || process.env.TAGMASK_WERROR === "1", staticRuntime: values["static-runtime"], out: values.out, jobs,
    sanitize: values.sanitize,
  });
  if (!res.ok) {
    console.error(buildFailureMessage(res.failures));
    process.exit(1);
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) main();
