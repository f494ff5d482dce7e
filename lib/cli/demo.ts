/**
 * `tagmask demo`: the main job end to end on a model that needs no download. It generates the
 * tiny random model if absent (or takes the user's GGUF), builds the Kimi K3 grammar for the
 * seed tools (or the user's tools file), generates with node-llama-cpp under the grammar, and
 * prints the outline, the raw output, the parsed tool calls and the per-step mask time.
 */
import { TagmaskError } from "../errors.js";
import { printOutline } from "../format/outline.js";
import type { ConstrainedLlama } from "../integrations/node-llama-cpp/constrained-llama.js";
import { MASK_ROUTES, type MaskRouteName } from "../integrations/node-llama-cpp/routes.js";
import { buildToolCallingFormat, toolCallingFamilies } from "../tools/families.js";
import type { FunctionTool, ToolCallingRequest, ToolChoice } from "../tools/types.js";
import { choiceOption, integerOption, optional, parseArgs, UsageError } from "./args.js";
import type { CliCommand, CliIO } from "./command.js";
import { readOptionJson } from "./files.js";
import { modelProgress } from "./model-progress.js";
import { reasoningArg } from "./outline.js";

/** The seed tools of the spec: what the demo calls when no tools file is given. */
export const DEMO_TOOLS: FunctionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
    },
  },
  {
    type: "function",
    function: {
      name: "add",
      parameters: {
        type: "object",
        properties: { y: { type: "number" }, x: { type: "number" }, items: { type: "array", items: { type: "string" } } },
        required: ["y", "x", "items"],
      },
    },
  },
];

const DEFAULT_PROMPT = "<|open|>user<|sep|>What is the weather in Paris, and what is 2 + 3?<|close|>user<|sep|>";

const usage = [
  "tagmask demo [--family NAME] [--model FILE.gguf | --tokenizer tokenizer.json] [--tools FILE] [--tool-choice required|auto|none|NAME] [--no-parallel]",
  "             [--prompt TEXT] [--max-tokens N] [--max-text-tokens N] [--max-whitespace N] [--temperature T] [--seed N]",
  "             [--route auto|sampler-arrays|bias-object|gbnf] [--threads N] [--gpu] [--json]",
  "",
  "  --family NAME       the model family whose format the grammar and parser follow (default kimi-k3); the tiny",
  "                      model then gets the family's vocabulary and markers",
  "  --variant V         the family's format variant (mistral: v3, v11, v13)",
  "  --reasoning M       final_output_only (default), think or auto",
  "  --model FILE        a GGUF model (default: the tiny random model, generated into the cache if absent)",
  "  --tokenizer FILE    the tiny model's vocabulary from a byte-level BPE tokenizer.json (default: Llama 3's,",
  "                      shipped with tagmask)",
  "  --tools FILE        OpenAI-style tools, a JSON array (default: the seed tools get_weather and add)",
  "  --tool-choice C     required (default), auto, none, or a tool name",
  "  --no-parallel       parallel_tool_calls false: at most one call",
  "  --prompt TEXT       the input, special tokens written as text (default: a short user message)",
  "  --max-tokens N      most tokens to generate (default 400)",
  "  --max-text-tokens N bound every free-text part to N tokens (default 8 with the tiny model, none otherwise)",
  "  --max-whitespace N  at most N whitespace characters between JSON tokens (default 4 with the tiny model, none otherwise)",
  "  --temperature T     sampling temperature (default 1)",
  "  --seed N            sampling seed (default 1)",
  "  --route R           masking route (default auto: the fastest that passes its start-up check)",
  "  --threads N         CPU threads for node-llama-cpp (default 1 with the tiny model)",
  "  --gpu               let node-llama-cpp use a GPU (default: CPU only)",
  "  --json              print one JSON object instead of text",
  "",
  "The tiny model is cached in ~/.cache/tagmask (TAGMASK_CACHE overrides); generating it takes a few seconds",
  "once, with progress on stderr. Needs node-llama-cpp (npm install node-llama-cpp); exit code 3 without it.",
].join("\n");

function readTools(file: string): FunctionTool[] {
  return readOptionJson(file, "--tools") as FunctionTool[];
}

