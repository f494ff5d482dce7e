/**
 * {@link ConstrainedLlama}: tagmask on a node-llama-cpp model. It reads the model's vocabulary,
 * picks a masking route by checking the candidates at start-up, compiles grammars (structural
 * tags, formats, grammar IR, tool-calling requests) against the vocabulary, and generates on
 * context sequences — one at a time or many at once on one context — returning the text and, for
 * tool calling, the parsed tool calls.
 */
import type { Llama, LlamaContextSequence, LlamaGrammar, LlamaModel, Token } from "node-llama-cpp";
import { GrammarCompiler } from "../../engine/grammar-compiler.js";
import { lowerOffThread } from "../../engine/lowering-pool.js";
import type { CompiledGrammar } from "../../engine/compiled-grammar.js";
import { BatchMatcher } from "../../engine/batch.js";
import { GrammarMatcher } from "../../engine/matcher.js";
import { InvalidArgumentError, TagmaskError, type OutputParseError } from "../../errors.js";
import { isStructuralTagObject, parseFormat, parseStructuralTag } from "../../format/parse.js";
import type { Format, StructuralTag } from "../../format/types.js";
import { irToGbnf } from "../../compile/gbnf.js";
import { deserializeGrammar, type IrExpr, type IrGrammar } from "../../compile/ir.js";
import { lowerFormat } from "../../compile/lower.js";
import { buildToolCallingFormat, parseToolOutput } from "../../tools/families.js";
import type { ParsedToolOutput, ToolCallingRequest, ToolOutputParserOptions } from "../../tools/types.js";
import type { VocabularyOptions } from "../../tokenizer/build-vocabulary.js";
import { TokenizerInfo } from "../../tokenizer/tokenizer-info.js";
import { BatchMaskScheduler, type BatchMaskStats } from "./batch-masks.js";
import { limitFreeText, limitWhitespace } from "./format-limits.js";
import { checkGenerateOptions, runGeneration, type GenerateOptions, type GenerationResult, type MaskSource } from "./generate.js";
import { checkMaskRoute, pickMaskRoute, type RouteCheck } from "./route-check.js";
import { MASK_ROUTES, type MaskRouteName } from "./routes.js";

/** Options of {@link ConstrainedLlama.create}. */
export interface ConstrainedLlamaOptions {
  /** How the model's vocabulary is read (text-bearing special tokens, stop tokens, …). */
  vocabulary?: VocabularyOptions;
  /** The masking route; "auto" (default) takes the fastest one that passes its start-up check. */
  route?: MaskRouteName | "auto";
  /** A compiler to share (its cache) between models or sessions; default a new one. */
  compiler?: GrammarCompiler;
}

/** Options of grammar compilation through {@link ConstrainedLlama}. */
export interface GrammarOptions {
  /**
   * Limit every free-text part (`any_text`) to this many tokens (see format-limits.ts). Not
   * enforced on the gbnf route, which cannot count tokens.
   */
  maxFreeTextTokens?: number;
  /**
   * Allow at most this many whitespace characters between the tokens of every JSON value
   * (`max_whitespace_cnt` on each `json_schema`; see format-limits.ts). Unbounded by default, as
   * in xgrammar; a model that falls into a whitespace loop then runs until `maxTokens`.
   */
  maxWhitespace?: number;
  /** Gives up on the build: lowering and compilation stop and the promise rejects with an AbortError. */
  signal?: AbortSignal;
}

/** A grammar compiled for one model, with what each route needs. */
export class ConstrainedGrammar {
  private gbnfText: string | undefined;
  private llamaGrammar: Promise<LlamaGrammar> | undefined;
  private irValue: IrGrammar | undefined;
  private readonly makeIr: (() => IrGrammar) | undefined;

