#!/usr/bin/env node
// Makes the prebuilt addons shipped in the package: prebuilds/<target>/tagmask.node (CPU) and
// tagmask.cuda.node (the CUDA kernels linked in, CUDA runtime static: it loads without a GPU),
// with the C++ runtime linked statically, plus manifest.json (version, sources hash, sha256).
//
//   node scripts/prebuild.mjs                      build every variant this machine can (cuda needs nvcc)
//   node scripts/prebuild.mjs --variant cpu        one variant
//   node scripts/prebuild.mjs --from FILE          take an addon built here from the current sources
//                                                  (e.g. build/Release/tagmask.node of the same CI run)
//   node scripts/prebuild.mjs --check [--release]  exit 1 unless this target's prebuilds match the
//                                                  sources (--release: both variants, static runtime)
//
// The target folder name comes from the package's own loader (dist/lib/native-loader.js), so the
// TypeScript must be built first (`npm run build:ts`).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { buildAddon, buildFailureMessage } from "./build-addon.mjs";
import { nativeSourcesHash, packageVersion, root } from "./native-sources.mjs";

const loaderFile = join(root, "dist", "lib", "native-loader.js");

async function loader() {
  if (!existsSync(loaderFile)) {
    console.error("tagmask: dist/lib/native-loader.js is missing; run `npm run build:ts` first");
    process.exit(1);
  }
  return import(pathToFileURL(loaderFile).href);
}

const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

function haveNvcc() {
  const res = spawnSync("nvcc", ["--version"], { stdio: "ignore" });
  return !res.error && res.status === 0;
}

/** The newest glibc symbol version the addon needs (objdump -T), or null where objdump is missing. */
function requiredGlibc(file) {
  const res = spawnSync("objdump", ["-T", file], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (res.error || res.status !== 0) return null;
  const versions = [...res.stdout.matchAll(/\bGLIBC_(\d+)\.(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  if (versions.length === 0) return null;
  versions.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return versions[versions.length - 1].join(".");
}

/** Whether an addon file has the CUDA kernels, asked of the addon itself in a child process. */
function addonHasCuda(file) {
  const res = spawnSync(process.execPath, ["-e", `process.stdout.write(String(require(${JSON.stringify(file)}).runtime().cuda.compiled))`], { encoding: "utf8" });
  if (res.status !== 0) throw new Error(`${file} does not load: ${res.stderr.trim().split("\n")[0]}`);
  return res.stdout === "true";
}

/** The manifest of `dir`, or a fresh one for this version. */
function readManifest(dir, target) {
  const file = join(dir, "manifest.json");
  const fresh = { tagmaskVersion: packageVersion(), target, variants: {} };
  if (!existsSync(file)) return fresh;
  try {
    const m = JSON.parse(readFileSync(file, "utf8"));
    return m.tagmaskVersion === fresh.tagmaskVersion ? { ...fresh, variants: m.variants ?? {} } : fresh;
  } catch {
    return fresh;
  }
}

function writeManifest(dir, manifest) {
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Copies a built addon into the prebuild folder and records it. */
function install(dir, manifest, variant, file, info, files) {
  const dest = join(dir, files[variant]);
  copyFileSync(file, dest);
  manifest.variants[variant] = {
    file: files[variant], bytes: statSync(dest).size, sha256: sha256(dest), sourcesHash: info.sourcesHash,
    staticRuntime: !!info.staticRuntime, tool: info.tool ?? null, compiler: info.compiler ?? null,
    ...(process.platform === "linux" ? { glibc: requiredGlibc(dest) } : {}),
  };
  const glibc = manifest.variants[variant].glibc;
  console.error(`tagmask: prebuild ${variant}: ${relative(root, dest)} (${(statSync(dest).size / 1e6).toFixed(1)} MB${info.staticRuntime ? ", static C++ runtime" : ""}${glibc ? `, needs glibc ${glibc}` : ""})`);
}

/** Variants whose files are present and built from the current sources. */
export function freshVariants(manifest, dir, hash) {
  return Object.entries(manifest.variants)
    .filter(([, v]) => v.sourcesHash === hash && existsSync(join(dir, v.file)) && sha256(join(dir, v.file)) === v.sha256)
    .map(([name]) => name);
}

async function main() {
  const { values } = parseArgs({
    options: { variant: { type: "string" }, from: { type: "string" }, check: { type: "boolean" }, release: { type: "boolean" } },
    strict: true,
  });
  const { prebuildTarget, PREBUILD_FILES } = await loader();
  const target = prebuildTarget();
  const dir = join(root, "prebuilds", target);
  const hash = nativeSourcesHash();
  mkdirSync(dir, { recursive: true });
  const manifest = readManifest(dir, target);

  if (values.check) {
    const fresh = freshVariants(manifest, dir, hash);
    const wanted = values.release ? ["cpu", "cuda"] : [];
    const missing = wanted.filter((v) => !fresh.includes(v));
    const notStatic = values.release ? fresh.filter((v) => !manifest.variants[v].staticRuntime) : [];
    if (fresh.length === 0 || missing.length > 0 || notStatic.length > 0) {
      console.error(`tagmask: prebuilds for ${target} do not match the sources: fresh ${fresh.join(", ") || "none"}` +
        `${missing.length ? `; missing ${missing.join(", ")}` : ""}${notStatic.length ? `; not statically linked: ${notStatic.join(", ")}` : ""}` +
        " (run `npm run prebuild`)");
      process.exit(1);
    }
    console.error(`tagmask: prebuilds for ${target} match the sources: ${fresh.join(", ")}`);
    return;
  }

  if (values.from) {
    const file = resolve(values.from);
    const infoFile = join(dirname(dirname(file)), "build-info.json");
    const info = existsSync(infoFile) ? JSON.parse(readFileSync(infoFile, "utf8")) : undefined;
    if (!info || info.sourcesHash !== hash) {
      console.error(`tagmask: ${file} was not built from the current sources (${infoFile} ${info ? "names other sources" : "is missing"})`);
      process.exit(1);
    }
    install(dir, manifest, addonHasCuda(file) ? "cuda" : "cpu", file, info, PREBUILD_FILES);
    writeManifest(dir, manifest);
    return;
  }

  const variants = values.variant ? [values.variant] : haveNvcc() ? ["cpu", "cuda"] : ["cpu"];
  for (const variant of variants) {
    if (variant !== "cpu" && variant !== "cuda") {
      console.error(`tagmask: --variant must be cpu or cuda, got ${variant}`);
      process.exit(2);
    }
    if (variant === "cuda" && !haveNvcc()) {
      console.error("tagmask: the cuda variant needs nvcc on PATH (the CUDA toolkit)");
      process.exit(1);
    }
    const out = join(root, `build-prebuild-${variant}`);
    const res = buildAddon({ out, force: true, cpuOnly: variant === "cpu", staticRuntime: true, werror: true });
    if (!res.ok) {
      console.error(buildFailureMessage(res.failures));
      process.exit(1);
    }
    if (addonHasCuda(res.file) !== (variant === "cuda")) {
      console.error(`tagmask: the ${variant} build ${variant === "cuda" ? "lacks" : "has"} the CUDA kernels; not used`);
      process.exit(1);
    }
    install(dir, manifest, variant, res.file, JSON.parse(readFileSync(join(out, "build-info.json"), "utf8")), PREBUILD_FILES);
    writeManifest(dir, manifest);
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) await main();
