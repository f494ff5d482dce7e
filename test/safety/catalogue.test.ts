/**
 * A catalogue of malformed inputs across the public API and the CLI (issue 11): each gets its
 * typed error class and code with a message naming what is wrong; on the command line one line
 * on stderr and exit code 2. After each, the process is alive and the objects involved keep
 * working (checked right after the refusal).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as tagmask from "../../lib/index.js";
import {
  BatchMatcher, DeviceError, FormatError, GrammarBuilder, GrammarError, GrammarMatcher, InternalError, InvalidArgumentError, MatcherStateError,
  OutputParseError, SchemaError, TagmaskError, TokenizerError, ToolError, TokenizerInfo, compileGrammar, compileJsonSchema, ir,
} from "../../lib/index.js";
import { native } from "../../lib/native.js";
import { runCli, scratchDir } from "../helpers/cli.js";
import { tokenizerJsonPath } from "../helpers/vocab.js";
import { mkfifoSync } from "./fifo.js";
import { tinySetup, type TinySetup } from "./hostile.js";

type ErrorClass = abstract new (...args: never[]) => TagmaskError;

interface ApiCase {
  name: string;
  call: () => unknown;
  error: ErrorClass;
  code: string;
  message: RegExp;
  /** The objects involved still work afterwards. */
  after?: () => void;
}

const CODES = new Map<ErrorClass, string>([
  [InvalidArgumentError, "TAGMASK_INVALID_ARGUMENT"], [FormatError, "TAGMASK_INVALID_FORMAT"], [GrammarError, "TAGMASK_INVALID_GRAMMAR"],
  [SchemaError, "TAGMASK_UNSUPPORTED_SCHEMA"], [ToolError, "TAGMASK_INVALID_TOOLS"], [TokenizerError, "TAGMASK_INVALID_TOKENIZER"],
  [MatcherStateError, "TAGMASK_MATCHER_STATE"], [OutputParseError, "TAGMASK_OUTPUT_PARSE"], [DeviceError, "TAGMASK_DEVICE"], [InternalError, "TAGMASK_INTERNAL"],
]);

let t: TinySetup;
beforeAll(() => {
  t = tinySetup();
});

const api = (name: string, call: () => unknown, error: ErrorClass, message: RegExp, after?: () => void): ApiCase => ({
  name, call, error, code: CODES.get(error)!, message, ...(after ? { after } : {}),
});

/** `n` objects made by `make` on first use (cases are listed before the setup runs). */
function lazyEach<T>(n: number, make: () => T): (k: number) => T {
  const made: Array<T | undefined> = Array.from({ length: n }, () => undefined);
  return (k) => (made[k] ??= make());
}

/** The matcher, batch and vocabulary of the tiny setup still give the reference answers. */
function enginesWork(): void {
  const m = t.matcherAt(0);
  for (const id of t.tokens) expect(m.acceptToken(id)).toBe(true);
  expect(m.canTerminate()).toBe(true);
  const batch = new BatchMatcher([t.matcherAt(1), t.matcherAt(2)]);
  expect(batch.fillNextTokenBitmasks()).toEqual([]);
  expect(t.vocab.native().vocabSize).toBe(t.vocab.vocabSize);
}

