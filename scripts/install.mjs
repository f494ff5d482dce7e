#!/usr/bin/env node
// npm's install step for tagmask. Installed as a dependency, it checks (in a child process) that
// a shipped prebuilt addon loads on this machine and is done; only where none does, or when asked
// (`npm install --build-from-source`, TAGMASK_BUILD_FROM_SOURCE=1), it builds from source. A
// failed source build never fails the install: the JavaScript part works without the addon, the
// reason is recorded in build/install-status.json and the first native call reports it with how
// to build. In tagmask's own checkout (`npm install` / `npm ci` there) it always builds from
// source, and a failed build fails the install.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { buildAddon, buildFailureMessage } from "./build-addon.mjs";
import { root } from "./native-sources.mjs";

const STATUS_FILE = join(root, "build", "install-status.json");

const log = (line) => console.error(`tagmask: ${line}`);

function recordStatus(status) {
  try {
    mkdirSync(join(root, "build"), { recursive: true });
    writeFileSync(STATUS_FILE, `${JSON.stringify({ ...status, when: new Date().toISOString() }, null, 2)}\n`);
  } catch {
    // a read-only package folder: the runtime error then lacks the build's reason, nothing else
  }
}

/** Loads the addon the way the package will at run time, in a child process (a bad binary cannot take the install down). */
function checkPrebuilt() {
  const loader = join(root, "dist", "lib", "native-loader.js");
  if (!existsSync(loader)) return { ok: false, why: "the compiled package (dist/) is not there yet" };
  const script = `import(${JSON.stringify(pathToFileURL(loader).href)}).then((m) => {
    const { file, origin, variant } = m.loadAddon();
    process.stdout.write(JSON.stringify({ file, origin, variant }));
  }, (err) => { process.stderr.write(String(err.message)); process.exit(1); })`;
  const res = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8", timeout: 60_000 });
  if (res.status !== 0) return { ok: false, why: (res.stderr || res.error?.message || `exit code ${res.status}`).trim() };
  try {
    return { ok: true, ...JSON.parse(res.stdout) };
  } catch {
    return { ok: false, why: `unexpected output from the load check: ${res.stdout.slice(0, 200)}` };
  }
}

function main() {
  const ownCheckout = process.env.INIT_CWD !== undefined && resolve(process.env.INIT_CWD) === root;
  const fromSource = process.env.TAGMASK_BUILD_FROM_SOURCE === "1" || process.env.npm_config_build_from_source === "true" ||
    process.argv.includes("--build-from-source");
  const werror = process.env.TAGMASK_WERROR === "1";

  if (!ownCheckout && !fromSource) {
    const check = checkPrebuilt();
    if (check.ok && check.origin === "prebuild") {
      rmSync(STATUS_FILE, { force: true });
      log(`using the prebuilt native addon (${check.variant}): ${check.file}`);
      return 0;
    }
    if (check.ok) {
      rmSync(STATUS_FILE, { force: true });
      log(`using the native addon at ${check.file}`);
      return 0;
    }
    log(`no prebuilt addon loads here, building from source (${check.why.split("; ").slice(0, 3).join("; ")})`);
  } else if (fromSource && !ownCheckout) {
    log("building the native addon from source (--build-from-source)");
  }

  const res = buildAddon({ werror });
  if (res.ok) {
    rmSync(STATUS_FILE, { force: true });
    log(`built the native addon with ${res.tool}: ${res.file}`);
    return 0;
  }
  console.error(buildFailureMessage(res.failures));
  if (ownCheckout) return 1;
  recordStatus({ ok: false, reason: res.failures.join("; ") });
  log("the JavaScript part of tagmask is installed and works; native features (compiling grammars, masks) report this until the addon is built");
  return 0;
}

process.exitCode = main();
