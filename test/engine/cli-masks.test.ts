/**
 * `tagmask masks` in process through the dispatcher: a walk that passes, one that is rejected
 * (exit 1, the allowed tokens shown), a JSON Schema source, and bad arguments (exit 2).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, scratchDir } from "../helpers/cli.js";
import { seedTools, seedToolsFile as tools } from "../helpers/seeds.js";
import { tokenizerJsonPath } from "../helpers/vocab.js";
import { SEED_OUTPUTS } from "./grammars.js";

const run = (args: string[]) => runCli(["masks", ...args]);
const { dir: scratch, file } = scratchDir("masks");

const tokenizer = tokenizerJsonPath("llama3");

describe("tagmask masks", () => {
  it("walks a seed output: every step allowed, the grammar can end", async () => {
    const input = file("required.txt", SEED_OUTPUTS.required);
    const r = await run(["--family", "kimi-k3", "--tools", tools, "--tool-choice", "required", "--tokenizer", tokenizer, "--input", input]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const steps = r.stdout.split("\n").filter((l) => /^\s+\d+\s/.test(l));
    expect(steps.length).toBeGreaterThan(40);
    expect(steps[0]).toMatch(/^\s+0\s+"<\|open\|>"\s+ok\s+\d+ allowed\s+[\d.]+ µs$/);
    expect(steps.every((l) => / ok /.test(l))).toBe(true);
    expect(r.stdout).toMatch(new RegExp(`${steps.length} of ${steps.length} tokens allowed; the grammar can end here`));
    expect(r.stdout).toMatch(/fill: median [\d.]+ µs, max [\d.]+ µs/);
  });

  it("stops at a rejected token and shows what was allowed (exit 1)", async () => {
    const input = file("bad.txt", '<|open|>response<|sep|>Hi<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_time"');
    const r = await run(["--family", "kimi-k3", "--tools", tools, "--tool-choice", "required", "--tokenizer", tokenizer, "--input", input, "--quiet"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/"_time"\s+REJECTED\s+4 allowed/);
    expect(r.stdout).toMatch(/the grammar allowed here: "_", "_w", "_we", "_weather"/);
    expect(r.stdout).toMatch(/token \d+ was rejected/);
  });

  it("walks a JSON document against a JSON Schema", async () => {
    const schema = file("schema.json", JSON.stringify({ type: "object", properties: { a: { type: "integer" } }, required: ["a"], additionalProperties: false }));
    const r = await run(["--schema", schema, "--tokenizer", tokenizer, "--input", file("doc.json", '{"a": 12}')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/6 of 6 tokens allowed; the grammar can end here/);
  });

  it("takes the tools in an object and the tool choice as JSON, like tagmask outline", async () => {
    const wrapped = file("wrapped.json", JSON.stringify({ tools: seedTools() }));
    const choice = JSON.stringify({ type: "function", function: { name: "get_weather" } });
    const input = file("named.txt", SEED_OUTPUTS.named);
    const r = await run(["--family", "kimi-k3", "--tools", wrapped, "--tool-choice", choice, "--tokenizer", tokenizer, "--input", input, "--quiet"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/(\d+) of \1 tokens allowed; the grammar can end here/);
    // The named choice forbids the other tool.
    const other = file("other.txt", SEED_OUTPUTS.named.replace("get_weather", "add"));
    expect((await run(["--family", "kimi-k3", "--tools", wrapped, "--tool-choice", choice, "--tokenizer", tokenizer, "--input", other, "--quiet"])).code).toBe(1);
  });

  it.each([
    [["--tokenizer", tokenizer, "--input", "x"], /give one of --format, --schema or --family/],
    [["--schema", "a.json", "--family", "kimi-k3", "--tokenizer", tokenizer, "--input", "x"], /give only one of/],
    [["--schema", "a.json", "--input", "x"], /--tokenizer FILE .* is required/],
    [["--schema", "a.json", "--tokenizer", tokenizer], /--input FILE .* is required/],
    [["--family", "kimi-k3", "--tokenizer", tokenizer, "--input", "x"], /--tools FILE .* is required/],
    [["--schema", join(scratch, "missing.json"), "--tokenizer", tokenizer, "--input", "x"], /--schema .*missing.json: cannot read the file \(no such file\)/],
    [["--schema", "a.json", "--tokenizer", tokenizer, "--input", "x", "--vocab-size", "-3"], /--vocab-size must be an integer ≥ 1/],
  ])("refuses bad arguments: %j", async (args, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