let deepFormat: object = { type: "const_string", value: "a" };
for (let i = 0; i < 3000; i++) deepFormat = { type: "optional", content: deepFormat };
let deepSchema: object = { type: "integer" };
for (let i = 0; i < 3000; i++) deepSchema = { type: "array", items: deepSchema };
let deepExpr: ir.IrExpr = ir.lit("a");
for (let i = 0; i < 3000; i++) deepExpr = ir.seq(deepExpr, ir.lit("b"));
const cyclicSchema: Record<string, unknown> = { type: "array" };
cyclicSchema.items = cyclicSchema;
const refChain: Record<string, unknown> = {};
for (let i = 0; i < 3000; i++) refChain[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
refChain.d3000 = { type: "integer" };
const logits = () => new Float32Array(2 * 64).fill(1);
const bitmask = () => new Int32Array(2 * 2).fill(-1);
const store = () => ({ count: 1, wordsPerMask: 2, vocabSize: 64, words: new Int32Array(2).fill(-1) });
const tool = (name: string, parameters?: unknown) => ({ type: "function", function: { name, ...(parameters === undefined ? {} : { parameters }) } });
const k3 = (tools: unknown, tool_choice: unknown = "auto") => tagmask.buildToolCallingFormat({ family: "kimi-k3", tools, tool_choice } as never);

const API: ApiCase[] = [
  // formats
  api("parseStructuralTag: truncated JSON text", () => tagmask.parseStructuralTag("{"), FormatError, /invalid JSON at line 1, column 2/),
  api("parseStructuralTag: not an object", () => tagmask.parseStructuralTag(5 as never), FormatError, /expected a structural tag object/),
  api("parseFormat: null", () => tagmask.parseFormat(null as never), FormatError, /expected a format object, found null/),
  api("parseFormat: unknown type", () => tagmask.parseFormat({ type: "nope" } as never), FormatError, /format\.type/),
  api("parseFormat: const_string value is a number", () => tagmask.parseFormat({ type: "const_string", value: 5 } as never), FormatError, /format\.value/),
  api("parseFormat: sequence elements not a list", () => tagmask.parseFormat({ type: "sequence", elements: "x" } as never), FormatError, /format\.elements/),
  api("parseFormat: repeat max below min", () => tagmask.parseFormat({ type: "repeat", min: 3, max: 1, content: { type: "const_string", value: "a" } } as never), FormatError, /format\.max/),
  api("parseFormat: nested 3,000 deep", () => tagmask.parseFormat(deepFormat as never), FormatError, /nested|deep/),
  api("lowerFormat: nested 3,000 deep", () => tagmask.lowerFormat(deepFormat as never), FormatError, /nested|deep/),
  api("parseFormat: lone surrogate in a string", () => tagmask.parseFormat({ type: "const_string", value: "a\ud800" } as never), FormatError, /surrogate|UTF-16/),
  // tools
  api("buildToolCallingFormat: null request", () => tagmask.buildToolCallingFormat(null as never), ToolError, /expected a request object/),
  api("buildToolCallingFormat: unknown family", () => tagmask.buildToolCallingFormat({ family: "nope", tools: [] } as never), ToolError, /unknown model family/),
  api("buildToolCallingFormat: tools not a list", () => k3(5), ToolError, /tools: expected a list of tools/),
  api("buildToolCallingFormat: duplicate tool names", () => k3([tool("a"), tool("a")]), ToolError, /duplicate tool name/),
  api("buildToolCallingFormat: tool without a name", () => k3([{ type: "function", function: {} }]), ToolError, /tools\[0\]\.function\.name/),
  api("buildToolCallingFormat: tool_choice names an unknown tool", () => k3([tool("a")], { type: "function", function: { name: "b" } }), ToolError, /tool_choice/),
  api("buildToolCallingFormat: tool_choice 'sometimes'", () => k3([tool("a")], "sometimes"), ToolError, /tool_choice/),
  api("buildToolCallingFormat: parameters nested 3,000 deep", () => k3([tool("a", { type: "object", properties: { x: deepSchema } })], "required"), ToolError, /nested|deep/),
  api("normalizeToolRequest: undefined", () => tagmask.normalizeToolRequest(undefined as never), ToolError, /expected a request object/),
  api("parseToolOutput: unknown family", () => tagmask.parseToolOutput("nope", "x"), ToolError, /unknown model family/),
  api("parseToolOutput: output cut inside a call", () => tagmask.parseToolOutput("kimi-k3", "<|open|>tools<|sep|><|open|>call tool=\"x"), OutputParseError, /at offset \d+: expected/),
  // regexes and EBNF
  api("regexToIr: unterminated group", () => tagmask.regexToIr("("), GrammarError, /unterminated group/),
  api("regexToIr: quantifier out of order", () => tagmask.regexToIr("a{3,1}"), GrammarError, /out of order/),
  api("regexToIr: groups nested 3,000 deep", () => tagmask.regexToIr(`${"(".repeat(3000)}a${")".repeat(3000)}`), GrammarError, /nested more than 256 deep/),
  api("regexToIr: trailing backslash", () => tagmask.regexToIr("a\\"), GrammarError, /position/),
  api("regexToIr: reversed class range", () => tagmask.regexToIr("[z-a]"), GrammarError, /position/),
  api("ebnfToIr: no root rule", () => tagmask.ebnfToIr('start ::= "a"', new GrammarBuilder()), GrammarError, /missing root rule/),
  api("ebnfToIr: undefined rule", () => tagmask.ebnfToIr('root ::= "a" other', new GrammarBuilder()), GrammarError, /other/),
  api("ebnfToIr: left recursion", () => tagmask.ebnfToIr('root ::= root "a" | "a"', new GrammarBuilder()), GrammarError, /left recursion/),
  api("ebnfToIr: unterminated string", () => tagmask.ebnfToIr('root ::= "a', new GrammarBuilder()), GrammarError, /line 1/),
  api("ebnfToIr: groups nested 3,000 deep", () => tagmask.ebnfToIr(`root ::= ${"(".repeat(3000)}"a"${")".repeat(3000)}`, new GrammarBuilder()), GrammarError, /nested more than 256 deep/),
  // JSON Schema
  api("compileJsonSchema: undefined", () => compileJsonSchema(undefined as never), SchemaError, /must be an object or a boolean/),
  api("compileJsonSchema: an array", () => compileJsonSchema([1] as never), SchemaError, /must be an object or a boolean, got an array/),
  api("compileJsonSchema: unknown type", () => compileJsonSchema({ type: "strin" } as never), SchemaError, /type/),
  api("compileJsonSchema: multipleOf 0", () => compileJsonSchema({ type: "integer", multipleOf: 0 }), SchemaError, /multipleOf/),
  api("compileJsonSchema: $ref to nothing", () => compileJsonSchema({ $ref: "#/nope" }), SchemaError, /\$ref|nope/),
  api("compileJsonSchema: nested 3,000 deep", () => compileJsonSchema(deepSchema as never), SchemaError, /nested more than 1000 levels deep/),
  api("compileJsonSchema: a schema object that contains itself", () => compileJsonSchema(cyclicSchema as never), SchemaError, /contains itself/),
  api("compileJsonSchema: a $ref chain 3,000 long", () => compileJsonSchema({ $defs: refChain, $ref: "#/$defs/d0" } as never), SchemaError, /nests too deeply to compile/),
  api("compileJsonSchema: a pattern with 3,000 nested groups", () => compileJsonSchema({ type: "string", pattern: `${"(".repeat(3000)}a${")".repeat(3000)}` }), SchemaError, /pattern|deep/),
  api("compileJsonSchema: a broken pattern", () => compileJsonSchema({ type: "string", pattern: "(" }), SchemaError, /pattern/),
  api("compileJsonSchema: options.whitespace 'tabs'", () => compileJsonSchema({}, { whitespace: "tabs" as never }), InvalidArgumentError, /options\.whitespace/),
  api("compileJsonSchema: options.maxWhitespace -1", () => compileJsonSchema({}, { maxWhitespace: -1 }), InvalidArgumentError, /options\.maxWhitespace/),
  // grammar IR
  api("validateGrammar: null", () => tagmask.validateGrammar(null as never), GrammarError, /expected a grammar object/),
  api("serializeGrammar: rules not a list", () => tagmask.serializeGrammar({ rules: 5, root: 0 } as never), GrammarError, /expected an array of rules/),
  api("serializeGrammar: unknown node kind", () => tagmask.serializeGrammar({ rules: [{ name: "root", body: { kind: "star" } }], root: 0 } as never), GrammarError, /kind "star"/),
  api("serializeGrammar: expressions nested 3,000 deep", () => tagmask.serializeGrammar({ rules: [{ name: "root", body: deepExpr }], root: 0 }), GrammarError, /nest more than 1000 deep/),
  api("simplifyGrammar: a node that contains itself", () => {
    const loop = ir.seq(ir.lit("a"));
    loop.items.push(loop);
    return tagmask.simplifyGrammar({ rules: [{ name: "root", body: loop }], root: 0 });
  }, GrammarError, /contains itself/),
  api("isMatch: expressions nested 3,000 deep", () => tagmask.isMatch({ rules: [{ name: "root", body: deepExpr }], root: 0 }, "ab"), GrammarError, /nest more than 1000 deep/),
  api("deserializeGrammar: garbage bytes", () => tagmask.deserializeGrammar(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8)), GrammarError, /invalid grammar IR at header/),
  api("serializeGrammar: bad class range", () => tagmask.serializeGrammar({ rules: [{ name: "root", body: { kind: "class", ranges: [[5, 1]], negated: false } }], root: 0 } as never), GrammarError, /bad code-point range/),
  // vocabularies
  api("fromTokenizerJson: truncated JSON text", () => TokenizerInfo.fromTokenizerJson("{"), TokenizerError, /tokenizer\.json/),
  api("fromTokenizerJson: no model", () => TokenizerInfo.fromTokenizerJson({}), TokenizerError, /model/),
  api("fromTokenizerJson: a character device as the file", () => TokenizerInfo.fromTokenizerJson("/dev/zero"), TokenizerError, /not a regular file/),
  api("fromTokens: not a list", () => TokenizerInfo.fromTokens("abc" as never, { vocabType: "raw" }), InvalidArgumentError, /tokens: expected an array/),
  api("fromTokens: unknown vocabType", () => TokenizerInfo.fromTokens(["a"], { vocabType: "nope" as never }), InvalidArgumentError, /options\.vocabType/),
  api("fromTokens: vocabSize below the token count", () => TokenizerInfo.fromTokens(["a", "b"], { vocabType: "raw", vocabSize: 1 }), InvalidArgumentError, /options\.vocabSize/),
  api("fromTokens: vocabSize 2^31", () => TokenizerInfo.fromTokens(["a", "b"], { vocabType: "raw", vocabSize: 2 ** 31 }), InvalidArgumentError, /options\.vocabSize/),
  api("fromTokens: a stop token that is not there", () => TokenizerInfo.fromTokens(["a"], { vocabType: "raw", stopTokens: ["zz"] }), InvalidArgumentError, /options\.stopTokens\[0\]/),
  api("createTokenizerInfo: decreasing offsets", () => native().createTokenizerInfo({ vocabSize: 2, bytes: new Uint8Array(2), offsets: Uint32Array.of(0, 5, 2), kinds: new Uint8Array(2), stopTokenIds: new Uint32Array(0) }), TokenizerError, /non-decreasing/),
  api("createTokenizerInfo: a kind of 7", () => native().createTokenizerInfo({ vocabSize: 1, bytes: new Uint8Array(1), offsets: Uint32Array.of(0, 1), kinds: Uint8Array.of(7), stopTokenIds: new Uint32Array(0) }), TokenizerError, /kinds\[0\] is 7/),
  api("createTokenizerInfo: a stop id past the tokens", () => native().createTokenizerInfo({ vocabSize: 1, bytes: new Uint8Array(1), offsets: Uint32Array.of(0, 1), kinds: Uint8Array.of(2), stopTokenIds: Uint32Array.of(9) }), TokenizerError, /stopTokenIds\[0\] = 9/),
  api("createTokenizerInfo: vocabSize NaN", () => native().createTokenizerInfo({ vocabSize: Number.NaN, bytes: new Uint8Array(1), offsets: Uint32Array.of(0, 1), kinds: Uint8Array.of(0), stopTokenIds: new Uint32Array(0) }), InvalidArgumentError, /vocabSize must be a positive integer, got NaN/),
  api("createTokenizerInfo: bytes as a plain array", () => native().createTokenizerInfo({ vocabSize: 1, bytes: [97], offsets: Uint32Array.of(0, 1), kinds: Uint8Array.of(0), stopTokenIds: new Uint32Array(0) } as never), InvalidArgumentError, /data\.bytes must be a Uint8Array, got an array/),
  // compilation
  api("compileGrammar: a string for the grammar", () => compileGrammar(t.vocab, "x" as never), InvalidArgumentError, /grammar must be an IrGrammar/, enginesWork),
  api("compileGrammar: corrupt IR bytes", () => compileGrammar(t.vocab, Uint8Array.of(1, 2, 3)), GrammarError, /invalid grammar IR at header/, enginesWork),
  api("compileGrammar: options.threads -1", () => compileGrammar(t.vocab, t.grammar, { threads: -1 }), InvalidArgumentError, /options\.threads/, enginesWork),
  api("compileGrammar: null for the tokenizer", () => compileGrammar(null as never, t.grammar), InvalidArgumentError, /tokenizer must be a TokenizerInfo/),
  api("compileGrammar: a grammar that matches nothing", () => compileGrammar(t.vocab, { rules: [{ name: "root", body: ir.never() }], root: 0 }), GrammarError, /matches no string/, enginesWork),
  api("compileGrammar: left recursion in the IR", () => compileGrammar(t.vocab, { rules: [{ name: "root", body: ir.choice(ir.seq(ir.ref(0), ir.lit("a")), ir.lit("a")) }], root: 0 }), GrammarError, /left recursion/, enginesWork),
  api("native createMatcher: a Proxy of a compiled grammar", () => native().createMatcher(new Proxy(t.compiled.handle, {}) as never), InvalidArgumentError, /must be a native CompiledGrammar/, enginesWork),
  // matchers
  api("GrammarMatcher: no compiled grammar", () => new GrammarMatcher(null as never), InvalidArgumentError, /expected a CompiledGrammar/),
  api("GrammarMatcher: maxStackDepth 0", () => new GrammarMatcher(t.compiled, { maxStackDepth: 0 }), InvalidArgumentError, /maxStackDepth/),
  ...(() => {
    // Each case has its own matcher at step 2, made when the case runs (after the setup).
    const at2 = lazyEach(7, () => t.matcherAt(2));
    const state = (k: number) => () => {
      expect(at2(k).stepCount).toBe(2);
      expect(at2(k).nextTokenBitmask()).toEqual(t.matcherAt(2).nextTokenBitmask());
      enginesWork();
    };
    return [
      api("acceptToken: an id past the vocabulary", () => at2(0).acceptToken(t.vocab.vocabSize + 5), InvalidArgumentError, /out of range/, state(0)),
      api("acceptToken: -1", () => at2(1).acceptToken(-1), InvalidArgumentError, /token id must be an integer/, state(1)),
      api("acceptToken: a string", () => at2(2).acceptToken("1" as never), InvalidArgumentError, /token id must be an integer/, state(2)),
      api("rollback: past the start", () => at2(3).rollback(100), InvalidArgumentError, /cannot roll back 100 steps/, state(3)),
      api("fillNextTokenBitmask: an array too small", () => at2(4).fillNextTokenBitmask(new Int32Array(0)), InvalidArgumentError, /bitmask must have at least/, state(4)),
      api("fillNextTokenBitmask: a Float32Array", () => at2(5).fillNextTokenBitmask(new Float32Array(8) as never), InvalidArgumentError, /must be an Int32Array/, state(5)),
      api("acceptString: a number", () => at2(6).acceptString(42 as never), InvalidArgumentError, /acceptString: text must be a string or a Uint8Array/, state(6)),
    ];
  })(),
  // batches
  api("BatchMatcher: empty", () => new BatchMatcher([]), InvalidArgumentError, /needs at least one matcher/),
  api("BatchMatcher: the same matcher twice", () => {
    const m = t.matcherAt(0);
    return new BatchMatcher([m, m]);
  }, InvalidArgumentError, /appears twice/, enginesWork),
  ...(() => {
    const batch = lazyEach(7, () => new BatchMatcher([t.matcherAt(1), t.matcherAt(2)]));
    const works = (k: number) => () => {
      const b = batch(k);
      expect(b.busy).toBe(false);
      expect(b.fillNextTokenBitmasks()).toEqual([]);
      expect(Array.from(b.acceptTokens([t.tokens[1]!, t.tokens[2]!]).accepted)).toEqual([1, 1]);
    };
    return [
      api("fillNextTokenBitmasks: out too small", () => batch(0).fillNextTokenBitmasks(new Int32Array(1)), InvalidArgumentError, /out must have at least/, works(0)),
      api("fillNextTokenBitmasks: a row past the batch", () => batch(1).fillNextTokenBitmasks(undefined, [5]), InvalidArgumentError, /rows\[0\] = 5 is not a row of the batch/, works(1)),
      api("fillNextTokenBitmasks: a row twice", () => batch(2).fillNextTokenBitmasks(undefined, [0, 0]), InvalidArgumentError, /appears twice/, works(2)),
      api("acceptTokens: one token for two rows", () => batch(3).acceptTokens([1]), InvalidArgumentError, /array of 2 token ids/, works(3)),
      api("acceptTokens: a Uint32Array id of 2^31", () => batch(4).acceptTokens(Uint32Array.of(1, 2 ** 31) as never), InvalidArgumentError, /tokens\[1\] = 2147483648 is out of range/, works(4)),
      api("rollback: -1 steps", () => batch(5).rollback(-1), InvalidArgumentError, /steps must be a non-negative integer/, works(5)),
      api("rollback: a string", () => batch(6).rollback("x" as never), InvalidArgumentError, /steps must be a number/, works(6)),
    ];
  })(),
  ...(() => {
    // Resident masks: fillMaskRefs's arguments.
    const batch = lazyEach(6, () => new BatchMatcher([t.matcherAt(1), t.matcherAt(2)]));
    const compact = (k: number) => new Int32Array(2 * batch(k).maskWords);
    const works = (k: number) => () => {
      const b = batch(k);
      const refs = new Int32Array(2);
      const rows = compact(k);
      expect(b.fillMaskRefs(refs, rows).errors).toEqual([]);
      const dense = new Int32Array(2 * b.maskWords);
      expect(b.fillNextTokenBitmasks(dense)).toEqual([]);
      expect(Array.from(tagmask.expandMaskRefs(refs, t.compiled.maskStore(), rows))).toEqual(Array.from(dense));
    };
    return [
      api("fillMaskRefs: refs a Float32Array", () => batch(0).fillMaskRefs(new Float32Array(2) as never, compact(0)), InvalidArgumentError, /refs must be an Int32Array/, works(0)),
      api("fillMaskRefs: one ref for two rows", () => batch(1).fillMaskRefs(new Int32Array(1), compact(1)), InvalidArgumentError, /refs must have at least 2 entries/, works(1)),
      api("fillMaskRefs: compact too small", () => batch(2).fillMaskRefs(new Int32Array(2), new Int32Array(1)), InvalidArgumentError, /compact must have at least/, works(2)),
      api("fillMaskRefs: options.grammar a string", () => batch(3).fillMaskRefs(new Int32Array(2), compact(3), { grammar: "g" as never }), InvalidArgumentError, /options\.grammar must be a CompiledGrammar/, works(3)),
      api("fillMaskRefs: a row past the batch", () => batch(4).fillMaskRefs(new Int32Array(2), compact(4), { rows: [7] }), InvalidArgumentError, /rows\[0\] = 7 is not a row of the batch/, works(4)),
      api("fillMaskRefs: compact a plain array", () => batch(5).fillMaskRefs(new Int32Array(2), [0, 0] as never), InvalidArgumentError, /compact must be an Int32Array/, works(5)),
    ];
  })(),
  api("setThreadPoolSize: 2000", () => tagmask.setThreadPoolSize(2000), InvalidArgumentError, /integer from 0 \(default\) to 1024/),
  // masking
  api("applyTokenBitmask: no vocabSize", () => tagmask.applyTokenBitmask(logits(), bitmask(), {} as never), InvalidArgumentError, /options\.vocabSize is required/),
  api("applyTokenBitmask: Float64Array logits", () => tagmask.applyTokenBitmask(new Float64Array(64) as never, bitmask(), { vocabSize: 64 }), InvalidArgumentError, /logits must be a Float32Array/),
  api("applyTokenBitmask: a bitmask too short", () => tagmask.applyTokenBitmask(logits(), new Int32Array(1), { vocabSize: 64 }), InvalidArgumentError, /bitmask/),
  api("applyTokenBitmask: dtype float64", () => tagmask.applyTokenBitmask(logits(), bitmask(), { vocabSize: 64, dtype: "float64" as never }), InvalidArgumentError, /options\.dtype must be/),
  api("applyTokenBitmask: an index past the rows", () => tagmask.applyTokenBitmask(logits(), bitmask(), { vocabSize: 64, indices: [7] }), InvalidArgumentError, /indices/),
  api("applyTokenBitmask: columns below vocabSize", () => tagmask.applyTokenBitmask(logits(), bitmask(), { vocabSize: 64, columns: 10 }), InvalidArgumentError, /columns/),
  api("maskedSample: topP 0", () => tagmask.maskedSample(logits(), bitmask(), { vocabSize: 64, topP: 0 }), InvalidArgumentError, /topP must be in \(0, 1\]/),
  api("maskedSample: temperature NaN", () => tagmask.maskedSample(logits(), bitmask(), { vocabSize: 64, temperature: Number.NaN }), InvalidArgumentError, /temperature must be a finite number/),
  api("maskedSample: a seed past 64 bits", () => tagmask.maskedSample(logits(), bitmask(), { vocabSize: 64, seed: 2n ** 70n }), InvalidArgumentError, /seed must fit in 64 unsigned bits/),
  // masking through refs (resident masks)
  api("applyTokenBitmask: refs without maskStore", () => tagmask.applyTokenBitmask(logits(), bitmask(), { vocabSize: 64, refs: Int32Array.of(0, 0) }), InvalidArgumentError, /options\.refs and options\.maskStore go together/),
  api("maskedArgmax: maskStore an Int32Array", () => tagmask.maskedArgmax(logits(), bitmask(), { vocabSize: 64, refs: Int32Array.of(0, 0), maskStore: new Int32Array(2) as never }), InvalidArgumentError, /options\.maskStore must be a mask store/),
  api("maskedArgmax: refs a plain array", () => tagmask.maskedArgmax(logits(), bitmask(), { vocabSize: 64, refs: [0, 0] as never, maskStore: store() }), InvalidArgumentError, /options\.refs must be an Int32Array/),
  api("maskedSample: a ref past the store", () => tagmask.maskedSample(logits(), bitmask(), { vocabSize: 64, refs: Int32Array.of(0, 3), maskStore: store() }), InvalidArgumentError, /refs\[1\] = 3 is not a row of the mask store/),
  api("maskedArgmax: a ref names a compact row the bitmask lacks", () => tagmask.maskedArgmax(logits(), new Int32Array(2), { vocabSize: 64, refs: Int32Array.of(~0, ~1), maskStore: store() }), InvalidArgumentError, /refs\[1\] = -2 names compact row 1/),
  api("maskedArgmax: one ref for two rows", () => tagmask.maskedArgmax(logits(), bitmask(), { vocabSize: 64, refs: Int32Array.of(0), maskStore: store() }), InvalidArgumentError, /refs must have at least 2 entries/),
  api("applyTokenBitmask: a store of another vocabulary", () => tagmask.applyTokenBitmask(logits(), bitmask(), { vocabSize: 64, refs: Int32Array.of(0, 0), maskStore: { ...store(), wordsPerMask: 3, words: new Int32Array(3) } }), InvalidArgumentError, /the store belongs to another vocabulary/),
  api("CompiledGrammar.uploadMasks: device -1", () => t.compiled.uploadMasks(-1), InvalidArgumentError, /device must be a CUDA device index/),
  api("CompiledGrammar.uploadMasks: options null", () => t.compiled.uploadMasks(0, null as never), InvalidArgumentError, /options must be an object/),
  api("applyMaskIsa: an unknown instruction set", () => tagmask.applyMaskIsa("sse9" as never), InvalidArgumentError, /not available on this CPU/),
  api("allocateTokenBitmask: -1 rows", () => tagmask.allocateTokenBitmask(-1, 10), InvalidArgumentError, /rows must be a non-negative integer/),
  api("allocateTokenBitmask: more words than an array holds", () => tagmask.allocateTokenBitmask(1e6, 1e6), InvalidArgumentError, /split the batch/),
  api("bitmaskWords: NaN", () => tagmask.bitmaskWords(Number.NaN), InvalidArgumentError, /vocabSize must be an integer/),
  api("toHalfBits: dtype float32 (was read as float16)", () => tagmask.toHalfBits(new Float32Array(2), "float32" as never), InvalidArgumentError, /dtype must be "bfloat16" or "float16", got "float32"/),
  api("fromHalfBits: a plain array", () => tagmask.fromHalfBits([1, 2] as never, "float16"), InvalidArgumentError, /first argument must be a Uint16Array, got object/),
  api("toHalfBits: no values", () => tagmask.toHalfBits(undefined as never, "bfloat16"), InvalidArgumentError, /first argument must be a Float32Array, got undefined/),
  api("new GrammarCompiler(null)", () => new tagmask.GrammarCompiler(null as never), InvalidArgumentError, /options must be an object, got null/),
  api("deserializeGrammar: no buffer", () => tagmask.deserializeGrammar(undefined as never), InvalidArgumentError, /buffer must be a Uint8Array .*got undefined/),
];

