/**
 * Finding the native addon (lib/native-loader.ts) in a scratch package folder: a source build
 * before the prebuilds, the variant order and TAGMASK_VARIANT, a prebuild of another version
 * skipped, a damaged file reported, and the NativeAddonError when nothing loads (with the
 * install's recorded build failure and how to build). Each load runs in a child process, so the
 * test process never loads a second copy of the addon.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addonCandidates } from "../../lib/native.js";
import { addonCandidateList, currentGlibc, prebuildTarget, versionAtLeast } from "../../lib/native-loader.js";
import { packageRoot } from "../../lib/package-root.js";
import { ensureBuiltCli } from "../helpers/cli.js";

const loader = pathToFileURL(join(packageRoot(), "dist", "lib", "native-loader.js")).href;
const built = addonCandidates().find((c) => existsSync(c))!;
const target = prebuildTarget();
let root: string;

beforeAll(ensureBuiltCli, 300_000);
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tagmask-loader-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh fake package folder `name` with version 9.9.9. */
function fakePackage(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "prebuilds", target), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "tagmask", version: "9.9.9" }));
  return dir;
}

function manifest(dir: string, version: string, cpu?: object): void {
  writeFileSync(join(dir, "prebuilds", target, "manifest.json"), JSON.stringify({ tagmaskVersion: version, target, variants: cpu ? { cpu } : {} }));
}

/** loadAddon(dir) in a child process: what loaded, or the error. */
function load(dir: string, env: Record<string, string> = {}): { file?: string; origin?: string; variant?: string; error?: string; code?: string } {
  const script = `import(${JSON.stringify(loader)}).then((m) => {
    try { const { file, origin, variant } = m.loadAddon(${JSON.stringify(dir)}); console.log(JSON.stringify({ file, origin, variant })); }
    catch (e) { console.log(JSON.stringify({ error: e.message, code: e.code })); }
  })`;
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (!("TAGMASK_ADDON" in env)) delete childEnv.TAGMASK_ADDON;
  if (!("TAGMASK_VARIANT" in env)) delete childEnv.TAGMASK_VARIANT;
  const res = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: childEnv });
  expect(res.stderr).toBe("");
  return JSON.parse(res.stdout) as ReturnType<typeof load>;
}

describe("prebuildTarget", () => {
  it.each([
    [["linux", "x64", "glibc"], "linux-x64"],
    [["linux", "x64", "musl"], "linux-x64-musl"],
    [["linux", "arm64", "glibc"], "linux-arm64"],
    [["darwin", "arm64", null], "darwin-arm64"],
    [["win32", "x64", null], "win32-x64"],
  ] as const)("%j → %s", ([platform, arch, libc], name) => {
    expect(prebuildTarget(platform, arch, libc)).toBe(name);
  });
});

describe("versionAtLeast", () => {
  it.each([
    ["2.36", "2.34", true], ["2.34", "2.34", true], ["2.31", "2.34", false], ["2.4", "2.34", false], ["3.0", "2.99", true], ["2.34.1", "2.34", true],
  ])("%s ≥ %s: %s", (have, need, result) => {
    expect(versionAtLeast(have, need)).toBe(result);
  });
});

