/**
 * The reproductions of issue 11 (memory safety and bounded work), each run 5 times in its own
 * Node process: no signal, no sanitizer report, the typed error (or the correct result). Under
 * `npm run test:asan` the children run on the sanitized addon.
 *
 * Not here: the parser-stack blow-up, the compile work budget and the 100,000-value enum
 * (issue 11's other owners test those).
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli, scratchDir } from "../helpers/cli.js";
import { tokenizerJsonPath } from "../helpers/vocab.js";
import { mkfifoSync } from "./fifo.js";
import { CLI, SANITIZER_REPORT, dist, inBatches, runNode, runScript, type ChildResult } from "./child.js";

const RUNS = 5;
// A run that takes longer is killed (and fails on its signal): a hang detector, not a timing
// assertion. A run takes one to two seconds (most of it loading the package).
const KILL_MS = 30_000;

beforeAll(() => ensureBuiltCli(), 300_000);

// Loads the package from dist/ and builds a small vocabulary and grammar: `[` then a/b letters then `]`.
const PRELUDE = `
const { TokenizerInfo } = await import(${JSON.stringify(dist("tokenizer/tokenizer-info.js"))});
const ir = await import(${JSON.stringify(dist("compile/ir.js"))});
const { compileGrammar, compileGrammarAsync } = await import(${JSON.stringify(dist("engine/compiled-grammar.js"))});
const { GrammarMatcher } = await import(${JSON.stringify(dist("engine/matcher.js"))});
const { BatchMatcher } = await import(${JSON.stringify(dist("engine/batch.js"))});
const cpu = await import(${JSON.stringify(dist("mask/cpu.js"))});
const { native } = await import(${JSON.stringify(dist("native.js"))});
const vocab = TokenizerInfo.fromTokens(["<eos>", "[", "]", "a", "b", ",", "ab"], { vocabType: "raw", specialTokens: ["<eos>"], stopTokens: ["<eos>"] });
const g = new ir.GrammarBuilder();
g.define("root", ir.seq(ir.lit("["), ir.plus(ir.charClass([[0x61, 0x62]])), ir.lit("]")));
const grammar = g.build("root");
const compiled = compileGrammar(vocab, grammar);
const detach = (v) => { structuredClone(v.buffer, { transfer: [v.buffer] }); globalThis.gc(); };
const getter = (o, k, effect) => { const v = o[k]; delete o[k]; Object.defineProperty(o, k, { enumerable: true, get() { effect(); return v; } }); return o; };
const outcome = (f) => { try { const r = f(); return { value: r instanceof Int32Array ? Array.from(r) : r ?? null }; } catch (e) { return { error: e.constructor.name, message: e.message }; } };
const done = (x) => process.stdout.write("RESULT:" + JSON.stringify(x) + "\\n");
`;

interface Repro {
  name: string;
  /** A module (after PRELUDE) that ends by calling done(result); or a CLI command line. */
  script?: string;
  cli?: () => string[];
  /** Checks the parsed RESULT (scripts) or the process result (CLI). */
  check(result: unknown, child: ChildResult): void;
}

const errorNames = (r: unknown): string[] => (r as Array<{ error?: string }>).map((x) => x.error ?? "none");

let scratch: ReturnType<typeof scratchDir>;
const fifo = (): string => mkfifoSync(scratch.dir);