describe("malformed inputs to the API: a typed error, and everything keeps working", () => {
  it.each(API.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    let thrown: unknown;
    try {
      c.call();
    } catch (err) {
      thrown = err;
    }
    expect(thrown, "it should throw").toBeInstanceOf(c.error);
    expect((thrown as TagmaskError).code).toBe(c.code);
    expect((thrown as Error).message).toMatch(c.message);
    c.after?.();
  });

  it("compileGrammarAsync: corrupt IR bytes reject with the typed error", async () => {
    await expect(tagmask.compileGrammarAsync(t.vocab, Uint8Array.of(1, 2, 3))).rejects.toThrow(GrammarError);
    enginesWork();
  });

  it("device objects without a usable CUDA device", () => {
    if (tagmask.cuda.available()) return; // covered by test/cuda where a device exists
    for (const make of [() => new tagmask.DeviceLogits({ rows: 1, vocabSize: 4 }), () => new tagmask.PinnedBitmask(1, 4), () => new tagmask.CudaStream()]) {
      expect(make).toThrow(DeviceError);
    }
  });
});

// ---- the command line ----------------------------------------------------------------------

interface CliCase {
  name: string;
  argv: () => string[];
  /** What the one line on stderr says (after "tagmask COMMAND: "). */
  message: RegExp;
}

