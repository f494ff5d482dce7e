/**
 * Finding and loading the native addon. Looked for in this order, the first that loads wins:
 *
 * 1. `TAGMASK_ADDON`: an explicit `.node` file (nothing else is tried);
 * 2. a source build of this package: `build/Release/tagmask.node`, then `build/Debug/`;
 * 3. the prebuilt addons shipped in `prebuilds/<target>/` (`linux-x64`, `linux-x64-musl`, …):
 *    the CUDA variant first where an NVIDIA driver is present, else the CPU variant first;
 *    `TAGMASK_VARIANT=cpu|cuda` takes only that one.
 *
 * When none loads, a {@link NativeAddonError} lists every file tried, why it was not used, the
 * install's own build failure if there was one, and how to build the addon.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { NativeAddonError } from "./errors.js";
import { packageRoot } from "./package-root.js";

/** Where a loaded addon came from. */
export type AddonOrigin = "env" | "source" | "prebuild";

/** The two prebuilt variants: the CPU engine, or the same with the CUDA kernels linked in. */
export type AddonVariant = "cpu" | "cuda";

/** One place the addon may be. */
export interface AddonCandidate {
  file: string;
  origin: AddonOrigin;
  /** Known for prebuilds; a source build's variant shows in `runtime().cuda.compiled`. */
  variant?: AddonVariant;
}

/** `prebuilds/<target>/manifest.json`, written by scripts/prebuild.mjs. */
export interface PrebuildManifest {
  /** The tagmask version the addons were built for. */
  tagmaskVersion: string;
  target: string;
  variants: Partial<Record<AddonVariant, {
    file: string;
    bytes: number;
    sha256: string;
    /** Hash of the native sources it was built from (scripts/native-sources.mjs). */
    sourcesHash: string;
    /** Whether the C++ runtime is linked in (release prebuilds are). */
    staticRuntime: boolean;
    /** The newest glibc version its symbols need (Linux), when known. */
    glibc?: string | null;
  }>>;
}

/** The file name of each prebuilt variant inside its target folder. */
export const PREBUILD_FILES: Readonly<Record<AddonVariant, string>> = { cpu: "tagmask.node", cuda: "tagmask.cuda.node" };

/** What the install script leaves behind when its source build failed (read into the error). */
export const INSTALL_STATUS_FILE = join("build", "install-status.json");

let glibcVersion: string | null | undefined;

/** The glibc version of this process ("2.36"); null on musl and on other systems. */
export function currentGlibc(): string | null {
  if (glibcVersion === undefined) {
    const report = process.platform === "linux" ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined) : undefined;
    glibcVersion = report?.header?.glibcVersionRuntime ?? null;
  }
  return glibcVersion;
}

/** The C library of this Linux process: "musl" or "glibc"; null on other systems. */
export function currentLibc(): "glibc" | "musl" | null {
  if (process.platform !== "linux") return null;
  return currentGlibc() ? "glibc" : "musl";
}

/** Whether version `have` ("2.35") is at least `need` ("2.34"). */
export function versionAtLeast(have: string, need: string): boolean {
  const a = have.split(".").map(Number);
  const b = need.split(".").map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** The prebuild folder name for a platform: `linux-x64`, `linux-x64-musl`, `darwin-arm64`, `win32-x64`. */
export function prebuildTarget(platform: string = process.platform, arch: string = process.arch, libc: string | null = currentLibc()): string {
  return libc === "musl" ? `${platform}-${arch}-musl` : `${platform}-${arch}`;
}

/** Whether an NVIDIA driver looks installed (then the CUDA variant is tried first). */
function nvidiaDriverPresent(): boolean {
  if (process.platform === "linux") return existsSync("/proc/driver/nvidia/version");
  if (process.platform === "win32") return existsSync(join(process.env.SystemRoot ?? "C:\\Windows", "System32", "nvcuda.dll"));
  return false;
}

/** The variant order for this machine, or only the variant `TAGMASK_VARIANT` names. */
function variantOrder(): AddonVariant[] {
  const forced = process.env.TAGMASK_VARIANT;
  if (forced) {
    if (forced !== "cpu" && forced !== "cuda") {
      throw new NativeAddonError(`TAGMASK_VARIANT must be "cpu" or "cuda", found ${JSON.stringify(forced)}`);
    }
    return [forced];
  }
  return nvidiaDriverPresent() ? ["cuda", "cpu"] : ["cpu", "cuda"];
}

/** Every place the addon is looked for, in order (files that do not exist included). */
export function addonCandidateList(root: string = packageRoot()): AddonCandidate[] {
  const fromEnv = process.env.TAGMASK_ADDON;
  if (fromEnv) return [{ file: resolve(fromEnv), origin: "env" }];
  const target = join(root, "prebuilds", prebuildTarget());
  return [
    { file: join(root, "build", "Release", "tagmask.node"), origin: "source" },
    { file: join(root, "build", "Debug", "tagmask.node"), origin: "source" },
    ...variantOrder().map((variant): AddonCandidate => ({ file: join(target, PREBUILD_FILES[variant]), origin: "prebuild", variant })),
  ];
}

/** The manifest of this platform's prebuilds, or null when there is none (or it is unreadable). */
export function readPrebuildManifest(root: string = packageRoot()): PrebuildManifest | null {
  const file = join(root, "prebuilds", prebuildTarget(), "manifest.json");
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as PrebuildManifest;
  } catch {
    // a damaged manifest: the prebuilds are then loaded without the version check
    return null;
  }
}

