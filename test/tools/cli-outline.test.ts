/**
 * `tagmask outline`: in-process through the dispatcher (every option and error), and as a real
 * process from dist/lib/cli.js (the seeds byte for byte, exit codes). The process tests compile
 * the package first when dist/ is missing or older than the sources they run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli, runCli, runCliProcess, scratchDir } from "../helpers/cli.js";
import { seedOutline as seed, seedToolsFile as toolsFile } from "../helpers/seeds.js";

const run = (args: string[]) => runCli(["outline", ...args]);
const { dir: scratch, file } = scratchDir("outline");

describe("tagmask outline (in process)", () => {
  it.each([
    ["auto", "auto"],
    ["required", "required"],
    ["get_weather", "named"],
  ] as const)("--tool-choice %s prints the %s seed", async (choice, name) => {
    const r = await run(["--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", choice, "--reasoning", "final_output_only"]);
    expect(r).toEqual({ code: 0, stdout: seed(name), stderr: "" });
  });

  it("defaults: auto tool choice, final_output_only, parallel", async () => {
    expect((await run(["--family=kimi-k3", `--tools=${toolsFile}`])).stdout).toBe(seed("auto"));
  });

  it("accepts an object with a tools list", async () => {
    const wrapped = file("wrapped.json", JSON.stringify({ tools: JSON.parse(readFileSync(toolsFile, "utf8")) }));
    expect((await run(["--family", "kimi-k3", "--tools", wrapped, "--tool-choice", "required"])).stdout).toBe(seed("required"));
  });

  it("--no-parallel, --reasoning think and a tool_choice object", async () => {
    const choice = JSON.stringify({ type: "allowed_tools", allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "add" } }] } });
    const r = await run(["--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", choice, "--reasoning", "think", "--no-parallel"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("tags_with_separator `` at_least_one stop_after_first\n");
    expect(r.stdout).toContain('tag `<|open|>call tool="add" index="`');
    expect(r.stdout).not.toContain("get_weather");
    expect(r.stdout.split("\n")[1]).toBe("  tag `` text excluding [`<|close|>think<|sep|>`, `<|end_of_msg|>`] `<|close|>think<|sep|>`");
  });

  it("--response-format and --json print xgrammar JSON", async () => {
    const format = file("format.json", JSON.stringify({ type: "choice", choices: ["yes", "no"] }));
    const r = await run(["--family", "kimi-k3", "--tool-choice", "none", "--response-format", format, "--json"]);
    expect(r.code).toBe(0);
    const tag = JSON.parse(r.stdout) as { type: string; format: { type: string; elements: unknown[] } };
    expect(tag.type).toBe("structural_tag");
    expect(tag.format.elements[1]).toEqual({
      type: "tag",
      begin: "",
      content: { type: "or", elements: [{ type: "const_string", value: "yes" }, { type: "const_string", value: "no" }] },
      end: "<|close|>response<|sep|>",
    });
  });

  it("nothing to constrain: empty outline, null JSON, a note on stderr", async () => {
    const r = await run(["--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", "none"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/nothing to constrain/);
    expect((await run(["--family", "kimi-k3", "--tool-choice", "none", "--json"])).stdout).toBe("null\n");
  });

  it.each([
    ["no --family", ["--tools", toolsFile], /--family FAMILY is required/],
    ["unknown family", ["--family", "gpt-9"], /unknown --family 'gpt-9' \(known: hermes, qwen3, .*kimi-k3.*\)/],
    ["unknown option", ["--family", "kimi-k3", "--tool", toolsFile], /unknown option --tool/],
    ["bad reasoning", ["--family", "kimi-k3", "--reasoning", "deep"], /--reasoning must be one of final_output_only, think, auto, not 'deep'/],
    ["stray argument", ["--family", "kimi-k3", "extra"], /unexpected argument "extra"/],
    ["missing value", ["--family", "kimi-k3", "--tools"], /--tools needs a value/],
    ["bad tool_choice JSON", ["--family", "kimi-k3", "--tool-choice", "{type"], /--tool-choice: invalid JSON/],
  ])("usage error: %s", async (_what, args, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it.each([
    ["missing tools file", () => ["--tools", join(scratch, "nope.json")], /--tools .*nope\.json: cannot read the file \(no such file\)/],
    ["a directory", () => ["--tools", scratch], /cannot read the file \(it is a directory\)/],
    ["bad JSON", () => ["--tools", file("bad.json", '[{"type": "function",\n  }]')], /invalid JSON: .*line 2, column 3/],
    ["bad tools", () => ["--tools", file("dup.json", JSON.stringify([{ type: "function", function: { name: "a" } }, { type: "function", function: { name: "a" } }]))], /ToolError: tools\[1\]\.function\.name: duplicate tool name "a"/],
    ["unknown named tool", () => ["--tools", toolsFile, "--tool-choice", "get_time"], /ToolError: tool_choice\.function\.name: no tool named "get_time"/],
    ["bad response format", () => ["--response-format", file("rf.json", '{"type": "yaml"}')], /ToolError: response_format\.type: expected "text"/],
  ])("bad input: %s → one line, exit 2", async (_what, args, message) => {
    const r = await run(["--family", "kimi-k3", ...args()]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("tagmask outline (process from dist/)", () => {
  beforeAll(ensureBuiltCli, 300_000);

  it.each([
    ["auto", "auto"],
    ["required", "required"],
    ["get_weather", "named"],
  ] as const)("tagmask outline --tool-choice %s prints the %s seed byte for byte", (choice, name) => {
    const r = runCliProcess(["outline", "--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", choice, "--reasoning", "final_output_only"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(seed(name));
  });

  it("a bad tools file exits with code 2 and one line on stderr", () => {
    const r = runCliProcess(["outline", "--family", "kimi-k3", "--tools", join(scratch, "missing.json")]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^tagmask outline: InvalidArgumentError: --tools .*missing\.json: cannot read the file \(no such file\)$/)]);
  });
});
