/**
 * The shared CLI argument parser (lib/cli/args.ts) as a table: what it accepts and the one-line
 * UsageError for everything else.
 */
import { describe, expect, it } from "vitest";
import { choiceOption, integerOption, parseArgs, UsageError, type OptionSpec } from "../../lib/cli/args.js";

const spec: Record<string, OptionSpec> = {
  tools: { type: "string" },
  special: { type: "string", multiple: true },
  json: { type: "boolean" },
  temperature: { type: "string" },
};

describe("parseArgs", () => {
  it.each([
    [["--tools", "t.json", "--json"], { tools: ["t.json"] }, ["json"], []],
    [["--tools=t.json"], { tools: ["t.json"] }, [], []],
    [["--tools="], { tools: [""] }, [], []],
    [["--special", "<a>", "--special=<b>"], { special: ["<a>", "<b>"] }, [], []],
    [["--temperature", "-1"], { temperature: ["-1"] }, [], []],
    [["--tools", "--weird-name.json"], { tools: ["--weird-name.json"] }, [], []],
    [["--json", "--json"], {}, ["json"], []],
  ])("%j", (argv, values, flags, positionals) => {
    const args = parseArgs(argv, spec);
    expect(Object.fromEntries(args.values)).toEqual(values);
    expect([...args.flags]).toEqual(flags);
    expect(args.positionals).toEqual(positionals);
  });

  it("takes declared positionals, also after --", () => {
    expect(parseArgs(["a", "--json", "--", "--b"], spec, { maxPositionals: 2 }).positionals).toEqual(["a", "--b"]);
  });

  it.each([
    [["--bogus"], /^unknown option --bogus \(known options: --tools, --special, --json, --temperature\)$/],
    [["-x"], /^unknown option -x /],
    [["--json=yes"], /^--json is a flag and takes no value$/],
    [["--tools"], /^--tools needs a value$/],
    [["--tools", "--json"], /^--tools needs a value$/],
    [["--tools", "a", "--tools", "b"], /^--tools was given more than once$/],
    [["extra"], /^unexpected argument "extra"$/],
    [["--", "--json"], /^unexpected argument "--json"$/],
    [["--toString"], /^unknown option --toString/],
  ])("%j → UsageError", (argv, message) => {
    expect(() => parseArgs(argv, spec)).toThrow(UsageError);
    expect(() => parseArgs(argv, spec)).toThrow(message);
  });

  it("refuses more positionals than declared", () => {
    expect(() => parseArgs(["a", "b"], spec, { maxPositionals: 1 })).toThrow(/^unexpected argument "b"$/);
  });
});

describe("integerOption and choiceOption", () => {
  const n = { n: { type: "string" } } as const;
  it.each([
    [[], 7],
    [["--n", "0"], 0],
    [["--n", "12"], 12],
  ])("%j → %s", (argv, value) => {
    expect(integerOption(parseArgs(argv, n), "n", 7, 0, 100)).toBe(value);
  });

  it.each([["1.5"], ["1e3"], ["x"], [""], ["101"], ["-1"], ["007"]])("--n %j → UsageError naming the range", (text) => {
    expect(() => integerOption(parseArgs(["--n", text], n), "n", 7, 0, 100)).toThrow(/^--n must be an integer in \[0, 100\], got /);
  });

  it("names the choices", () => {
    const args = parseArgs(["--n", "c"], n);
    expect(() => choiceOption(args, "n", ["a", "b"], "a")).toThrow(/^--n must be one of a, b, got "c"$/);
    expect(choiceOption(parseArgs([], n), "n", ["a", "b"], "b")).toBe("b");
  });
});
