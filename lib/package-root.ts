/**
 * Where the tagmask package lives on disk, found from this module's own location so that it is
 * the same from the sources (lib/) and from the compiled output (dist/lib/): the addon build,
 * the tiny model's cache, the test fixtures and the benchmarks' results are placed relative to it.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TagmaskError } from "./errors.js";

let found: string | undefined;

/**
 * The tagmask package root: the nearest folder above this module whose package.json is named
 * "tagmask" (another package.json on the way, e.g. in a workspace, is passed over). Throws a
 * TagmaskError when there is none.
 */
export function packageRoot(): string {
  if (found !== undefined) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (isTagmaskPackage(join(dir, "package.json"))) {
      found = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new TagmaskError("cannot find the tagmask package root (package.json)");
    dir = parent;
  }
}

function isTagmaskPackage(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name === "tagmask";
  } catch {
    // unreadable or not JSON: not ours
    return false;
  }
}
