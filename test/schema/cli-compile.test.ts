/** `tagmask compile --schema FILE`, in process through the CLI dispatcher. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../lib/cli.js";

const scratch = mkdtempSync(join(tmpdir(), "tagmask-compile-"));
const file = (name: string, content: string): string => {
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
};

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c) => (out += String(c)));
  stderr.on("data", (c) => (err += String(c)));
  const code = await main(["compile", ...args], { stdout, stderr, stdin: new PassThrough() });
  return { code, stdout: out, stderr: err };
}

const good = file("good.json", JSON.stringify({ type: "object", properties: { a: { type: "integer", minimum: 0 } }, required: ["a"] }));
const unique = file("unique.json", JSON.stringify({ type: "object", properties: { tags: { type: "array", uniqueItems: true } } }));

describe("tagmask compile", () => {
  it("prints the size and compile time of a compiled schema", async () => {
    const r = await run(["--schema", good]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^compiled .*good\.json: \d+ rules, \d+ IR nodes, \d+ bytes serialized, [\d.]+ ms\n$/);
  });
  it("prints JSON figures and the grammar on request", async () => {
    const r = await run(["--schema", good, "--json", "--print", "--compact"]);
    expect(r.code).toBe(0);
    const [first, ...rest] = r.stdout.split("\n");
    const figures = JSON.parse(first!) as { rules: number; nodes: number; bytes: number; unenforced: unknown[] };
    expect(figures.rules).toBeGreaterThan(0);
    expect(figures.unenforced).toEqual([]);
    expect(rest.join("\n")).toContain('"\\"a\\""');
  });
  it("refuses with the keyword and schema path, exit code 2", async () => {
    const r = await run(["--schema", unique]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("refused: keyword uniqueItems at #/properties/tags/uniqueItems");
  });
  it("--lenient compiles and lists what it did not enforce", async () => {
    const r = await run(["--schema", unique, "--lenient"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("not enforced: keyword uniqueItems at #/properties/tags/uniqueItems");
  });
  it("takes --formats openapi and --draft", async () => {
    const r = await run(["--schema", file("openapi.json", '{"type":"integer","format":"int32","prefixItems":[]}'), "--formats", "openapi", "--draft", "draft-07"]);
    expect(r.code).toBe(0);
  });
  it("match --schema reads the schema's numbers as written", async () => {
    const big = file("big.json", '{"type":"integer","maximum":9223372036854775807}');
    const stdout = new PassThrough();
    const verdict = async (text: string): Promise<number> =>
      main(["match", "--schema", big, "--input", file("input.txt", text)], { stdout, stderr: new PassThrough(), stdin: new PassThrough() });
    expect(await verdict("9223372036854775807")).toBe(0);
    expect(await verdict("9223372036854775808")).toBe(1);
  });
  it.each([
    [["--schema", join(scratch, "missing.json")], "no such file"],
    [["--schema", file("bad.json", "{")], "invalid JSON"],
    [["--schema", good, "--max-whitespace", "x"], "--max-whitespace must be an integer ≥ 0"],
    [["--schema", good, "--formats", "maybe"], "--formats must be one of assert, ignore, openapi"],
    [["--schema", good, "--draft", "draft-99"], "--draft must be one of draft-04"],
    [[], "--schema FILE is required"],
  ])("bad arguments exit 2: %j", async (args, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