const scratch = scratchDir("safety-catalogue");
let fifoPath: string;
beforeAll(() => {
  fifoPath = mkfifoSync(scratch.dir);
});
const file = (name: string, content: string | Uint8Array) => () => scratch.file(name, content);
const tokenizer = () => tokenizerJsonPath("llama3");
const deepJson = `${'{"type":"array","items":'.repeat(3000)}{"type":"integer"}${"}".repeat(3000)}`;
const badUtf8 = Uint8Array.from([...Buffer.from('{"type":"string","enum":["a'), 0xff, ...Buffer.from('"]}')]);

const CLI: CliCase[] = [
  { name: "an unknown command", argv: () => ["nope"], message: /unknown command .nope./ },
  { name: "compile without --schema", argv: () => ["compile"], message: /--schema/ },
  { name: "compile: a missing file", argv: () => ["compile", "--schema", `${scratch.dir}/missing.json`], message: /cannot read the file \(no such file\)/ },
  { name: "compile: a directory", argv: () => ["compile", "--schema", scratch.dir], message: /cannot read the file \(it is a directory\)/ },
  { name: "compile: /dev/zero", argv: () => ["compile", "--schema", "/dev/zero"], message: /it is a character device, not a regular file/ },
  { name: "compile: a FIFO without a writer", argv: () => ["compile", "--schema", fifoPath], message: /it is a FIFO or pipe, not a regular file/ },
  { name: "compile: bad JSON", argv: () => ["compile", "--schema", scratch.file("bad.json", '{"type": ')], message: /invalid JSON at line 1/ },
  { name: "compile: JSON nested 3,000 deep", argv: () => ["compile", "--schema", scratch.file("deep.json", deepJson)], message: /nested at most 1000 levels deep/ },
  { name: "compile: invalid UTF-8", argv: () => ["compile", "--schema", scratch.file("bad-utf8.json", badUtf8)], message: /not UTF-8 text: invalid byte sequence at byte 27/ },
  { name: "compile: a schema that is an array", argv: () => ["compile", "--schema", scratch.file("array.json", "[1]")], message: /must be an object or a boolean/ },
  { name: "compile: minimum > maximum", argv: () => ["compile", "--schema", scratch.file("minmax.json", '{"type":"number","minimum":3,"maximum":1}')], message: /accepts no JSON value at all.*minimum 3 > maximum 1/ },
  { name: "compile: an unsupported keyword", argv: () => ["compile", "--schema", scratch.file("old.json", '{"type":"object","disallow":["string"]}')], message: /refused: keyword disallow/ },
  { name: "compile: --max-whitespace -1", argv: () => ["compile", "--schema", scratch.file("s.json", "{}"), "--max-whitespace", "-1"], message: /--max-whitespace/ },
  { name: "compile: --formats bogus", argv: () => ["compile", "--schema", scratch.file("s.json", "{}"), "--formats", "bogus"], message: /--formats/ },
  { name: "compile: an unknown option", argv: () => ["compile", "--schemas", "x"], message: /unknown option|--schemas/ },
  { name: "outline: an unknown family", argv: () => ["outline", "--family", "nope", "--tools", scratch.file("tools.json", "[]")], message: /nope/ },
  { name: "outline: tools not a list", argv: () => ["outline", "--family", "kimi-k3", "--tools", scratch.file("t5.json", "5")], message: /tools/ },
  { name: "outline: duplicate tool names", argv: () => ["outline", "--family", "kimi-k3", "--tools", scratch.file("dup.json", JSON.stringify([tool("a"), tool("a")]))], message: /duplicate tool name/ },
  { name: "outline: --tools /dev/zero", argv: () => ["outline", "--family", "kimi-k3", "--tools", "/dev/zero"], message: /not a regular file/ },
  { name: "outline: --tool-choice bad JSON", argv: () => ["outline", "--family", "kimi-k3", "--tools", scratch.file("one.json", JSON.stringify([tool("a")])), "--tool-choice", "{bad"], message: /--tool-choice/ },
  { name: "match: no grammar source", argv: () => ["match", "--input", scratch.file("in.txt", "x")], message: /--format, --schema, --regex or --ebnf/ },
  { name: "match: a broken regex", argv: () => ["match", "--regex", "(", "--input", scratch.file("in.txt", "x")], message: /unterminated group/ },
  { name: "match: a broken EBNF file", argv: () => ["match", "--ebnf", scratch.file("g.ebnf", 'root ::= "a'), "--input", scratch.file("in.txt", "x")], message: /EBNF error at line 1/ },
  { name: "match: a malformed format file", argv: () => ["match", "--format", scratch.file("f.json", '{"type":"nope"}'), "--input", scratch.file("in.txt", "x")], message: /type/ },
  { name: "match: --input /dev/zero", argv: () => ["match", "--regex", "a", "--input", "/dev/zero"], message: /not a regular file/ },
  { name: "match: an EBNF file that is not UTF-8", argv: () => ["match", "--ebnf", scratch.file("b.ebnf", Uint8Array.from([...Buffer.from('root ::= "'), 0xc3, 0x28, 0x22])), "--input", scratch.file("in.txt", "x")], message: /not UTF-8 text/ },
  { name: "masks: a missing tokenizer", argv: () => ["masks", "--schema", scratch.file("s.json", "{}"), "--tokenizer", `${scratch.dir}/none.json`, "--input", scratch.file("in.txt", "x")], message: /--tokenizer .*no such file/ },
  { name: "masks: --tokenizer /dev/zero", argv: () => ["masks", "--schema", scratch.file("s.json", "{}"), "--tokenizer", "/dev/zero", "--input", scratch.file("in.txt", "x")], message: /not a regular file/ },
  { name: "masks: --vocab-size 0", argv: () => ["masks", "--schema", scratch.file("s.json", "{}"), "--tokenizer", tokenizer(), "--vocab-size", "0", "--input", scratch.file("in.txt", "x")], message: /--vocab-size/ },
  { name: "masks: an input file that is not UTF-8", argv: () => ["masks", "--schema", scratch.file("s.json", "{}"), "--tokenizer", tokenizer(), "--input", scratch.file("bad.txt", Uint8Array.of(0x61, 0xc0, 0x80))], message: /--input .*not UTF-8 text: invalid byte sequence at byte 1/ },
  { name: "masks: minLength > maxLength", argv: () => ["masks", "--schema", scratch.file("len.json", '{"type":"string","minLength":4,"maxLength":2}'), "--tokenizer", tokenizer(), "--input", scratch.file("in.txt", "x")], message: /accepts no JSON value at all.*minLength 4 > maxLength 2/ },
  { name: "parse without --family", argv: () => ["parse", "--input", scratch.file("in.txt", "x")], message: /--family FAMILY is required/ },
  { name: "parse: an unknown family", argv: () => ["parse", "--family", "nope", "--input", scratch.file("in.txt", "x")], message: /unknown --family 'nope'/ },
  { name: "parse: --input /dev/zero", argv: () => ["parse", "--family", "hermes", "--input", "/dev/zero"], message: /not a regular file/ },
  { name: "parse: --input a FIFO without a writer", argv: () => ["parse", "--family", "hermes", "--input", fifoPath], message: /it is a FIFO or pipe, not a regular file/ },
  { name: "parse: an output file that is not UTF-8", argv: () => ["parse", "--family", "hermes", "--input", scratch.file("out.txt", Uint8Array.of(0x63, 0x61, 0xff))], message: /--input .*not UTF-8 text: invalid byte sequence at byte 2/ },
  { name: "parse: --tools bad JSON", argv: () => ["parse", "--family", "hermes", "--tools", scratch.file("bad.json", '{"type": '), "--input", scratch.file("in.txt", "x")], message: /--tools .*invalid JSON at line 1/ },
  { name: "parse: --reasoning bogus", argv: () => ["parse", "--family", "hermes", "--reasoning", "bogus", "--input", scratch.file("in.txt", "x")], message: /--reasoning must be one of/ },
  { name: "families: an unknown option", argv: () => ["families", "--bogus"], message: /unknown option --bogus/ },
];

describe("malformed inputs on the command line: one line, exit code 2", () => {
  it.each(CLI.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const argv = c.argv();
    const r = await runCli(argv);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.split("\n");
    expect(lines, r.stderr).toHaveLength(2);
    expect(lines[1]).toBe("");
    expect(lines[0]).toMatch(new RegExp(`^tagmask${argv[0] === "nope" ? "" : ` ${argv[0]}`}: `));
    expect(lines[0]).toMatch(c.message);
  });

  it("the catalogue holds at least 80 malformed inputs", () => {
    expect(API.length + CLI.length).toBeGreaterThanOrEqual(80);
  });
});