  constructor(
    /** The grammar IR, or how to make it when it is first asked for. */
    ir: IrGrammar | (() => IrGrammar),
    /** The grammar compiled against the model's vocabulary. */
    readonly compiled: CompiledGrammar,
    /** The structural tag or format it came from, if any. */
    readonly source?: StructuralTag | Format,
  ) {
    if (typeof ir === "function") this.makeIr = ir;
    else this.irValue = ir;
  }

  /** The grammar IR (a grammar compiled off the event loop lowers its source again on first use, from the lowering cache). */
  get ir(): IrGrammar {
    this.irValue ??= this.makeIr!();
    return this.irValue;
  }

  /** A matcher in the initial state. */
  createMatcher(): GrammarMatcher {
    return new GrammarMatcher(this.compiled);
  }

  /** The grammar as llama.cpp GBNF (token limits of free text dropped: GBNF cannot count tokens). */
  gbnf(): string {
    this.gbnfText ??= irToGbnf(this.ir, { ignoreTokenLimits: true });
    return this.gbnfText;
  }

  /** node-llama-cpp's grammar object for the gbnf route (created once per grammar). */
  llamaGrammarFor(llama: Llama): Promise<LlamaGrammar> {
    this.llamaGrammar ??= llama.createGrammar({ grammar: this.gbnf() });
    return this.llamaGrammar;
  }
}

/** A tool-calling generation: the generation and its parsed output. */
export interface ToolCallsResult extends GenerationResult {
  /** The parsed output, when the text parses (always, unless the generation was cut short). */
  parsed?: ParsedToolOutput;
  /** Why the text does not parse (a generation stopped by maxTokens or an abort). */
  parseError?: OutputParseError;
  /** The grammar used (null: the request constrains nothing, e.g. tool_choice "none"). */
  grammar: ConstrainedGrammar | null;
}

/** One sequence of a batched generation. */
export interface BatchJob {
  sequence: LlamaContextSequence;
  input: string | readonly Token[];
  grammar: ConstrainedGrammar | null;
  options?: GenerateOptions;
}

/** The results of a batched generation, in job order, and the batch path's timings. */
export interface BatchResult {
  results: GenerationResult[];
  masks: BatchMaskStats;
}

/** tagmask on one node-llama-cpp model. Create with {@link ConstrainedLlama.create}. */
export class ConstrainedLlama {
  private constructor(
    readonly model: LlamaModel,
    /** The model's vocabulary. */
    readonly tokenizer: TokenizerInfo,
    /** The route generations use. */
    readonly route: MaskRouteName,
    /** The start-up checks that chose it. */
    readonly routeChecks: readonly RouteCheck[],
    readonly compiler: GrammarCompiler,
  ) {}

  /**
   * Reads the model's vocabulary and picks the masking route: with "auto", `sampler-arrays` if
   * it passes its check, else `bias-object`, else `gbnf`. A route named explicitly is checked too
   * (except `gbnf`); a failing one is a TagmaskError saying why.
   */
  static async create(model: LlamaModel, options: ConstrainedLlamaOptions = {}): Promise<ConstrainedLlama> {
    if (options === null || typeof options !== "object") throw new InvalidArgumentError("options: expected an object");
    const requested = options.route ?? "auto";
    if (requested !== "auto" && !MASK_ROUTES.includes(requested)) {
      throw new InvalidArgumentError(`options.route: expected "auto" or one of ${MASK_ROUTES.join(", ")}, found ${JSON.stringify(requested)}`);
    }
    const tokenizer = TokenizerInfo.fromLlamaModel(model, options.vocabulary);
    const compiler = options.compiler ?? new GrammarCompiler();
    if (requested === "gbnf") return new ConstrainedLlama(model, tokenizer, "gbnf", [], compiler);
    if (requested === "auto") {
      const { route, checks } = await pickMaskRoute(model, tokenizer);
      return new ConstrainedLlama(model, tokenizer, route ?? "gbnf", checks, compiler);
    }
    const check = await checkMaskRoute(model, tokenizer, requested);
    if (!check.ok) {
      throw new TagmaskError(`the ${requested} masking route does not work with this model: ${check.reason}`, "TAGMASK_ROUTE_UNAVAILABLE");
    }
    return new ConstrainedLlama(model, tokenizer, requested, [check], compiler);
  }

