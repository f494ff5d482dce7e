/**
 * The `tagmask` dispatcher: the top-level help (one line per command), --version, the exit codes
 * (2 for usage, 3 for a missing native addon), and the --json output of `match` and `masks` that
 * scripts parse.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../lib/cli.js";
import { packageRoot } from "../../lib/package-root.js";
import { ensureBuiltCli, runCli, scratchDir } from "../helpers/cli.js";
import { tokenizerJsonPath } from "../helpers/vocab.js";

const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string };
const { file } = scratchDir("cli-main");
const COMMANDS = ["runtime", "outline", "make-tiny-model", "demo", "match", "compile", "masks"];

describe("tagmask (top level)", () => {
  it("--help lists every command with its summary on one line, and the exit codes", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    for (const name of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S.{20,}$`, "m"));
    for (const [code] of EXIT_CODES) expect(r.stdout).toContain(`${code} `);
    expect(r.stdout).toContain("tagmask --version");
  });

  it("without a command prints the help on stderr, exit 2", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage: tagmask COMMAND");
  });

  it.each([["--version"], ["-v"], ["version"]])("%s prints the package version", async (flag) => {
    const r = await runCli([flag]);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  it("refuses an argument after --version and an unknown command (exit 2)", async () => {
    expect((await runCli(["--version", "x"])).code).toBe(2);
    const r = await runCli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tagmask: unknown command "frobnicate" \(commands: runtime, /);
  });

  it.each(COMMANDS)("%s --help prints its usage", async (name) => {
    const r = await runCli([name, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`usage: tagmask ${name}`));
  });
});

describe("exit code 3: the native addon is unavailable", () => {
  beforeAll(ensureBuiltCli, 300_000);
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [join(packageRoot(), "dist", "lib", "cli.js"), ...args], {
      encoding: "utf8", env: { ...process.env, TAGMASK_ADDON: join(packageRoot(), "no-such-addon.node") },
    });

  it("tagmask runtime says why and how to build it", () => {
    const r = cli(["runtime"]);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe("native addon: unavailable\n");
    expect(r.stderr).toMatch(/^tagmask runtime: native addon unavailable: .*no-such-addon\.node: no such file; to build it: .*npm rebuild tagmask --build-from-source/);
    const json = JSON.parse(cli(["runtime", "--json"]).stdout) as { available: boolean; reason: string };
    expect(json.available).toBe(false);
    expect(json.reason).toContain("native addon unavailable");
  });

  it("a command that needs the addon exits 3 with one line; one that does not still works", () => {
    const schema = file("s.json", '{"type": "integer"}');
    const input = file("i.txt", "12");
    const masks = cli(["masks", "--schema", schema, "--tokenizer", tokenizerJsonPath("llama3"), "--input", input]);
    expect(masks.status).toBe(3);
    expect(masks.stderr.trim().split("\n")).toHaveLength(1);
    expect(masks.stderr).toMatch(/^tagmask masks: NativeAddonError: native addon unavailable/);
    const match = cli(["match", "--schema", schema, "--input", input]);
    expect(match.status).toBe(0);
    expect(match.stdout).toBe("match\n");
  });
});

describe("--json for scripts", () => {
  it.each([
    ["12", 0, { result: "match", offset: null, bytes: 2 }],
    ["1", 0, { result: "match", offset: null, bytes: 1 }],
    ["-", 1, { result: "prefix", offset: null, bytes: 1 }],
    ["1x", 1, { result: "no match", offset: 1, bytes: 2 }],
  ])("match %j → exit %i, %j", async (text, code, json) => {
    const r = await runCli(["match", "--schema", file("int.json", '{"type": "integer"}'), "--json"], text);
    expect(r.code).toBe(code);
    expect(JSON.parse(r.stdout)).toEqual(json);
  });

  it("masks: every step, the totals; a rejected token stops the walk (exit 1)", async () => {
    const schema = file("obj.json", '{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}');
    const good = await runCli(["masks", "--schema", schema, "--tokenizer", tokenizerJsonPath("llama3"), "--input", file("good.txt", '{"a": 42}'), "--json"]);
    expect(good.code).toBe(0);
    const out = JSON.parse(good.stdout) as {
      allAllowed: boolean; accepted: number; tokens: number; rejectedAt: number | null; canTerminate: boolean;
      steps: { step: number; token: number; text: string; allowed: boolean; maskAllowed: number; fillMicros: number }[];
      compile: { states: number };
    };
    expect(out.allAllowed).toBe(true);
    expect(out.rejectedAt).toBeNull();
    expect(out.canTerminate).toBe(true);
    expect(out.steps.length).toBe(out.tokens);
    expect(out.steps.map((s) => s.text).join("")).toBe('{"a": 42}');
    expect(out.steps.every((s) => s.allowed && s.maskAllowed > 0 && s.fillMicros >= 0)).toBe(true);
    expect(out.compile.states).toBeGreaterThan(0);

    const bad = await runCli(["masks", "--schema", schema, "--tokenizer", tokenizerJsonPath("llama3"), "--input", file("bad.txt", '{"b": 1}'), "--json"]);
    expect(bad.code).toBe(1);
    const rejected = JSON.parse(bad.stdout) as { allAllowed: boolean; rejectedAt: number; allowedAtRejection: { token: number; text: string }[] };
    expect(rejected.allAllowed).toBe(false);
    expect(rejected.allowedAtRejection.length).toBeGreaterThan(0);
    expect(rejected.allowedAtRejection.every((t) => t.text.startsWith("a") || t.text.startsWith('"a') || "a".startsWith(t.text))).toBe(true);
  });

  it("masks: --quiet and --json exclude each other", async () => {
    const r = await runCli(["masks", "--schema", "x", "--tokenizer", "y", "--input", "z", "--quiet", "--json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--quiet and --json exclude each other");
  });
});
