#!/usr/bin/env node
/**
 * The `tagmask` command line: `tagmask COMMAND [options]`. Each command lives in lib/cli/.
 * Bad arguments and bad input files print one line on stderr and exit with code 2.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TagmaskError } from "./errors.js";
import { UsageError } from "./cli/args.js";
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
  families: () => import("./cli/families.js"),
  parse: () => import("./cli/parse.js"),
};

function help(): string {
  return [
    "usage: tagmask COMMAND [options]   (tagmask COMMAND --help for details)",
    "",
    "commands:",
    ...Object.keys(commands).map((name) => `  ${name}`),
    "",
  ].join("\n");
}

/** Runs the CLI with the given arguments; resolves to the exit code. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (!load) {
    io.stderr.write(`tagmask: unknown command '${name}' (commands: ${Object.keys(commands).join(", ")})\n`);
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
    if (err instanceof TagmaskError) {
      io.stderr.write(`tagmask ${name}: ${err.name}: ${err.message}\n`);
      return 2;
    }
    throw err;
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