describe("the candidates", () => {
  it("a source build first, then the prebuilds; TAGMASK_VARIANT keeps one variant; TAGMASK_ADDON only itself", () => {
    const saved = { variant: process.env.TAGMASK_VARIANT, addon: process.env.TAGMASK_ADDON };
    try {
      delete process.env.TAGMASK_ADDON;
      process.env.TAGMASK_VARIANT = "cuda";
      expect(addonCandidateList("/pkg").map((c) => [c.file, c.origin, c.variant])).toEqual([
        ["/pkg/build/Release/tagmask.node", "source", undefined],
        ["/pkg/build/Debug/tagmask.node", "source", undefined],
        [`/pkg/prebuilds/${target}/tagmask.cuda.node`, "prebuild", "cuda"],
      ]);
      delete process.env.TAGMASK_VARIANT;
      expect(addonCandidateList("/pkg").filter((c) => c.origin === "prebuild").map((c) => c.variant).sort()).toEqual(["cpu", "cuda"]);
      process.env.TAGMASK_VARIANT = "gpu";
      expect(() => addonCandidateList("/pkg")).toThrow(/TAGMASK_VARIANT must be "cpu" or "cuda", found "gpu"/);
      process.env.TAGMASK_ADDON = "/x/y.node";
      expect(addonCandidateList("/pkg")).toEqual([{ file: "/x/y.node", origin: "env" }]);
    } finally {
      for (const [key, value] of [["TAGMASK_VARIANT", saved.variant], ["TAGMASK_ADDON", saved.addon]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});

describe("loadAddon", () => {
  it("loads a prebuild of this version, and says which", () => {
    const dir = fakePackage("ok");
    copyFileSync(built, join(dir, "prebuilds", target, "tagmask.node"));
    manifest(dir, "9.9.9");
    expect(load(dir, { TAGMASK_VARIANT: "cpu" })).toEqual({ file: join(dir, "prebuilds", target, "tagmask.node"), origin: "prebuild", variant: "cpu" });
  });

  it("prefers a source build to the prebuilds", () => {
    const dir = fakePackage("source");
    mkdirSync(join(dir, "build", "Release"), { recursive: true });
    copyFileSync(built, join(dir, "build", "Release", "tagmask.node"));
    copyFileSync(built, join(dir, "prebuilds", target, "tagmask.node"));
    expect(load(dir)).toEqual({ file: join(dir, "build", "Release", "tagmask.node"), origin: "source" });
  });

  it("skips a prebuild of another version, reports a damaged one, and says how to build", () => {
    const dir = fakePackage("bad");
    copyFileSync(built, join(dir, "prebuilds", target, "tagmask.node"));
    manifest(dir, "1.0.0");
    mkdirSync(join(dir, "build"), { recursive: true });
    writeFileSync(join(dir, "build", "install-status.json"), JSON.stringify({ ok: false, reason: "cmake was not found on PATH; node-gyp failed (exit code 1)" }));
    let r = load(dir, { TAGMASK_VARIANT: "cpu" });
    expect(r.code).toBe("TAGMASK_ADDON_UNAVAILABLE");
    expect(r.error).toContain(`tried ${join(dir, "prebuilds", target, "tagmask.node")}: built for tagmask 1.0.0, this package is 9.9.9`);
    expect(r.error).toContain("the install's source build failed: cmake was not found on PATH; node-gyp failed (exit code 1)");
    expect(r.error).toContain("npm rebuild tagmask --build-from-source");

    manifest(dir, "9.9.9");
    writeFileSync(join(dir, "prebuilds", target, "tagmask.node"), "not a shared library");
    r = load(dir, { TAGMASK_VARIANT: "cpu" });
    expect(r.error).toMatch(new RegExp(`tried ${join(dir, "prebuilds", target, "tagmask.node").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: failed to load \\(.+\\)`));
  });

  it.runIf(currentGlibc() !== null)("skips a prebuild that needs a newer glibc than this system's", () => {
    const dir = fakePackage("glibc");
    copyFileSync(built, join(dir, "prebuilds", target, "tagmask.node"));
    manifest(dir, "9.9.9", { file: "tagmask.node", glibc: "99.1" });
    const r = load(dir, { TAGMASK_VARIANT: "cpu" });
    expect(r.error).toContain(`tagmask.node: needs glibc 99.1 or newer, this system has ${currentGlibc()}`);
    manifest(dir, "9.9.9", { file: "tagmask.node", glibc: "2.0" });
    expect(load(dir, { TAGMASK_VARIANT: "cpu" }).origin).toBe("prebuild");
  });

  it("names the shipped platforms when none is this one", () => {
    const dir = fakePackage("elsewhere");
    rmSync(join(dir, "prebuilds", target), { recursive: true });
    mkdirSync(join(dir, "prebuilds", "sunos-sparc"), { recursive: true });
    const r = load(dir);
    expect(r.error).toMatch(new RegExp(`^native addon unavailable: no usable addon for ${target} \\(this package has prebuilt addons for: sunos-sparc; no source build in `));
  });

  it("TAGMASK_ADDON: only that file", () => {
    const dir = fakePackage("env");
    copyFileSync(built, join(dir, "prebuilds", target, "tagmask.node"));
    const r = load(dir, { TAGMASK_ADDON: join(dir, "missing.node") });
    expect(r.error).toMatch(/^native addon unavailable: no usable addon for .* \(TAGMASK_ADDON is set\); tried .*missing\.node: no such file; /);
  });
});