  /** Compiles a structural tag, a format, or a grammar IR against the model's vocabulary. */
  async grammar(source: StructuralTag | Format | IrGrammar, options: GrammarOptions = {}): Promise<ConstrainedGrammar> {
    let origin: StructuralTag | Format | undefined;
    let ir: IrGrammar;
    if (isIrGrammar(source)) {
      for (const key of ["maxFreeTextTokens", "maxWhitespace"] as const) {
        if (options[key] !== undefined) throw new InvalidArgumentError(`options.${key} applies to structural tags and formats, not to grammar IR`);
      }
      ir = source;
    } else {
      origin = source;
      const { maxFreeTextTokens, maxWhitespace } = options;
      if (maxFreeTextTokens !== undefined || maxWhitespace !== undefined) {
        let tag: StructuralTag = isStructuralTagObject(source) ? parseStructuralTag(source) : { type: "structural_tag", format: parseFormat(source) };
        if (maxFreeTextTokens !== undefined) tag = limitFreeText(tag, maxFreeTextTokens);
        if (maxWhitespace !== undefined) tag = limitWhitespace(tag, maxWhitespace);
        origin = tag;
      }
      if (this.route !== "gbnf") {
        // Lowered on the lowering worker, compiled on the native pool: the event loop stays free.
        const lowered = origin;
        const compiled = await this.compiler.compileAsync(this.tokenizer, lowered, { signal: options.signal });
        return new ConstrainedGrammar(() => lowerFormat(lowered), compiled, lowered);
      }
      // Lowered on the lowering worker too: a big request must not hold the event loop.
      ir = deserializeGrammar(await lowerOffThread(origin, { signal: options.signal }));
      // Raw argument values of the markup styles are text too, but inside json_schema formats,
      // out of limitFreeText's reach: bound them in the lowered grammar.
      if (maxFreeTextTokens !== undefined) ir = withTextTokenLimit(ir, maxFreeTextTokens);
    }
    // The gbnf route cannot enforce free-text token limits: its matcher follows the grammar
    // node-llama-cpp's sampler enforces, without them.
    if (this.route === "gbnf") ir = withoutTokenLimits(ir);
    const compiled = await this.compiler.compileAsync(this.tokenizer, ir, { signal: options.signal });
    return new ConstrainedGrammar(ir, compiled, origin);
  }

  /** The grammar of a tool-calling request (`family`, tools, tool_choice, …); null when it constrains nothing. */
  async toolCallingGrammar(request: ToolCallingRequest, options: GrammarOptions = {}): Promise<ConstrainedGrammar | null> {
    const tag = buildToolCallingFormat(request);
    return tag === null ? null : this.grammar(tag, options);
  }

  private tokens(input: string | readonly Token[]): Token[] {
    if (typeof input === "string") return this.model.tokenize(input, true) as Token[];
    if (!Array.isArray(input)) throw new InvalidArgumentError("input: expected a string or an array of token ids");
    for (const t of input) {
      if (!Number.isInteger(t) || (t as number) < 0 || (t as number) >= this.tokenizer.vocabSize) {
        throw new InvalidArgumentError(`input: token id ${String(t)} is out of range [0, ${this.tokenizer.vocabSize})`);
      }
    }
    return input.slice();
  }

