/**
 * The argument parser every `tagmask` command uses. node:util's `parseArgs` splits the command
 * line (`--name value`, `--name=value`, `--` ends the options), and this layer makes it strict
 * with one-line messages: an unknown option, a value on a flag, a missing value, an option given
 * twice (unless `multiple`) and a positional argument the command did not declare are all a
 * {@link UsageError} (exit code 2). A value may start with a dash (`--temperature -1`) unless it
 * is one of the command's own options (`--tools --json` is a missing value).
 *
 * @example
 * const args = parseArgs(argv, { schema: { type: "string" }, json: { type: "boolean" } });
 * const file = required(args, "schema", "FILE");
 * const json = args.flags.has("json");
 */
import { parseArgs as splitArgs } from "node:util";
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

export interface ParseOptions {
  /** How many positional arguments the command takes (default 0: any positional is refused). */
  maxPositionals?: number;
}

export interface ParsedArgs {
  values: Map<string, string[]>;
  flags: Set<string>;
  positionals: string[];
}

/** Parses `argv` against the command's options; throws a UsageError naming the first problem. */
export function parseArgs(argv: readonly string[], spec: Record<string, OptionSpec>, options: ParseOptions = {}): ParsedArgs {
  const { tokens } = splitArgs({
    args: [...argv],
    options: Object.fromEntries(Object.entries(spec).map(([name, o]) => [name, { type: o.type, multiple: o.multiple ?? false }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  const positionals: string[] = [];
  const known = (): string => Object.keys(spec).map((k) => `--${k}`).join(", ") || "none";
  for (const token of tokens) {
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    const opt = Object.hasOwn(spec, token.name) ? spec[token.name] : undefined;
    if (!opt) throw new UsageError(`unknown option ${token.rawName} (known options: ${known()})`);
    const name = token.name;
    if (opt.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`--${name} is a flag and takes no value`);
      flags.add(name);
      continue;
    }
    const value = token.value;
    if (value === undefined || (!token.inlineValue && value.startsWith("--") && Object.hasOwn(spec, value.slice(2).split("=")[0]!))) {
      throw new UsageError(`--${name} needs a value`);
    }
    const list = values.get(name) ?? [];
    if (list.length > 0 && !opt.multiple) throw new UsageError(`--${name} was given more than once`);
    list.push(value);
    values.set(name, list);
  }
  const max = options.maxPositionals ?? 0;
  if (positionals.length > max) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[max])}`);
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

/**
 * An integer option in [min, max]: `fallback` when absent, a UsageError naming the option and
 * the range when the value is not such an integer.
 */
export function integerOption<T extends number | undefined>(args: ParsedArgs, name: string, fallback: T, min = 0, max = Number.MAX_SAFE_INTEGER): number | T {
  const text = optional(args, name);
  if (text === undefined) return fallback;
  const value = /^-?(0|[1-9][0-9]*)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `in [${min}, ${max}]`}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** An option whose value is one of `choices`: `fallback` when absent, a UsageError listing them otherwise. */
export function choiceOption<C extends string>(args: ParsedArgs, name: string, choices: readonly C[], fallback: C): C {
  const text = optional(args, name);
  if (text === undefined) return fallback;
  if (!(choices as readonly string[]).includes(text)) throw new UsageError(`--${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(text)}`);
  return text as C;
}