const REPROS: Repro[] = [
  {
    name: "BatchMatcher.fillNextTokenBitmasks(out, rows): a getter on rows detaches out",
    script: `
      const batch = new BatchMatcher([new GrammarMatcher(compiled), new GrammarMatcher(compiled)]);
      const out = new Int32Array(2 * batch.maskWords);
      const rows = [0, 1];
      Object.defineProperty(rows, 1, { get() { detach(out); return 1; } });
      const first = outcome(() => batch.fillNextTokenBitmasks(out, rows));
      const after = outcome(() => { const o = new Int32Array(2 * batch.maskWords); batch.fillNextTokenBitmasks(o); return o; });
      done({ first, after });`,
    check(r) {
      const { first, after } = r as { first: { error: string; message: string }; after: { value: number[] } };
      expect(first.error).toBe("InvalidArgumentError");
      expect(first.message).toMatch(/detached/);
      expect(after.value.some((w) => w !== 0)).toBe(true);
    },
  },
  {
    name: "maskedSample: getters on topK, seed, temperature and topP detach the logits",
    script: `
      const results = [];
      for (const key of ["topK", "seed", "temperature", "topP"]) {
        const logits = new Float32Array(64).fill(1);
        const bitmask = new Int32Array(2).fill(-1);
        const options = getter({ vocabSize: 64, topK: 3, seed: 7, temperature: 0.5, topP: 0.9 }, key, () => detach(logits));
        results.push(outcome(() => cpu.maskedSample(logits, bitmask, options)));
      }
      done(results);`,
    check(r) {
      expect(errorNames(r)).toEqual(Array(4).fill("InvalidArgumentError"));
    },
  },
  {
    name: "options.indices in applyTokenBitmask / maskedArgmax / maskedSample: a dtype getter detaches the indices",
    script: `
      const results = [];
      for (const fn of ["applyTokenBitmask", "maskedArgmax", "maskedSample"]) {
        const logits = new Float32Array(4 * 64).fill(1);
        const bitmask = new Int32Array(4 * 2).fill(-1);
        const indices = Int32Array.of(3, 1);
        const options = getter({ vocabSize: 64, indices, dtype: "float32" }, "dtype", () => detach(indices));
        results.push(outcome(() => cpu[fn](logits, bitmask, options)));
      }
      done(results);`,
    check(r) {
      expect(errorNames(r)).toEqual(Array(3).fill("InvalidArgumentError"));
      for (const x of r as Array<{ message: string }>) expect(x.message).toMatch(/indices is detached/);
    },
  },
  {
    name: "createTokenizerInfo: a later getter detaches bytes",
    script: `
      const d = vocab.data;
      const data = { vocabSize: d.vocabSize, bytes: d.bytes.slice(), offsets: d.offsets.slice(), kinds: d.kinds.slice(), stopTokenIds: d.stopTokenIds.slice() };
      getter(data, "stopTokenIds", () => detach(data.bytes));
      done([outcome(() => native().createTokenizerInfo(data))]);`,
    check(r) {
      expect(errorNames(r)).toEqual(["InvalidArgumentError"]);
    },
  },
  {
    name: "a getter starts an asynchronous operation on the same batch: the synchronous call refuses",
    script: `
      const matchers = [new GrammarMatcher(compiled), new GrammarMatcher(compiled)];
      const batch = new BatchMatcher(matchers);
      let pending;
      const tokens = [1, 1];
      Object.defineProperty(tokens, 0, { get() { pending = batch.acceptTokensAsync([1, 1]); return 1; } });
      const first = outcome(() => batch.acceptTokens(tokens));
      const settled = await pending;
      done({ first, accepted: Array.from(settled.accepted), steps: matchers.map((m) => m.stepCount) });`,
    check(r) {
      const { first, accepted, steps } = r as { first: { error: string }; accepted: number[]; steps: number[] };
      expect(first.error).toBe("MatcherStateError");
      // Accepted once (by the asynchronous call), not twice.
      expect(accepted).toEqual([1, 1]);
      expect(steps).toEqual([1, 1]);
    },
  },
  {
    name: "a worker thread terminated while its BatchMatcher fills asynchronously",
    script: `
      const { Worker } = await import("node:worker_threads");
      // The worker's code is an ES module, like this script.
      const worker = new Worker(\`
        import { parentPort } from "node:worker_threads";
        import(${JSON.stringify(dist("engine/batch.js"))}).then(async ({ BatchMatcher }) => {
          const { TokenizerInfo } = await import(${JSON.stringify(dist("tokenizer/tokenizer-info.js"))});
          const { GrammarMatcher } = await import(${JSON.stringify(dist("engine/matcher.js"))});
          const { compileGrammar } = await import(${JSON.stringify(dist("engine/compiled-grammar.js"))});
          const ir = await import(${JSON.stringify(dist("compile/ir.js"))});
          const vocab = TokenizerInfo.fromTokens(["<eos>", "[", "]", "a", "b", ",", "ab"], { vocabType: "raw", specialTokens: ["<eos>"], stopTokens: ["<eos>"] });
          const g = new ir.GrammarBuilder();
          g.define("root", ir.seq(ir.lit("["), ir.star(ir.seq(ir.plus(ir.charClass([[0x61, 0x62]])), ir.lit(","))), ir.lit("]")));
          const compiled = compileGrammar(vocab, g.build("root"));
          const batch = new BatchMatcher(Array.from({ length: 512 }, () => new GrammarMatcher(compiled)));
          const again = () => batch.fillNextTokenBitmasksAsync().then(again);
          again();
          parentPort.postMessage("started");
        });\`, { eval: true });
      await new Promise((resolve, reject) => { worker.once("message", resolve); worker.once("error", reject); });
      await new Promise((r) => setTimeout(r, 3));
      const code = await worker.terminate();
      const batch = new BatchMatcher([new GrammarMatcher(compiled)]);
      const { errors } = await batch.fillNextTokenBitmasksAsync();
      done({ code, errors: errors.length });`,
    check(r) {
      expect(r).toEqual({ code: 1, errors: 0 });
    },
  },
  {
    name: "a worker thread terminated while it compiles asynchronously",
    script: `
      const { Worker } = await import("node:worker_threads");
      const worker = new Worker(\`
        import { parentPort } from "node:worker_threads";
        (async () => {
          const { TokenizerInfo } = await import(${JSON.stringify(dist("tokenizer/tokenizer-info.js"))});
          const { compileGrammarAsync } = await import(${JSON.stringify(dist("engine/compiled-grammar.js"))});
          const { compileJsonSchema } = await import(${JSON.stringify(dist("compile/json-schema/index.js"))});
          const tokens = [];
          for (let i = 0; i < 4000; i++) tokens.push(String.fromCharCode(97 + (i % 26)) + i.toString(36));
          const vocab = TokenizerInfo.fromTokens(tokens, { vocabType: "raw" });
          const { grammar } = compileJsonSchema({ type: "object", properties: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } } });
          const again = () => compileGrammarAsync(vocab, grammar).then(again);
          again(); again();
          parentPort.postMessage("started");
        })();\`, { eval: true });
      await new Promise((resolve, reject) => { worker.once("message", resolve); worker.once("error", reject); });
      await new Promise((r) => setTimeout(r, 5));
      const code = await worker.terminate();
      const again = await compileGrammarAsync(vocab, grammar);
      done({ code, states: again.stateCount > 0 });`,
    check(r) {
      expect(r).toEqual({ code: 1, states: true });
    },
  },
  {
    name: "acceptTokens(Uint32Array) with an id of 2^31",
    script: `
      const batch = new BatchMatcher([new GrammarMatcher(compiled), new GrammarMatcher(compiled)]);
      done([outcome(() => batch.acceptTokens(Uint32Array.of(1, 2 ** 31))), outcome(() => Array.from(batch.acceptTokens(Uint32Array.of(1, 1)).accepted))]);`,
    check(r) {
      const [bad, good] = r as [{ error: string; message: string }, { value: number[] }];
      expect(bad.error).toBe("InvalidArgumentError");
      expect(bad.message).toMatch(/tokens\[1\] = 2147483648 is out of range/);
      expect(good.value).toEqual([1, 1]);
    },
  },
  {
    name: "compileJsonSchema() on a schema nested 3,000 deep",
    script: `
      const { compileJsonSchema } = await import(${JSON.stringify(dist("compile/json-schema/index.js"))});
      let s = { type: "integer" };
      for (let i = 0; i < 3000; i++) s = { type: "array", items: s };
      let r = { type: "integer" };
      for (let i = 0; i < 3000; i++) r = { anyOf: [r, { type: "null" }] };
      done([outcome(() => compileJsonSchema(s)), outcome(() => compileJsonSchema(r))]);`,
    check(r) {
      expect(errorNames(r)).toEqual(["SchemaError", "SchemaError"]);
    },
  },
  {
    name: "tagmask outline --tools /dev/zero",
    cli: () => ["outline", "--family", "kimi-k3", "--tools", "/dev/zero"],
    check(_r, child) {
      expect(child.status).toBe(2);
      expect(child.stderr).toMatch(/^tagmask outline: InvalidArgumentError: --tools \/dev\/zero: cannot read the file \(it is a character device, not a regular file\)\n$/);
    },
  },
  {
    name: "tagmask outline --tools FIFO-without-a-writer",
    cli: () => ["outline", "--family", "kimi-k3", "--tools", fifo()],
    check(_r, child) {
      expect(child.status).toBe(2);
      expect(child.stderr).toMatch(/cannot read the file \(it is a FIFO or pipe, not a regular file\)\n$/);
      expect(child.stderr.split("\n")).toHaveLength(2);
    },
  },
  {
    name: "tagmask compile on a schema nested 3,000 deep",
    cli: () => ["compile", "--schema", scratch.file("deep.json", `${'{"type":"array","items":'.repeat(3000)}{"type":"integer"}${"}".repeat(3000)}`)],
    check(_r, child) {
      expect(child.status).toBe(2);
      expect(child.stderr).toMatch(/^tagmask compile: InvalidArgumentError: --schema .*deep\.json: invalid JSON: .*nested at most 1000 levels deep/);
      expect(child.stderr.split("\n")).toHaveLength(2);
      expect(child.stderr.length).toBeLessThan(600);
    },
  },
  {
    name: "tagmask compile on minimum > maximum (refused, as masks refuses it)",
    cli: () => ["compile", "--schema", scratch.file("min-max.json", '{"type":"integer","minimum":5,"maximum":2}')],
    check(_r, child) {
      expect(child.status).toBe(2);
      expect(child.stderr).toMatch(/^tagmask compile: refused: keyword minimum at #: #: the schema accepts no JSON value at all, so no output could follow it \(minimum 5 > maximum 2 at #\)\n$/);
    },
  },
  {
    name: "tagmask masks on minimum > maximum (refused, as compile refuses it)",
    cli: () => ["masks", "--schema", scratch.file("min-max.json", '{"type":"integer","minimum":5,"maximum":2}'), "--tokenizer", tokenizerJsonPath("llama3"), "--input", scratch.file("three.txt", "3")],
    check(_r, child) {
      expect(child.status).toBe(2);
      expect(child.stderr).toMatch(/^tagmask masks: SchemaError: #: the schema accepts no JSON value at all, so no output could follow it \(minimum 5 > maximum 2 at #\)\n$/);
    },
  },
  {
    name: "tagmask compile on minLength > maxLength",
    cli: () => ["compile", "--schema", scratch.file("len.json", '{"type":"object","properties":{"a":{"type":"string","minLength":3,"maxLength":1}},"required":["a"]}')],
    check(_r, child) {
      expect(child.status).toBe(2);
      expect(child.stderr).toMatch(/minLength 3 > maxLength 1 at #\/properties\/a/);
    },
  },
  {
    name: "invalid UTF-8 in an input file is refused, not replaced",
    cli: () => ["match", "--ebnf", scratch.file("bad.ebnf", Uint8Array.from([...Buffer.from('root ::= "caf'), 0xe9, ...Buffer.from('"\n')])), "--input", scratch.file("in.txt", "x")],
    check(_r, child) {
      expect(child.status).toBe(2);
      expect(child.stderr).toMatch(/--ebnf .*bad\.ebnf: not UTF-8 text: invalid byte sequence at byte 13 \(line 1, column 14: e9 22 0a\)/);
    },
  },
];

// TAGMASK_REPRO_TIMES=FILE: each reproduction's run times (ms) are written there, for reports.
const times: Record<string, number[]> = {};
afterAll(() => {
  if (process.env.TAGMASK_REPRO_TIMES) writeFileSync(process.env.TAGMASK_REPRO_TIMES, JSON.stringify(times, null, 1));
});

describe("issue 11 reproductions, each 5 times in a child process", () => {
  scratch = scratchDir("safety-repro");

  it.each(REPROS.map((r) => [r.name, r] as const))("%s", async (_name, repro) => {
    // The command line (and the files it names) is made once: runs go two at a time, and a file
    // rewritten while another run reads it would be read half written.
    const argv = repro.cli?.();
    const runs = await inBatches(
      Array.from({ length: RUNS }, () => () =>
        argv ? runNode([CLI, ...argv], { timeoutMs: KILL_MS }) : runScript(PRELUDE + repro.script!, { timeoutMs: KILL_MS, execArgv: ["--expose-gc"] })),
    );
    times[repro.name] = runs.map((r) => Math.round(r.ms));
    for (const child of runs) {
      const where = `${repro.name}\nstatus ${child.status} signal ${child.signal} in ${Math.round(child.ms)} ms\n${child.stderr.slice(0, 2000)}`;
      expect(child.signal, where).toBeNull();
      expect(child.stderr, where).not.toMatch(SANITIZER_REPORT);
      if (repro.cli) {
        repro.check(undefined, child);
        continue;
      }
      expect(child.status, where).toBe(0);
      const line = child.stdout.split("\n").find((l) => l.startsWith("RESULT:"));
      expect(line, where).toBeDefined();
      repro.check(JSON.parse(line!.slice("RESULT:".length)), child);
    }
  });

});