  private async jobFor(sequence: LlamaContextSequence, input: string | readonly Token[], grammar: ConstrainedGrammar | null, options: GenerateOptions, masks: (matcher: GrammarMatcher) => MaskSource) {
    if (sequence === null || typeof sequence !== "object" || sequence.model !== this.model) {
      throw new InvalidArgumentError("sequence: expected a LlamaContextSequence of this ConstrainedLlama's model");
    }
    if (grammar !== null && !(grammar instanceof ConstrainedGrammar)) throw new InvalidArgumentError("grammar: expected a ConstrainedGrammar (from grammar() or toolCallingGrammar()) or null");
    if (grammar && grammar.compiled.tokenizer !== this.tokenizer) throw new InvalidArgumentError("grammar: compiled for another model's vocabulary");
    checkGenerateOptions(options);
    const tokens = this.tokens(input);
    if (!grammar) return { sequence, input: tokens, matcher: null, masks: null, tokenizer: this.tokenizer, route: "none" as const, options };
    const matcher = grammar.createMatcher();
    if (this.route === "gbnf") {
      const { LlamaGrammarEvaluationState } = await import("node-llama-cpp");
      const llamaGrammar = await grammar.llamaGrammarFor(this.model.llama);
      const state = new LlamaGrammarEvaluationState({ model: this.model, grammar: llamaGrammar });
      return { sequence, input: tokens, matcher, masks: null, tokenizer: this.tokenizer, route: this.route, grammarEvaluationState: state, options };
    }
    return { sequence, input: tokens, matcher, masks: masks(matcher), tokenizer: this.tokenizer, route: this.route, options };
  }

  /**
   * Generates on `sequence` under `grammar` (null: unconstrained). `input` (text, with special
   * tokens parsed, or token ids) is evaluated first; the sequence keeps its earlier history.
   */
  async generate(sequence: LlamaContextSequence, input: string | readonly Token[], grammar: ConstrainedGrammar | null, options: GenerateOptions = {}): Promise<GenerationResult> {
    const words = Math.ceil(this.tokenizer.vocabSize / 32);
    const mask = new Int32Array(words);
    const job = await this.jobFor(sequence, input, grammar, options, (matcher) => ({
      next: () => {
        matcher.fillNextTokenBitmask(mask);
        return mask;
      },
    }));
    return runGeneration(job);
  }

  /**
   * Tool calling in one call: builds the request's grammar, generates, and parses the output
   * with the family's parser.
   */
  async generateToolCalls(
    sequence: LlamaContextSequence,
    input: string | readonly Token[],
    request: ToolCallingRequest,
    options: GenerateOptions & GrammarOptions = {},
  ): Promise<ToolCallsResult> {
    const { maxFreeTextTokens, maxWhitespace, ...generateOptions } = options;
    const grammar = await this.toolCallingGrammar(request, {
      ...(maxFreeTextTokens === undefined ? {} : { maxFreeTextTokens }),
      ...(maxWhitespace === undefined ? {} : { maxWhitespace }),
      ...(generateOptions.signal === undefined ? {} : { signal: generateOptions.signal }),
    });
    const result = await this.generate(sequence, input, grammar, generateOptions);
    return { ...result, grammar, ...parseOutput(request, result.text) };
  }