function toolChoice(value: string): ToolChoice {
  return value === "auto" || value === "required" || value === "none" ? value : { type: "function", function: { name: value } };
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round = (x: number): string => (Number.isNaN(x) ? "-" : x >= 100 ? x.toFixed(0) : x.toFixed(1));

async function loadNodeLlamaCpp(): Promise<typeof import("node-llama-cpp")> {
  try {
    return await import("node-llama-cpp");
  } catch {
    throw new TagmaskError("the demo runs models with node-llama-cpp: npm install node-llama-cpp", "TAGMASK_MISSING_DEPENDENCY");
  }
}

export const command: CliCommand = {
  summary: "generate a family's tool calls under the grammar with node-llama-cpp (tiny random model by default)",
  usage,
  async run(argv, io: CliIO) {
    const args = parseArgs(argv, {
      family: { type: "string" },
      variant: { type: "string" },
      reasoning: { type: "string" },
      model: { type: "string" },
      tokenizer: { type: "string" },
      tools: { type: "string" },
      "tool-choice": { type: "string" },
      "no-parallel": { type: "boolean" },
      prompt: { type: "string" },
      "max-tokens": { type: "string" },
      "max-text-tokens": { type: "string" },
      "max-whitespace": { type: "string" },
      temperature: { type: "string" },
      seed: { type: "string" },
      route: { type: "string" },
      threads: { type: "string" },
      gpu: { type: "boolean" },
      json: { type: "boolean" },
    });
    const modelFile = optional(args, "model");
    const tiny = modelFile === undefined;
    const tokenizerFile = optional(args, "tokenizer");
    if (!tiny && tokenizerFile !== undefined) throw new UsageError("--tokenizer sets the tiny model's vocabulary; a --model has its own");
    const maxTokens = integerOption(args, "max-tokens", 400, 1);
    const maxTextTokens = integerOption(args, "max-text-tokens", tiny ? 8 : undefined, 1);
    // The random model writes whitespace as readily as anything else: unbounded, it would fill
    // maxTokens with it inside the first JSON value.
    const maxWhitespace = integerOption(args, "max-whitespace", tiny ? 4 : undefined, 0);
    const seed = integerOption(args, "seed", 1);
    const threads = integerOption(args, "threads", tiny ? 1 : undefined, 1);
    const temperatureText = optional(args, "temperature");
    const temperature = temperatureText === undefined ? 1 : Number(temperatureText);
    if (!(temperature >= 0 && Number.isFinite(temperature))) throw new UsageError(`--temperature must be a number ≥ 0, got ${temperatureText}`);
    const route = choiceOption<MaskRouteName | "auto">(args, "route", ["auto", ...MASK_ROUTES], "auto");
    const toolsFile = optional(args, "tools");
    const family = optional(args, "family") ?? "kimi-k3";
    if (!toolCallingFamilies().includes(family)) throw new UsageError(`unknown --family '${family}' (known: ${toolCallingFamilies().join(", ")})`);
    const variant = optional(args, "variant");
    const reasoningText = optional(args, "reasoning");
    const request: ToolCallingRequest = {
      family,
      ...(variant === undefined ? {} : { variant }),
      ...(reasoningText === undefined ? {} : { reasoning: reasoningArg(reasoningText) }),
      tools: toolsFile === undefined ? DEMO_TOOLS : readTools(toolsFile),
      tool_choice: toolChoice(optional(args, "tool-choice") ?? "required"),
      parallel_tool_calls: !args.flags.has("no-parallel"),
    };
    const json = args.flags.has("json");
    const say = (line: string): void => {
      if (!json) io.stdout.write(`${line}\n`);
    };

    // The grammar first: a bad tools file fails before any model is loaded.
    const tag = buildToolCallingFormat(request);
    say("== outline ==");
    say(tag === null ? "(nothing to constrain: unconstrained generation)" : printOutline(tag).trimEnd());

    const started = performance.now();
    let modelPath = modelFile;
    let modelNote = "";
    if (tiny) {
      const { ensureTinyModel, tinyModelCachePath } = await import("../integrations/node-llama-cpp/tiny-model.js");
      const { tinyModelOptionsForFamily } = await import("../integrations/node-llama-cpp/family-model.js");
      // node-llama-cpp first: without it the model would be generated for nothing.
      await loadNodeLlamaCpp();
      const own = tokenizerFile === undefined ? {} : { tokenizer: tokenizerFile };
      const options = family === "kimi-k3" ? own : tinyModelOptionsForFamily(family, own);
      const info = ensureTinyModel({ ...options, onProgress: modelProgress(io, "demo", tinyModelCachePath(options)) });
      modelPath = info.path;
      modelNote = ` (tiny random model, ${(info.bytes / 1e6).toFixed(1)} MB${info.created ? `, generated in ${((performance.now() - started) / 1000).toFixed(1)} s` : ""})`;
    }
    const { getLlama, LlamaLogLevel } = await loadNodeLlamaCpp();
    if (!tiny) {
      // A malformed GGUF aborts the process that loads it: load the user's file in a child first.
      const { probeModelFile } = await import("../integrations/node-llama-cpp/tiny-model.js");
      probeModelFile(modelPath!);
    }
    const { ConstrainedLlama } = await import("../integrations/node-llama-cpp/constrained-llama.js");
    const llama = await getLlama({ gpu: args.flags.has("gpu") ? "auto" : false, build: "never", logLevel: LlamaLogLevel.error, ...(threads === undefined ? {} : { maxThreads: threads }) });
    let session: ConstrainedLlama | undefined;
    try {
      const model = await llama.loadModel({ modelPath: modelPath! });
      let vocabulary;
      if (family !== "kimi-k3") {
        const { TokenizerInfo } = await import("../tokenizer/tokenizer-info.js");
        const { familyVocabularyOptions } = await import("../integrations/node-llama-cpp/family-model.js");
        const plain = TokenizerInfo.fromLlamaModel(model);
        vocabulary = familyVocabularyOptions(family, (t) => plain.tokenId(t) !== undefined);
      }
      session = await ConstrainedLlama.create(model, { route, ...(vocabulary === undefined ? {} : { vocabulary }) });
      const tokenizer = session.tokenizer;
      say("");
      say(`model: ${modelPath}${modelNote}`);
      say(`vocabulary: ${tokenizer.tokenCount} tokens (${tokenizer.vocabType}); stop tokens ${[...tokenizer.stopTokenIds].map((id) => tokenizer.tokenText(id)).join(" ")}`);
      say(`masking route: ${session.route}${session.routeChecks.filter((c) => !c.ok).map((c) => ` (${c.route} not used: ${c.reason})`).join("")}`);
      const compileStart = performance.now();
      const grammar = await session.toolCallingGrammar(request, {
        ...(maxTextTokens === undefined ? {} : { maxFreeTextTokens: maxTextTokens }),
        ...(maxWhitespace === undefined ? {} : { maxWhitespace }),
      });
      if (grammar) {
        say(`grammar: built in ${(performance.now() - compileStart).toFixed(1)} ms (engine compile ${grammar.compiled.stats().totalMs.toFixed(1)} ms), ` +
          `${grammar.compiled.stateCount} states${maxTextTokens === undefined ? "" : `, free text bounded to ${maxTextTokens} tokens`}` +
          `${maxWhitespace === undefined ? "" : `, JSON whitespace to ${maxWhitespace} characters`}`);
      }
      const context = await model.createContext({ contextSize: Math.min(model.trainContextSize, 4096), sequences: 1 });
      try {
        const sequence = context.getSequence();
        const prompt = optional(args, "prompt") ?? (family === "kimi-k3" ? DEFAULT_PROMPT : "What is the weather in Paris, and what is 2 + 3?");
        const result = await session.generate(sequence, prompt, grammar, { maxTokens, temperature, ...(seed === undefined ? {} : { seed }) });
        const { parseToolOutput } = await import("../tools/families.js");
        let parsed;
        let parseError: string | undefined;
        try {
          const { parserOptionsOf } = await import("../integrations/node-llama-cpp/constrained-llama.js");
          parsed = parseToolOutput(request.family, result.text, parserOptionsOf(request));
        } catch (err) {
          parseError = (err as Error).message;
        }
        const { stats } = result;
        const tokensPerSecond = (result.tokens.length / stats.totalMs) * 1000;
        if (json) {
          io.stdout.write(`${JSON.stringify({
            outline: tag === null ? null : printOutline(tag), model: modelPath, route: result.route, text: result.text, stopReason: result.stopReason,
            toolCalls: parsed?.toolCalls ?? null, content: parsed?.content ?? null, parseError: parseError ?? null,
            stats: { ...stats, tokens: result.tokens.length, tokensPerSecond },
          }, null, 2)}\n`);
          return parseError === undefined ? 0 : 1;
        }
        say("");
        say(`== raw output (${result.tokens.length} tokens: ${stats.sampledTokens} sampled, ${stats.forcedTokens} forced; stopped by ${result.stopReason}) ==`);
        say(result.text);
        say("");
        say("== tool calls ==");
        if (parseError !== undefined) say(`(the output does not parse: ${parseError})`);
        else if (parsed!.toolCalls.length === 0) say("(none)");
        else for (const call of parsed!.toolCalls) say(`${call.index}. ${call.name} ${JSON.stringify(call.arguments)}`);
        if (parsed && parsed.content) say(`content: ${JSON.stringify(parsed.content)}`);
        say("");
        say("== mask time per step ==");
        if (stats.maskMicros.length > 0) {
          say(`fill (engine): median ${round(quantile(stats.maskMicros, 0.5))} µs, p99 ${round(quantile(stats.maskMicros, 0.99))} µs, max ${round(Math.max(...stats.maskMicros))} µs over ${stats.maskMicros.length} steps`);
          say(`route (${result.route}): median ${round(quantile(stats.routeMicros, 0.5))} µs, p99 ${round(quantile(stats.routeMicros, 0.99))} µs`);
          say(`per step, µs: ${stats.maskMicros.map(round).join(" ")}`);
        } else {
          say(`(no per-step masks: route ${result.route})`);
        }
        say(`generation: ${result.tokens.length} tokens in ${stats.totalMs.toFixed(0)} ms (${tokensPerSecond.toFixed(0)} tokens/s)`);
        return parseError === undefined ? 0 : 1;
      } finally {
        await context.dispose();
      }
    } finally {
      await llama.dispose();
    }
  },
};
