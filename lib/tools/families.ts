/**
 * The registry of model families tagmask builds tool-calling grammars for, and the entry points
 * that dispatch on the family name: the builder, the output parser and the family's markers.
 * Each family lives in its own folder (lib/tools/<name>/); docs/families.md lists them with
 * their markers and sources. Layers below lib/tools never import a family: they get markers and
 * stop texts from here.
 */
import { InvalidArgumentError, ToolError } from "../errors.js";
import { describeValue, isPlainObject } from "../format/json-path.js";
import type { StructuralTag } from "../format/types.js";
import { COHERE_FAMILY } from "./cohere/index.js";
import { DEEPSEEK_R1 } from "./deepseek-r1/index.js";
import { DEEPSEEK_V3_1 } from "./deepseek-v3.1/index.js";
import { DEEPSEEK_V3_2 } from "./deepseek-v3.2/index.js";
import { DEEPSEEK_V4 } from "./deepseek-v4/index.js";
import { EXAONE } from "./exaone/index.js";
import type { ToolCallingFamily } from "./family.js";
import { GLM_4_7 } from "./glm-4.7/index.js";
import { HARMONY } from "./harmony/index.js";
import { HERMES } from "./hermes/index.js";
import { KIMI_K2 } from "./kimi-k2/index.js";
import { KIMI_K3 } from "./kimi-k3/index.js";
import { LLAMA3 } from "./llama3/index.js";
import { MINIMAX_M2 } from "./minimax-m2/index.js";
import { MISTRAL } from "./mistral/index.js";
import { normalizeToolRequest } from "./normalize.js";
import { QWEN3 } from "./qwen3/index.js";
import { QWEN3_CODER } from "./qwen3-coder/index.js";
import type { ParsedToolOutput, ToolCallingRequest, ToolOutputParser, ToolOutputParserOptions } from "./types.js";

export type { ToolCallingFamily } from "./family.js";

const FAMILIES: ReadonlyMap<string, ToolCallingFamily> = new Map([
  HERMES, QWEN3, QWEN3_CODER, LLAMA3, KIMI_K2, KIMI_K3, DEEPSEEK_R1, DEEPSEEK_V3_1, DEEPSEEK_V3_2, DEEPSEEK_V4,
  GLM_4_7, MINIMAX_M2, HARMONY, MISTRAL, COHERE_FAMILY, EXAONE,
].map((f) => [f.name, f] as const));

/** The names of the supported families. */
export function toolCallingFamilies(): string[] {
  return [...FAMILIES.keys()];
}

/** The family named `name`; a `ToolError` (path `family`) lists the known ones otherwise. */
export function toolCallingFamily(name: unknown): ToolCallingFamily {
  const family = typeof name === "string" ? FAMILIES.get(name) : undefined;
  if (!family) {
    throw new ToolError("family", `unknown model family ${describeValue(name)}; known families: ${toolCallingFamilies().join(", ")}`);
  }
  return family;
}

function checkVariant(family: ToolCallingFamily, variant: unknown): string | undefined {
  if (variant === undefined) return undefined;
  if (family.variants === undefined) throw new ToolError("variant", `the ${family.name} family has one format; remove "variant" (found ${describeValue(variant)})`);
  if (typeof variant !== "string" || !family.variants.includes(variant)) {
    throw new ToolError("variant", `expected one of ${family.variants.map((v) => JSON.stringify(v)).join(", ")} for the ${family.name} family, found ${describeValue(variant)}`);
  }
  return variant;
}

/**
 * The structural tag that makes a model of `request.family` follow its tool-calling format for
 * these tools, tool_choice, parallel_tool_calls, reasoning mode and answer constraint; null when
 * nothing constrains the output (tool_choice "none", or "auto" without tools, and no answer
 * constraint). Bad input throws `ToolError` naming the field.
 */
export function buildToolCallingFormat(request: ToolCallingRequest): StructuralTag | null {
  if (!isPlainObject(request)) throw new ToolError("", `expected a request object {family, tools, tool_choice, …}, found ${describeValue(request)}`);
  const family = toolCallingFamily(request.family);
  const variant = checkVariant(family, request.variant);
  return family.build(normalizeToolRequest(request), variant);
}

/** Parses a whole model output of `family`; throws `OutputParseError` (offset, expected) where it is malformed. */
export function parseToolOutput(family: string, text: string, options?: ToolOutputParserOptions): ParsedToolOutput {
  if (typeof text !== "string") throw new InvalidArgumentError(`parseToolOutput(family, text): expected the model output as a string, found ${describeValue(text)}`);
  const parser = toolCallingFamily(family).createParser(options);
  parser.push(text);
  parser.end();
  return parser.result();
}

/** A streaming parser of `family`'s output: `push(chunk)` and `end()` return events. */
export function createToolOutputParser(family: string, options?: ToolOutputParserOptions): ToolOutputParser {
  return toolCallingFamily(family).createParser(options);
}
