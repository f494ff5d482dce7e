/**
 * A consumer project, as a user of the published package has one: a scratch folder with
 * `node_modules/tagmask` holding what the tarball holds of the compiled package (package.json,
 * dist/lib's .js and .d.ts — no source maps, no sources), @types/node, and node-llama-cpp only
 * when asked for. Its TypeScript is checked strictly with `skipLibCheck: false`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import { addonCandidates } from "../../lib/native.js";
import { packageRoot } from "../../lib/package-root.js";

const root = packageRoot();

export interface Consumer {
  dir: string;
  write(name: string, content: string): string;
  /** tsc over the project; the diagnostics, one per line, and tsc's exit status. */
  typecheck(options?: { emit?: boolean }): { status: number | null; diagnostics: string[] };
  /** Runs `node file` in the project, with the repository's native addon (TAGMASK_ADDON). */
  run(file: string, env?: Record<string, string>, args?: string[]): { status: number | null; stdout: string; stderr: string };
}

/** The compiled package (dist/lib must be built) copied into a new consumer project. */
export function consumerProject(name: string, options: { nodeLlamaCpp?: boolean } = {}): Consumer {
  const dir = mkdtempSync(join(tmpdir(), `tagmask-consumer-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pkg = join(dir, "node_modules", "tagmask");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  cpSync(join(root, "dist", "lib"), join(pkg, "dist", "lib"), {
    recursive: true,
    filter: (src) => !src.endsWith(".map"),
  });
  const link = (what: string): void => {
    mkdirSync(dirname(join(dir, "node_modules", what)), { recursive: true });
    symlinkSync(join(root, "node_modules", what), join(dir, "node_modules", what), "dir");
  };
  link("@types/node");
  link("undici-types"); // @types/node's own dependency
  if (options.nodeLlamaCpp) link("node-llama-cpp");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `consumer-${name}`, private: true, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      target: "ES2022", lib: ["ES2022"], module: "NodeNext", moduleResolution: "NodeNext", strict: true,
      skipLibCheck: false, types: ["node"], outDir: "out", rootDir: ".",
    },
    include: ["*.ts", "*.mts", "*.cts"],
  }));
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  return {
    dir,
    write(file, content) {
      writeFileSync(join(dir, file), content);
      return join(dir, file);
    },
    typecheck({ emit = false } = {}) {
      const res = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false", ...(emit ? [] : ["--noEmit"])], { cwd: dir, encoding: "utf8" });
      return { status: res.status, diagnostics: res.stdout.split("\n").filter((l) => /error TS\d+/.test(l)) };
    },
    run(file, env = {}, args = []) {
      const addon = addonCandidates().find((c) => existsSync(c));
      const res = spawnSync(process.execPath, [file, ...args], {
        cwd: dir, encoding: "utf8", timeout: 240_000, env: { ...process.env, ...(addon ? { TAGMASK_ADDON: addon } : {}), ...env },
      });
      return { status: res.status, stdout: res.stdout, stderr: res.stderr };
    },
  };
}

/** Whether a diagnostic is about node-llama-cpp's own declarations (which do not pass a library check). */
export function inNodeLlamaCpp(diagnostic: string): boolean {
  return /^node_modules\/node-llama-cpp\//.test(diagnostic) || /\/node_modules\/node-llama-cpp\//.test(diagnostic.split("(")[0]!);
}

/** The ```ts blocks of a Markdown text, in order. */
export function typescriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

export function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
