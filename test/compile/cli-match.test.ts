/**
 * `tagmask match`: as a real process from dist/lib/cli.js (compiled first when dist/ is missing or
 * older than the sources), and in-process through the dispatcher for the error paths.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { structuralTagToJSON } from "../../lib/format/serialize.js";
import { ensureBuiltCli, runCli, runCliProcess, scratchDir } from "../helpers/cli.js";
import { seeds } from "../helpers/seeds.js";

const { dir: scratch, file } = scratchDir("match");

const seedFile = file("required.json", JSON.stringify(structuralTagToJSON(seeds.required)));
const schemaFile = file("schema.json", JSON.stringify({ type: "object", properties: { a: { type: "integer" } }, required: ["a"], additionalProperties: false }));
const ebnfFile = file("list.gbnf", 'root ::= "[" item ("," item)* "]"\nitem ::= [0-9]+ | root\n');
const tagFile = file("tag.json", JSON.stringify({ type: "tag", begin: "<a>", content: { type: "any_text" }, end: "</a>" }));
// docs/compatibility.md, "Structural tags: json_schema excludes": the example and its verdicts.
const excludesFile = file("excludes.json", JSON.stringify({
  type: "structural_tag",
  format: {
    type: "json_schema",
    json_schema: {
      type: "object",
      properties: { text: { type: "string" }, tags: { type: "array", items: { type: "string", pattern: "^[a-z<|>]*$" } } },
      required: ["text"],
      additionalProperties: { type: "integer" },
    },
    excludes: ["<|open|>", "<|close|>", "<|sep|>"],
  },
}));

const call = '<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="location" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|>';
const full = `Hi<|close|>response<|sep|><|open|>tools<|sep|>${call}<|close|>tools<|sep|>`;

const runProcess = (args: string[], input: string | Uint8Array = "") => runCliProcess(["match", ...args], input);
const runInProcess = (args: string[], input = "") => runCli(["match", ...args], input);

describe("tagmask match (process from dist/)", () => {
  beforeAll(ensureBuiltCli, 300_000);

  const table: Array<[string, string[], string | Uint8Array, number, string]> = [
    ["a seed output matches", ["--format", seedFile], full, 0, "match\n"],
    ["with the message end too", ["--format", seedFile], `${full}<|close|>message<|sep|>`, 0, "match\n"],
    ["an incomplete output is a prefix", ["--format", seedFile], "Hi<|close|>response<|sep|><|open|>to", 1, "prefix\n"],
    ["--prefix accepts it", ["--format", seedFile, "--prefix"], "Hi<|close|>response<|sep|><|open|>to", 0, "prefix\n"],
    ["an unknown tool fails at its first wrong byte", ["--format", seedFile], 'Hi<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="x', 1, "no match at byte 65\n"],
    ["a marker in the response text", ["--format", seedFile], "a<|open|>", 1, "no match at byte 8\n"],
    ["a bare format file", ["--format", tagFile], "<a>x</b></a>", 0, "match\n"],
    ["text after the end", ["--format", tagFile], "<a>x</a>!", 1, "no match at byte 8\n"],
    ["a schema: valid", ["--schema", schemaFile], '{"a": 12}', 0, "match\n"],
    ["a schema: a string for an integer", ["--schema", schemaFile], '{"a": "1"}', 1, "no match at byte 6\n"],
    // 1.5e1 is the integer 15, so "1.5" is still viable: the schema fails at the closing brace.
    ["a schema: a fraction for an integer", ["--schema", schemaFile], '{"a": 1.5}', 1, "no match at byte 9\n"],
    ["a schema: an unknown key", ["--schema", schemaFile], '{"b": 1}', 1, "no match at byte 2\n"],
    ["a regex", ["--regex", "[a-c]+\\d{2}"], "abc12", 0, "match\n"],
    ["a regex, too long", ["--regex", "[a-c]+\\d{2}"], "abc123", 1, "no match at byte 5\n"],
    ["an EBNF grammar", ["--ebnf", ebnfFile], "[1,[2,3]]", 0, "match\n"],
    ["an EBNF grammar, wrong", ["--ebnf", ebnfFile], "[1,,", 1, "no match at byte 3\n"],
    ["invalid UTF-8 input", ["--regex", "[^x]*"], Uint8Array.from([0x61, 0xc3, 0x28]), 1, "no match at byte 2\n"],
    ["empty input that is a prefix", ["--regex", "a"], "", 1, "prefix\n"],
    ["json_schema excludes: a plain string", ["--format", excludesFile], '{"text": "hello", "n": 1}', 0, "match\n"],
    ["json_schema excludes: a marker in a string", ["--format", excludesFile], '{"text": "a<|close|>b"}', 1, "no match at byte 19\n"],
    ["json_schema excludes: the marker escaped", ["--format", excludesFile], '{"text": "a\\u003c|close|>b"}', 0, "match\n"],
    ["json_schema excludes: a marker a pattern allows", ["--format", excludesFile], '{"text": "<|clo", "tags": ["x<|sep|>"]}', 1, "no match at byte 35\n"],
    ["json_schema excludes: parts of markers in two strings", ["--format", excludesFile], '{"text": "<|open|", "tags": ["open|>"]}', 0, "match\n"],
    ["json_schema excludes: a marker in a key", ["--format", excludesFile], '{"text": "x", "k<|sep|>": 1}', 1, "no match at byte 22\n"],
  ];
  it.each(table)("%s", (_name, args, input, status, stdout) => {
    const r = runProcess(args, input);
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status, stdout, stderr: "" });
  });

  it("reads --input instead of stdin", () => {
    const input = file("input.txt", full);
    expect(runProcess(["--format", seedFile, "--input", input], "ignored")).toEqual({ status: 0, stdout: "match\n", stderr: "" });
  });

  it.each([
    ["no source", [], /^tagmask match: give one of --format, --schema, --regex or --ebnf \(see `tagmask match --help`\)$/],
    ["two sources", ["--regex", "a", "--ebnf", ebnfFile], /^tagmask match: give only one of .*\(got --regex, --ebnf\) \(see `tagmask match --help`\)$/],
    ["a missing file", ["--format", join(scratch, "missing.json")], /^tagmask match: InvalidArgumentError: --format .*missing\.json: cannot read the file \(no such file\)$/],
    ["a bad regex", ["--regex", "a(?<=b)"], /^tagmask match: GrammarError: .*position 1/],
    ["an unknown option", ["--regex", "a", "--jsn"], /^tagmask match: unknown option --jsn/],
  ])("%s exits with code 2", (_name, args, message) => {
    const r = runProcess(args as string[]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd()).toMatch(message);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("tagmask match (in process)", () => {
  it.each([
    ["bad JSON in a format file", ["--format", file("bad.json", '{"type": "tag",\n  "begin": }')], /^tagmask match: InvalidArgumentError: --format .*bad\.json: invalid JSON: .*line 2, column 12/],
    ["a malformed structural tag", ["--format", file("badtag.json", '{"type": "structural_tag", "format": {"type": "tag", "begin": "<a>"}}')], /^tagmask match: FormatError: format\.content: /],
    ["a bad EBNF grammar", ["--ebnf", file("bad.gbnf", 'root ::= "a" missing\n')], /^tagmask match: GrammarError: .*missing/],
    ["an unsupported schema keyword", ["--schema", file("s.json", '{"type": "string", "format": "iri"}')], /^tagmask match: SchemaError: .*format/],
    ["--lenient without --schema", ["--regex", "a", "--lenient"], /^tagmask match: --lenient applies to --schema only \(see/],
    ["a positional argument", ["--regex", "a", "extra"], /^tagmask match: unexpected argument "extra" \(see/],
  ])("%s exits with code 2", async (_name, args, message) => {
    const r = await runInProcess(args as string[], "a");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd()).toMatch(message);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("--lenient compiles an unenforceable keyword and warns about it", async () => {
    const schema = file("lenient.json", '{"type": "string", "format": "iri"}');
    const r = await runInProcess(["--schema", schema, "--lenient"], '"x"');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("match\n");
    expect(r.stderr).toMatch(/^tagmask match: warning: not enforced: /);
  });

  describe("--tokens", () => {
    const vocab = file("vocab.json", JSON.stringify(["</s>", "<tool>", "<end>", "hello", "x"]));
    const tokenTag = file("token-tag.json", JSON.stringify({ type: "tag", begin: { type: "token", token: "<tool>" }, content: { type: "any_tokens" }, end: { type: "token", token: 2 } }));
    it.each([
      ["ids and texts", [1, "hello", "x", 2], 0, "match\n"],
      ["text that is no token is stepped as text", [1, "hello world", 2], 1, "no match at token 1\n"],
      ["incomplete", ["<tool>", "hello"], 1, "prefix\n"],
      ["the stop token at the end", [1, 2, 0], 0, "match\n"],
      ["the stop token too early", [1, 0], 1, "no match at token 1\n"],
      ["a token after the stop token", [1, 2, 0, 3], 1, "no match at token 2\n"],
    ])("%s", async (_name, tokens, code, stdout) => {
      const r = await runInProcess(["--format", tokenTag, "--tokens", "--vocab", vocab], JSON.stringify(tokens));
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code, stdout, stderr: "" });
    });

    it.each([
      ["no vocabulary", ["--format", tokenTag, "--tokens"], "[]", /--tokens needs one vocabulary/],
      ["a vocabulary without --tokens", ["--format", tokenTag, "--vocab", vocab], "", /--vocab and --tokenizer go with --tokens/],
      ["input that is not JSON", ["--format", tokenTag, "--tokens", "--vocab", vocab], "[1,", /--tokens: the input is not JSON/],
      ["an id out of range", ["--format", tokenTag, "--tokens", "--vocab", vocab], "[9]", /item 0: 9 is not a token id of the vocabulary \(0\.\.4\)/],
      ["a grammar naming a token the vocabulary lacks", ["--format", file("nope.json", '{"type": "token", "token": "<nope>"}'), "--tokens", "--vocab", vocab], "[1]", /GrammarError: token "<nope>" is not a token of the vocabulary/],
    ])("%s exits with code 2", async (_name, args, input, message) => {
      const r = await runInProcess(args as string[], input);
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd()).toMatch(message);
    });

    it("notes on stderr that text cannot reach token-level formats", async () => {
      const r = await runInProcess(["--format", tokenTag], "<tool>hello<end>");
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("no match at byte 0\n");
      expect(r.stderr).toMatch(/note: the grammar has token-level formats.*--tokens/);
    });
  });

  it("prints usage with --help", async () => {
    const r = await runInProcess(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/usage: tagmask match \(--format FILE \| --schema FILE \| --regex PATTERN \| --ebnf FILE\)/);
  });
});
