#!/usr/bin/env node
/**
 * The `tagmask` command line: `tagmask COMMAND [options]`. Each command lives in lib/cli/ and
 * parses its arguments with lib/cli/args.ts. Exit codes: 0 ok; 1 no match / a token rejected;
 * 2 bad arguments or bad input (one line on stderr); 3 a missing optional dependency
 * (node-llama-cpp, a tokenizer, the native addon).
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NativeAddonError, TagmaskError } from "./errors.js";
import { UsageError } from "./cli/args.js";
import { packageRoot } from "./package-root.js";
import type { CliCommand, CliIO } from "./cli/command.js";

/** Command name → loader. Loaded lazily so `tagmask outline` never loads the native addon. */
const commands: Record<string, () => Promise<{ command: CliCommand }>> = {
  runtime: () => import("./cli/runtime.js"),
  outline: () => import("./cli/outline.js"),
  "make-tiny-model": () => import("./cli/make-tiny-model.js"),
  demo: () => import("./cli/demo.js"),
  match: () => import("./cli/match.js"),
  compile: () => import("./cli/compile.js"),
  masks: () => import("./cli/masks.js"),
  serve: () => import("./cli/serve.js"),
  request: () => import("./cli/request.js"),
  families: () => import("./cli/families.js"),
  parse: () => import("./cli/parse.js"),
};

/** The exit codes, as `tagmask --help` lists them. */
export const EXIT_CODES = [
  [0, "ok"],
  [1, "no match (match), a token rejected (masks), the output does not parse (demo)"],
  [2, "bad arguments or bad input"],
  [3, "a missing optional dependency: node-llama-cpp, a tokenizer, or the native addon"],
] as const;

/** The package version (package.json). */
export function version(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/** One line per command: its name and summary (each command module is loaded for its summary). */
async function help(): Promise<string> {
  const names = Object.keys(commands);
  const width = Math.max(...names.map((n) => n.length)) + 2;
  const lines = await Promise.all(names.map(async (name) => {
    try {
      return `  ${name.padEnd(width)}${(await commands[name]!()).command.summary}`;
    } catch (err) {
      return `  ${name.padEnd(width)}(unavailable: ${(err as Error).message.split("\n")[0]})`;
    }
  }));
  return [
    "usage: tagmask COMMAND [options]",
    "",
    "commands:",
    ...lines,
    "",
    "tagmask COMMAND --help shows a command's options; tagmask --version prints the version.",
    "exit codes: " + EXIT_CODES.map(([code, what]) => `${code} ${what}`).join("; "),
    "",
  ].join("\n");
}

/** The exit code of an error a command threw (see {@link EXIT_CODES}), or undefined for an unexpected one. */
function exitCodeOf(err: unknown): number | undefined {
  if (err instanceof NativeAddonError || (err instanceof TagmaskError && err.code === "TAGMASK_MISSING_DEPENDENCY")) return 3;
  if (err instanceof TagmaskError) return 2;
  return undefined;
}

/** Runs the CLI with the given arguments; resolves to the exit code. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? io.stderr : io.stdout).write(await help());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    if (rest.length > 0) {
      io.stderr.write(`tagmask ${name}: unexpected argument ${JSON.stringify(rest[0])}\n`);
      return 2;
    }
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    io.stderr.write(`tagmask: unknown command ${JSON.stringify(name)} (commands: ${Object.keys(commands).join(", ")}; tagmask --help)\n`);
    return 2;
  }
  const { command } = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout.write(`${command.summary}\n\nusage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      // One line, as scripts expect; the full usage is one --help away.
      io.stderr.write(`tagmask ${name}: ${err.message} (see \`tagmask ${name} --help\`)\n`);
      return 2;
    }
    const code = exitCodeOf(err);
    if (code === undefined) throw err;
    io.stderr.write(`tagmask ${name}: ${(err as Error).name}: ${(err as Error).message}\n`);
    return code;
  }
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`tagmask: unexpected error: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
