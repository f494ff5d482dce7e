#!/usr/bin/env node
// npm's prepack step: builds what the tarball needs from a checkout.
//   1. dist/lib afresh, without source maps (tsconfig.build.json): no stale files, no maps
//      pointing at sources the package does not ship;
//   2. assets/llama3.vocab, the demo's vocabulary (scripts/make-vocabulary.mjs), when missing or
//      older than its sources;
//   3. a prebuilt addon for this machine built from the current sources: kept when the prebuilds
//      already match, else taken from a fresh build/Release (the build `npm install` made), else
//      built (CPU); prebuilds from other sources are removed. A release has both variants built
//      by `npm run prebuild` (checked by prepublishOnly).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { nativeSourcesHash, root } from "./native-sources.mjs";

const require = createRequire(import.meta.url);
const log = (line) => console.error(`tagmask prepack: ${line}`);

function step(what, args) {
  const res = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  if (res.status !== 0) {
    log(`${what} failed (${res.error?.message ?? `exit code ${res.status}`})`);
    process.exit(1);
  }
}

rmSync(join(root, "dist", "lib"), { recursive: true, force: true });
step("the TypeScript build", [require.resolve("typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")]);

const vocab = join(root, "assets", "llama3.vocab");
const vocabSources = [join(root, "lib", "integrations", "node-llama-cpp", "vocabulary-file.ts"), join(root, "scripts", "make-vocabulary.mjs")];
const mtime = (f) => (existsSync(f) ? statSync(f).mtimeMs : 0);
if (!existsSync(vocab) || vocabSources.some((f) => mtime(f) > mtime(vocab))) step("the vocabulary file", [join(root, "scripts", "make-vocabulary.mjs")]);

const { prebuildTarget } = await import(new URL("../dist/lib/native-loader.js", import.meta.url).href);
const dir = join(root, "prebuilds", prebuildTarget());
const manifestFile = join(dir, "manifest.json");
const hash = nativeSourcesHash();
const readManifest = () => (existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, "utf8")) : { variants: {} });

// Prebuilds from other sources would load in place of the fresh one: remove them.
const manifest = readManifest();
for (const [variant, entry] of Object.entries(manifest.variants ?? {})) {
  if (entry.sourcesHash === hash && existsSync(join(dir, entry.file))) continue;
  log(`removing the ${variant} prebuild (built from other sources)`);
  rmSync(join(dir, entry.file), { force: true });
  delete manifest.variants[variant];
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
}
if (Object.keys(readManifest().variants ?? {}).length === 0) {
  const built = join(root, "build", "Release", "tagmask.node");
  const info = join(root, "build", "build-info.json");
  const fresh = existsSync(built) && existsSync(info) && JSON.parse(readFileSync(info, "utf8")).sourcesHash === hash;
  if (fresh) step("taking build/Release as the prebuild", [join(root, "scripts", "prebuild.mjs"), "--from", built]);
  else step("building the CPU prebuild", [join(root, "scripts", "prebuild.mjs"), "--variant", "cpu"]);
}
step("the prebuild check", [join(root, "scripts", "prebuild.mjs"), "--check"]);
