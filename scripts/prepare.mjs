#!/usr/bin/env node
// npm's prepare step, for installs from a git checkout: they have no dist/, so the TypeScript is
// built (without source maps). Where dist/lib is already there (a developer's build, or packing
// after prepack made it) nothing is done.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { root } from "./native-sources.mjs";

if (!existsSync(join(root, "dist", "lib", "index.js"))) {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const res = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { cwd: root, stdio: "inherit" });
  process.exitCode = res.status ?? 1;
}
