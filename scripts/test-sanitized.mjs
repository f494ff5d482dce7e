#!/usr/bin/env node
// Runs the native-facing tests on a sanitized build of the addon.
//
//   node scripts/test-sanitized.mjs address [vitest args...]   (npm run test:asan)
//   node scripts/test-sanitized.mjs thread  [vitest args...]   (npm run test:tsan)
//
// address: AddressSanitizer + UndefinedBehaviorSanitizer, built into build-asan/; thread:
// ThreadSanitizer, built into build-tsan/ (CMake option TAGMASK_SANITIZE; cmake-js sets
// CMAKE_CXX_FLAGS itself). Node is not instrumented, so the sanitizer runtime is preloaded
// (LD_PRELOAD) into the test runner and every process it starts, the test children included.
// Reports go to files in a temporary folder; the run fails when there is any, and prints them.
// Extra arguments replace the default list of test files (e.g. `test/batch`).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [kind, ...rest] = process.argv.slice(2);
const SETTINGS = {
  address: {
    out: "build-asan",
    runtime: "libasan.so",
    // Node itself leaks at exit (by design), so leak checking is off; everything else halts.
    env: (logs) => ({
      ASAN_OPTIONS: `detect_leaks=0:halt_on_error=1:log_path=${join(logs, "asan")}`,
      UBSAN_OPTIONS: `print_stacktrace=1:halt_on_error=1:log_path=${join(logs, "ubsan")}`,
      // test/batch/thread-pool.test.ts builds its C++ test program with these too.
      TAGMASK_TEST_CXXFLAGS: "-fsanitize=address,undefined -fno-omit-frame-pointer -g",
    }),
    files: ["test/batch", "test/engine", "test/mask", "test/tokenizer", "test/safety", "test/cuda", "test/runtime.test.ts"],
  },
  thread: {
    out: "build-tsan",
    runtime: "libtsan.so",
    env: (logs) => ({
      // Reports are collected, not fatal, so one run lists them all; the suppressions file says
      // why each entry is a false positive.
      TSAN_OPTIONS: `halt_on_error=0:exitcode=0:second_deadlock_stack=1:history_size=4:log_path=${join(logs, "tsan")}:suppressions=${join(root, "scripts", "tsan-suppressions.txt")}`,
      TAGMASK_TEST_CXXFLAGS: "-fsanitize=thread -g",
    }),
    files: ["test/batch", "test/safety/reproductions.test.ts"],
  },
};

const settings = SETTINGS[kind];
if (!settings) {
  console.error("usage: node scripts/test-sanitized.mjs address|thread [vitest args...]");
  process.exit(2);
}

function run(cmd, args, env = process.env) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env });
  if (res.error) throw res.error;
  return res.status ?? 1;
}

const t0 = performance.now();
// 1. The sanitized addon (incremental after the first build) and the compiled package, which
// the tests' child processes import.
if (run(process.execPath, [join(root, "scripts", "build-addon.mjs"), "--out", settings.out, "--sanitize", kind]) !== 0) process.exit(1);
if (run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"]) !== 0) process.exit(1);
const addon = join(root, settings.out, "Release", "tagmask.node");

// 2. The runtime of the compiler the build used.
const cache = readFileSync(join(root, settings.out, "CMakeCache.txt"), "utf8");
const cxx = /^CMAKE_CXX_COMPILER:\w+=(.*)$/m.exec(cache)?.[1] ?? "c++";
const runtime = spawnSync(cxx, [`-print-file-name=${settings.runtime}`], { encoding: "utf8" }).stdout.trim();
if (!runtime || !existsSync(runtime)) {
  console.error(`test-sanitized: ${cxx} has no ${settings.runtime} (install the compiler's sanitizer runtime)`);
  process.exit(1);
}

// 3. The tests, with the runtime preloaded and reports written to files.
const logs = mkdtempSync(join(tmpdir(), `tagmask-${kind}-`));
const env = {
  ...process.env,
  ...settings.env(logs),
  LD_PRELOAD: [runtime, process.env.LD_PRELOAD].filter(Boolean).join(" "),
  TAGMASK_ADDON: addon,
};
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const files = rest.length > 0 ? rest : settings.files;
// Everything runs several times slower under a sanitizer: generous timeouts.
const vitestArgs = [vitest, "run", "--testTimeout=900000", "--hookTimeout=900000", ...files];
let status = run(process.execPath, vitestArgs, env);
// ThreadSanitizer cannot map its shadow memory under full address randomization: run once
// more without it (setarch -R) when that is why it stopped.
const reports = () => readdirSync(logs).map((f) => join(logs, f));
if (kind === "thread" && reports().some((f) => /unexpected memory mapping/.test(readFileSync(f, "utf8")))) {
  for (const f of reports()) rmSync(f);
  status = run("setarch", [process.arch === "arm64" ? "aarch64" : "x86_64", "-R", process.execPath, ...vitestArgs], env);
}

// 4. Reports. ASan and UBSan: any report fails the run. TSan: Node, V8, libuv and the test
// runner's own native modules are not instrumented, so TSan cannot see their synchronization
// and reports races inside them (hundreds per run, some with tagmask further down the stack:
// an allocation of ours that ran V8's garbage collector). A report fails the run when one of
// its racing accesses is in tagmask code: the first frame of an access stack that is not the
// sanitizer's own interceptor. The others are counted by module.
const TAGMASK_FRAME = /tagmask|native\/(core|binding|include)\//;
const INTERCEPTOR = /libsanitizer|libtsan\.so/;
function racesInTagmask(block) {
  const accesses = block.split(/^\s+(?:Previous )?(?:[Aa]tomic )?(?:[Ww]rite|[Rr]ead) of size/m).slice(1);
  return accesses.some((stack) => {
    const frames = stack.split("\n").filter((l) => /^\s+#\d+ /.test(l));
    const first = frames.find((f) => !INTERCEPTOR.test(f));
    return first !== undefined && TAGMASK_FRAME.test(first);
  });
}
const blocks = [];
for (const file of reports()) {
  const text = readFileSync(file, "utf8");
  if (kind !== "thread") {
    blocks.push({ file, text, ours: true });
    continue;
  }
  for (const block of text.split(/^={18}$/m)) {
    if (/WARNING: ThreadSanitizer/.test(block)) blocks.push({ file, text: block, ours: racesInTagmask(block) });
  }
}
const ours = blocks.filter((b) => b.ours);
for (const b of ours) {
  console.error(`\n==== ${b.file}`);
  console.error(b.text);
}
const host = blocks.filter((b) => !b.ours);
if (host.length > 0) {
  const where = new Map();
  for (const b of host) {
    const module = /rolldown/.test(b.text) ? "rolldown (vitest's bundler)" : /\(node\+|v8::|deps\/uv/.test(b.text) ? "node / V8 / libuv" : "other uninstrumented code";
    where.set(module, (where.get(module) ?? 0) + 1);
  }
  console.log(`test:tsan: ${host.length} report(s) of races inside uninstrumented host code: ` +
    [...where].map(([m, n]) => `${n} in ${m}`).join(", "));
}
rmSync(logs, { recursive: true, force: true });
const seconds = ((performance.now() - t0) / 1000).toFixed(0);
const name = kind === "address" ? "ASan+UBSan" : "TSan";
console.log(`test:${kind === "address" ? "asan" : "tsan"}: vitest ${status === 0 ? "passed" : `failed (exit ${status})`}, ${ours.length} ${name} report(s)${kind === "thread" ? " in tagmask code" : ""}, ${seconds} s`);
process.exit(status !== 0 || ours.length > 0 ? 1 : 0);
