/**
 * `tagmask outline`: in-process through the dispatcher (every option and error), and as a real
 * process from dist/lib/cli.js (the seeds byte for byte, exit codes). The process tests compile
 * the package first when dist/ is missing or older than the sources they run.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../lib/cli.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const seeds = join(root, "test/fixtures/seeds");
const toolsFile = join(seeds, "tools.json");
const seed = (name: string) => readFileSync(join(seeds, `kimi-k3.${name}.final-output-only.outline`), "utf8");

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const code = await main(["outline", ...args], { stdout, stderr, stdin: new PassThrough() });
  return { code, stdout: out, stderr: err };
}

const scratch = mkdtempSync(join(tmpdir(), "tagmask-outline-"));
function file(name: string, content: string): string {
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
}

describe("tagmask outline (in process)", () => {
  it.each([
    ["auto", "auto"],
    ["required", "required"],
    ["get_weather", "named"],
  ])("--tool-choice %s prints the %s seed", async (choice, name) => {
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
    ["unknown family", ["--family", "gpt-9"], /unknown --family 'gpt-9' \(known: kimi-k3\)/],
    ["unknown option", ["--family", "kimi-k3", "--tool", toolsFile], /unknown option --tool/],
    ["bad reasoning", ["--family", "kimi-k3", "--reasoning", "deep"], /--reasoning must be one of final_output_only, think, auto, not 'deep'/],
    ["stray argument", ["--family", "kimi-k3", "extra"], /unexpected argument 'extra'/],
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

/** The newest modification time under `dir` of files ending in `.ts`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

describe("tagmask outline (process from dist/)", () => {
  const cli = join(root, "dist/lib/cli.js");
  beforeAll(() => {
    const sources = Math.max(newestSource(join(root, "lib/tools")), newestSource(join(root, "lib/format")), statSync(join(root, "lib/cli/outline.ts")).mtimeMs);
    if (!existsSync(cli) || !existsSync(join(root, "dist/lib/cli/outline.js")) || statSync(join(root, "dist/lib/cli/outline.js")).mtimeMs < sources) {
      // tsc still writes dist/ when unrelated files of the tree have type errors; only the exit code says so.
      spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.json")], { stdio: "ignore" });
    }
  }, 180_000);

  it.each([
    ["auto", "auto"],
    ["required", "required"],
    ["get_weather", "named"],
  ])("tagmask outline --tool-choice %s prints the %s seed byte for byte", (choice, name) => {
    const out = execFileSync(process.execPath, [cli, "outline", "--family", "kimi-k3", "--tools", toolsFile, "--tool-choice", choice, "--reasoning", "final_output_only"], { encoding: "utf8" });
    expect(out).toBe(seed(name));
  });

  it("a bad tools file exits with code 2 and one line on stderr", () => {
    const r = spawnSync(process.execPath, [cli, "outline", "--family", "kimi-k3", "--tools", join(scratch, "missing.json")], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^tagmask outline: InvalidArgumentError: --tools .*missing\.json: cannot read the file \(no such file\)$/)]);
  });
});
