// What the native addon is built from, and one hash over it: a build or a prebuild records the
// hash, so that packing can tell whether an existing addon still matches the sources.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const SOURCE_FOLDERS = ["native", "cuda"];
const SOURCE_EXTENSIONS = /\.(c|cc|cpp|h|hpp|cu|cuh)$/;
const BUILD_FILES = ["CMakeLists.txt", "binding.gyp"];

/** The package's version (compiled into the addon). */
export function packageVersion() {
  return JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
}

/** Paths (relative to the package root, sorted) of every file the addon is built from. */
export function nativeSourceFiles() {
  const files = [];
  for (const folder of SOURCE_FOLDERS) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile() && SOURCE_EXTENSIONS.test(entry.name)) files.push(relative(root, join(entry.parentPath, entry.name)));
    }
  }
  for (const f of BUILD_FILES) if (existsSync(join(root, f))) files.push(f);
  return files.sort();
}

/** sha256 over the version and every source file's path and content. */
export function nativeSourcesHash() {
  const hash = createHash("sha256");
  hash.update(`tagmask ${packageVersion()}\n`);
  for (const f of nativeSourceFiles()) {
    const content = readFileSync(join(root, f));
    hash.update(`${f}\n${content.length}\n`);
    hash.update(content);
  }
  return hash.digest("hex");
}
