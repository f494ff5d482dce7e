/**
 * A small, strict argument parser shared by the CLI commands: `--name value`, `--name=value`,
 * boolean `--flag`, repeated options, positionals. Unknown options are errors.
 */
import { TagmaskError } from "../errors.js";

/** A bad command line: printed as one line, exit code 2. */
export class UsageError extends TagmaskError {
  constructor(message: string) {
    super(message, "TAGMASK_USAGE");
  }
}

export interface OptionSpec {
  /** Takes a value (`--tools FILE`) or is a flag (`--json`). */
  type: "string" | "boolean";
  /** May be given several times; values are collected in order. */
  multiple?: boolean;
}

export interface ParsedArgs {
  values: Map<string, string[]>;
  flags: Set<string>;
  positionals: string[];
}

export function parseArgs(argv: readonly string[], spec: Record<string, OptionSpec>): ParsedArgs {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq >= 0 ? eq : undefined);
    const opt = spec[name];
    if (!opt) {
      const known = Object.keys(spec).map((k) => `--${k}`).join(", ");
      throw new UsageError(`unknown option --${name} (known options: ${known || "none"})`);
    }
    if (opt.type === "boolean") {
      if (eq >= 0) throw new UsageError(`--${name} is a flag and takes no value`);
      flags.add(name);
      continue;
    }
    let value: string;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    const list = values.get(name) ?? [];
    if (list.length > 0 && !opt.multiple) throw new UsageError(`--${name} was given more than once`);
    list.push(value);
    values.set(name, list);
  }
  return { values, flags, positionals };
}

/** The single value of an option, or undefined. */
export function optional(args: ParsedArgs, name: string): string | undefined {
  return args.values.get(name)?.[0];
}

/** The single value of a required option; a UsageError names it when missing. */
export function required(args: ParsedArgs, name: string, what: string): string {
  const v = optional(args, name);
  if (v === undefined) throw new UsageError(`--${name} ${what} is required`);
  return v;
}