function packageVersion(root: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    // unreadable package.json: no version check
    return undefined;
  }
}

/** A loaded addon and where it came from. */
export interface LoadedAddon<T> {
  addon: T;
  file: string;
  origin: AddonOrigin;
  variant?: AddonVariant;
}

/** Why the install's source build failed, when the install script recorded it. */
function installFailure(root: string): string | undefined {
  try {
    const status = JSON.parse(readFileSync(join(root, INSTALL_STATUS_FILE), "utf8")) as { ok?: boolean; reason?: string };
    return status.ok === false && typeof status.reason === "string" ? status.reason : undefined;
  } catch {
    // no record: the install script did not run, or its build succeeded
    return undefined;
  }
}

/** How to get an addon, for the error message. */
export const BUILD_HINT =
  "to build it: install a C++17 compiler (g++ >= 11 or clang >= 14), make and python3, then run " +
  "`npm rebuild tagmask --build-from-source` in your project (for the CUDA kernels also cmake >= 3.18, the CUDA toolkit and " +
  "`npm install --save-dev cmake-js`); or point TAGMASK_ADDON at an addon built elsewhere";

/**
 * Loads the first candidate that loads. Throws a NativeAddonError naming every file tried and
 * why it was not used.
 */
export function loadAddon<T>(root: string = packageRoot()): LoadedAddon<T> {
  const require = createRequire(import.meta.url);
  const candidates = addonCandidateList(root);
  const manifest = readPrebuildManifest(root);
  const version = packageVersion(root);
  const tried: string[] = [];
  for (const c of candidates) {
    if (!existsSync(c.file)) {
      if (c.origin !== "source") tried.push(`${c.file}: no such file`);
      continue;
    }
    if (c.origin === "prebuild" && manifest && version && manifest.tagmaskVersion !== version) {
      tried.push(`${c.file}: built for tagmask ${manifest.tagmaskVersion}, this package is ${version}`);
      continue;
    }
    const needs = c.variant ? manifest?.variants[c.variant]?.glibc : undefined;
    const glibc = currentGlibc();
    if (c.origin === "prebuild" && needs && glibc && !versionAtLeast(glibc, needs)) {
      tried.push(`${c.file}: needs glibc ${needs} or newer, this system has ${glibc}`);
      continue;
    }
    try {
      const addon = require(c.file) as T;
      return { addon, file: c.file, origin: c.origin, ...(c.variant ? { variant: c.variant } : {}) };
    } catch (err) {
      // One line of the loader's message (dlopen errors name the missing symbol or library).
      tried.push(`${c.file}: failed to load (${String((err as Error).message).split("\n")[0]})`);
    }
  }
  const target = prebuildTarget();
  const shipped = existsSync(join(root, "prebuilds")) ? prebuildTargetsIn(join(root, "prebuilds")) : [];
  const parts = [
    `native addon unavailable: no usable addon for ${target}` +
      (candidates[0]?.origin === "env" ? " (TAGMASK_ADDON is set)" : shipped.includes(target) ? "" : ` (this package has prebuilt addons for: ${shipped.join(", ") || "none"}; no source build in ${join(root, "build")})`),
    ...tried.map((t) => `tried ${t}`),
  ];
  const failure = installFailure(root);
  if (failure) parts.push(`the install's source build failed: ${failure}`);
  parts.push(BUILD_HINT);
  throw new NativeAddonError(parts.join("; "));
}

function prebuildTargetsIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    // unreadable folder: reported as no prebuilds
    return [];
  }
}
