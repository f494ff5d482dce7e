/**
 * What a model family provides to the registry (families.ts), and the helper that makes one from
 * a message layout (layout.ts) and a parser syntax (layout-parser.ts). Each family lives in its
 * own folder (lib/tools/<name>/: markers, builder, parser, example) and exports one
 * {@link ToolCallingFamily}.
 */
import { ToolError } from "../errors.js";
import { keyPath, showString } from "../format/json-path.js";
import type { StructuralTag } from "../format/types.js";
import { buildLayout, type MessageLayout, type ReasoningMarkers } from "./layout.js";
import { LayoutParser, type ParserSyntax } from "./layout-parser.js";
import type { NormalizedTool, NormalizedToolRequest } from "./normalize.js";
import type { ToolOutputParser, ToolOutputParserOptions } from "./types.js";

/** What a model family provides. */
export interface ToolCallingFamily {
  /** The family's name, e.g. `qwen3`. */
  name: string;
  /** The models that write this format. */
  models: readonly string[];
  /** Marker texts the family's tokenizer has as (text-bearing) special tokens. */
  markers: readonly string[];
  /** The text that ends a message (generation stops there). */
  stop: string;
  /** Every stop text of the family (the parser accepts one at the end of the output). */
  stops: readonly string[];
  /** How arguments are written: "JSON" or the json_schema style name, e.g. `qwen_xml`. */
  argumentEncoding: string;
  /** The reasoning markers, or null when the family has no reasoning. */
  reasoning: { open: string; close: string } | null;
  /** Format variants, the first the default (mistral: "v3", "v11", "v13"); absent: one format. */
  variants?: readonly string[];
  /** Where each marker and whitespace choice comes from (docs/families.md repeats it). */
  sources: readonly string[];
  /** A complete output of the family calling a `get_weather(location)` tool, for docs and tests. */
  example: string;
  /** The structural tag for a normalized request, or null when nothing constrains the output. */
  build(request: NormalizedToolRequest, variant?: string): StructuralTag | null;
  /** A new streaming parser of the family's output. */
  createParser(options?: ToolOutputParserOptions): ToolOutputParser;
}

/** Refuses tool names the family cannot write: a text in `forbidden` would end the name early. */
export function checkToolNames(family: string, tools: readonly NormalizedTool[], forbidden: readonly string[], markers: readonly string[]): void {
  for (const tool of tools) {
    const path = keyPath(keyPath(tool.path, "function"), "name");
    const bad = [...forbidden, ...markers].find((f) => tool.name.includes(f));
    if (bad !== undefined) {
      throw new ToolError(path, `invalid tool name ${showString(tool.name)} for the ${family} family: it contains ${showString(bad)}, which ends or marks up the name in the model's format`);
    }
    if (forbidden.includes(" ") && /\s/.test(tool.name)) {
      throw new ToolError(path, `invalid tool name ${showString(tool.name)} for the ${family} family: the format cannot hold whitespace in a name`);
    }
  }
}

/** The description a layout family gives once. */
export interface LayoutFamilySpec {
  name: string;
  models: readonly string[];
  markers: readonly string[];
  stops: readonly string[];
  argumentEncoding: string;
  reasoning: ReasoningMarkers | null;
  sources: readonly string[];
  example: string;
  /** Texts a tool name may not contain (`" "`: no whitespace either). */
  nameForbidden: readonly string[];
  layout: Omit<MessageLayout, "family" | "reasoning">;
  parser: Omit<ParserSyntax, "family" | "reasoning" | "stops">;
}

/** A family of the common layout. */
export function layoutFamily(spec: LayoutFamilySpec): ToolCallingFamily {
  const layout: MessageLayout = { ...spec.layout, family: spec.name, reasoning: spec.reasoning };
  const syntax: ParserSyntax = { ...spec.parser, family: spec.name, reasoning: spec.reasoning, stops: spec.stops };
  return {
    name: spec.name,
    models: spec.models,
    markers: spec.markers,
    stop: spec.stops[0]!,
    stops: spec.stops,
    argumentEncoding: spec.argumentEncoding,
    reasoning: spec.reasoning === null ? null : { open: spec.reasoning.open, close: spec.reasoning.close },
    sources: spec.sources,
    example: spec.example,
    build(request) {
      checkToolNames(spec.name, request.tools, spec.nameForbidden, spec.markers);
      return buildLayout(layout, request);
    },
    createParser: (options) => new LayoutParser(syntax, options),
  };
}

/** A JSON string literal of a tool name (names inside JSON are escaped as JSON). */
export function jsonName(name: string): string {
  return JSON.stringify(name);
}
