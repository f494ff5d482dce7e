/**
 * The model families tagmask can build tool-calling grammars for, and the entry points that
 * dispatch on the family name: the builder, the output parser and the family's markers.
 */
import { InvalidArgumentError, ToolError } from "../errors.js";
import { describeValue, isPlainObject } from "../format/json-path.js";
import type { StructuralTag } from "../format/types.js";
import { buildKimiK3 } from "./kimi-k3/builder.js";
import { KIMI_K3_MARKERS, KIMI_K3_STOP } from "./kimi-k3/markers.js";
import { KimiK3OutputParser } from "./kimi-k3/parser.js";
import { normalizeToolRequest, type NormalizedToolRequest } from "./normalize.js";
import type { ParsedToolOutput, ToolCallingRequest, ToolOutputParser, ToolOutputParserOptions } from "./types.js";

/** What a model family provides. */
export interface ToolCallingFamily {
  /** The family's name, e.g. `kimi-k3`. */
  name: string;
  /** Marker texts the family's tokenizer has as special tokens. */
  markers: readonly string[];
  /** The text that ends a message (generation stops there). */
  stop: string;
  /** The structural tag for a normalized request, or null when nothing constrains the output. */
  build(request: NormalizedToolRequest): StructuralTag | null;
  /** A new streaming parser of the family's output. */
  createParser(options?: ToolOutputParserOptions): ToolOutputParser;
}

const FAMILIES: ReadonlyMap<string, ToolCallingFamily> = new Map([
  ["kimi-k3", {
    name: "kimi-k3",
    markers: KIMI_K3_MARKERS,
    stop: KIMI_K3_STOP,
    build: buildKimiK3,
    createParser: (options?: ToolOutputParserOptions) => new KimiK3OutputParser(options),
  }],
]);

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

/**
 * The structural tag that makes a model of `request.family` follow its tool-calling format for
 * these tools, tool_choice, parallel_tool_calls, reasoning mode and answer constraint; null when
 * nothing constrains the output (tool_choice "none", or "auto" without tools, and no answer
 * constraint). Bad input throws `ToolError` naming the field.
 */
export function buildToolCallingFormat(request: ToolCallingRequest): StructuralTag | null {
  if (!isPlainObject(request)) throw new ToolError("", `expected a request object {family, tools, tool_choice, …}, found ${describeValue(request)}`);
  const family = toolCallingFamily(request.family);
  return family.build(normalizeToolRequest(request));
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