  /**
   * Generates on several sequences of one context at once, each with its own grammar and
   * matcher; node-llama-cpp decodes them in shared batches and tagmask fills their masks
   * together through the batch path (a BatchMatcher: the calling thread and the native pool).
   */
  async generateBatch(jobs: readonly BatchJob[]): Promise<BatchResult> {
    if (!Array.isArray(jobs) || jobs.length === 0) throw new InvalidArgumentError("jobs: expected a non-empty array of {sequence, input, grammar, options}");
    const sequences = new Set(jobs.map((j) => j.sequence));
    if (sequences.size !== jobs.length) throw new InvalidArgumentError("jobs: each job needs its own sequence");
    const masked: GrammarMatcher[] = [];
    const batchRow = new Map<number, number>();
    let batch: BatchMatcher | undefined;
    const words = Math.ceil(this.tokenizer.vocabSize / 32);
    let bitmask = new Int32Array(0);
    // Synchronous fills (the calling thread and the native pool together): a few rows take
    // microseconds, less than handing an asynchronous fill back through the event loop.
    const scheduler = new BatchMaskScheduler(jobs.length, (indices) => {
      const rows = indices.map((i) => batchRow.get(i)!);
      const errors = batch!.fillNextTokenBitmasks(bitmask, rows);
      const failed = new Map(errors.map((e) => [e.row, e.error as Error]));
      return rows.map((r) => failed.get(r) ?? bitmask.subarray(r * words, (r + 1) * words));
    });
    const prepared = [];
    for (let i = 0; i < jobs.length; i++) {
      const j = jobs[i]!;
      const job = await this.jobFor(j.sequence, j.input, j.grammar, j.options ?? {}, (matcher) => {
        batchRow.set(i, masked.length);
        masked.push(matcher);
        return scheduler.source(i);
      });
      // Unconstrained and gbnf jobs never ask for masks: nobody waits for them.
      if (job.masks === null) scheduler.finish(i);
      prepared.push(job);
    }
    if (masked.length > 0) {
      batch = new BatchMatcher(masked);
      bitmask = new Int32Array(masked.length * words);
    }
    const settled = await Promise.allSettled(prepared.map((job, i) => runGeneration(job).finally(() => scheduler.finish(i))));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    return { results: settled.map((s) => (s as PromiseFulfilledResult<GenerationResult>).value), masks: scheduler.stats };
  }
}

/**
 * The grammar without free-text token limits: what the gbnf route can enforce (GBNF cannot count
 * tokens), so that the matcher following a gbnf generation agrees with llama.cpp's sampler.
 */
function withoutTokenLimits(grammar: IrGrammar): IrGrammar {
  const strip = (e: IrExpr): IrExpr => {
    switch (e.kind) {
      case "text":
        return e.maxTokens === null ? e : { ...e, maxTokens: null };
      case "seq":
      case "choice":
        return { ...e, items: e.items.map(strip) };
      case "repeat":
      case "counted":
      case "unit":
      case "marks":
      case "mark":
      case "residue":
        return { ...e, item: strip(e.item) };
      default:
        return e;
    }
  };
  return { ...grammar, rules: grammar.rules.map((r) => ({ ...r, body: strip(r.body) })) };
}

/** The grammar with every unbounded `text` node limited to `maxTokens` tokens. */
function withTextTokenLimit(grammar: IrGrammar, maxTokens: number): IrGrammar {
  const limit = (e: IrExpr): IrExpr => {
    switch (e.kind) {
      case "text":
        return e.maxTokens === null ? { ...e, maxTokens } : e;
      case "seq":
      case "choice":
        return { ...e, items: e.items.map(limit) };
      case "repeat":
        return { ...e, item: limit(e.item) };
      default:
        return e;
    }
  };
  return { ...grammar, rules: grammar.rules.map((r) => ({ ...r, body: limit(r.body) })) };
}

function isIrGrammar(value: unknown): value is IrGrammar {
  return typeof value === "object" && value !== null && Array.isArray((value as IrGrammar).rules);
}

/** The parser options a request implies: where the text starts, the tools, the answer constraint, the variant. */
export function parserOptionsOf(request: ToolCallingRequest): ToolOutputParserOptions {
  return {
    ...(request.reasoning === undefined ? {} : { reasoning: request.reasoning }),
    ...(request.tools === undefined ? {} : { tools: request.tools }),
    ...(request.response_format === undefined ? {} : { response_format: request.response_format }),
    ...(request.variant === undefined ? {} : { variant: request.variant }),
  };
}

function parseOutput(request: ToolCallingRequest, text: string): { parsed?: ParsedToolOutput; parseError?: OutputParseError } {
  try {
    return { parsed: parseToolOutput(request.family, text, parserOptionsOf(request)) };
  } catch (err) {
    if ((err as { code?: string }).code === "TAGMASK_OUTPUT_PARSE") return { parseError: err as OutputParseError };
    throw err;
  }
}
