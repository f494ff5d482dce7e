/**
 * The message layout most model families share, and the one builder for it: optional reasoning
 * between markers, free text (the content), then a block of tool calls (in a section wrapper or
 * not, separated by a fixed text). A family describes its layout (markers, how one call is
 * written) and gets the structural tag for every tool_choice × parallel_tool_calls × reasoning
 * mode × answer constraint from {@link buildLayout}; its parser reads the same description
 * (layout-parser.ts). Families with another shape (Kimi K3's channels, harmony's messages) build
 * their own tags.
 */
import { ToolError } from "../errors.js";
import { anyText, constString, optional, or, regex, sequence, structuralTag, tag, tagsWithSeparator } from "../format/build.js";
import type { Format, StructuralTag, TagFormat } from "../format/types.js";
import type { NormalizedTool, NormalizedToolRequest } from "./normalize.js";
import { cachedToolFormat } from "./tool-format-cache.js";

/** Reasoning between two markers (`<think>` … `</think>`). */
export interface ReasoningMarkers {
  open: string;
  close: string;
  /** What the model writes right after the close marker (e.g. `\n\n`); the parser skips whitespace there. */
  after: string;
}

/** How a family writes its tool calls. */
export interface CallsLayout {
  /** A wrapper around all calls of a message (`<|tool_calls_section_begin|>` … `<|tool_calls_section_end|>`). */
  section?: { begin: string; end: string };
  /** Fixed text before the calls (e.g. DeepSeek V3.2's `\n\n` before its function_calls block). */
  lead?: string;
  /** Between two calls. */
  separator: string;
  /** One call of `tool`. */
  call(tool: NormalizedTool): TagFormat;
  /** The text that starts the calls: the content may not contain it. */
  trigger: string;
}

/** A family's message: reasoning markers, what the content excludes, and the calls. */
export interface MessageLayout {
  /** The family's name, for messages. */
  family: string;
  reasoning: ReasoningMarkers | null;
  /** Texts the content may not contain (besides the calls trigger and reasoning markers). */
  contentExcludes: readonly string[];
  calls: CallsLayout;
  /**
   * `alone`: a message is content or calls, never both (Llama 3's JSON calls); the content then
   * may not start with `{`, which is how the parser tells them apart.
   */
  contentWithCalls: "before" | "alone";
}

/** The texts the content of `layout` may not contain. */
export function contentExcludes(layout: MessageLayout): string[] {
  const out = [layout.calls.trigger, ...layout.contentExcludes];
  if (layout.reasoning) out.push(layout.reasoning.open, layout.reasoning.close);
  return [...new Set(out.filter((s) => s !== ""))];
}

/** Refuses a reasoning mode the family has no markers for. */
export function checkReasoning(layout: { family: string; reasoning: ReasoningMarkers | null }, request: NormalizedToolRequest): void {
  if (request.reasoning !== "final_output_only" && layout.reasoning === null) {
    throw new ToolError("reasoning", `the ${layout.family} family has no reasoning markers, so only "final_output_only" applies, found ${JSON.stringify(request.reasoning)}`);
  }
}

/** The elements the reasoning mode puts before the content. */
export function reasoningPrefix(reasoning: ReasoningMarkers | null, mode: NormalizedToolRequest["reasoning"]): Format[] {
  if (reasoning === null || mode === "final_output_only") return [];
  const body = anyText({ excludes: [reasoning.open] });
  const after = reasoning.after === "" ? [] : [constString(reasoning.after)];
  if (mode === "think") return [tag("", body, reasoning.close), ...after];
  const block = tag(reasoning.open, body, reasoning.close);
  return [optional(after.length === 0 ? block : sequence(block, ...after))];
}

const layoutIds = new WeakMap<CallsLayout, number>();
let nextLayoutId = 0;

/** A number for each calls layout (one per family and variant): its calls' kind in the per-tool cache. */
function layoutId(layout: CallsLayout): number {
  let id = layoutIds.get(layout);
  if (id === undefined) layoutIds.set(layout, (id = nextLayoutId++));
  return id;
}

/** The calls block: every call of the request's tools, at least one, at most one without parallel calls. */
export function callsBlock(layout: CallsLayout, request: NormalizedToolRequest): Format {
  // A call depends on the tool and the layout alone (layouts are built once per family and
  // variant): built once per tool content (tool-format-cache.ts).
  const kind = `layout ${layoutId(layout)}`;
  const calls = request.tools.map((t) => cachedToolFormat(kind, t, (tool) => layout.call(tool)));
  const options = request.parallel ? { at_least_one: true } : { at_least_one: true, stop_after_first: true };
  const list = tagsWithSeparator(calls, layout.separator, options);
  const block = layout.section ? tag(layout.section.begin, list, layout.section.end) : list;
  return layout.lead ? sequence(constString(layout.lead), block) : block;
}

/**
 * The structural tag of a message in `layout` for a normalized request, or null when nothing
 * constrains it. An answer constraint replaces the content; where calls follow it, it may be
 * left out, and with `auto` an empty answer must be followed by calls.
 */
export function buildLayout(layout: MessageLayout, request: NormalizedToolRequest): StructuralTag | null {
  checkReasoning(layout, request);
  const { mode, answer } = request;
  if (mode === "none" && answer === null) return null;
  const elements = reasoningPrefix(layout.reasoning, request.reasoning);
  const text = anyText({ excludes: contentExcludes(layout) });
  // Alone: the content may not start with `{`, which starts a call.
  const content: Format = layout.contentWithCalls === "alone" && answer === null ? or(constString(""), sequence(regex("[^{]"), text)) : (answer ?? text);
  if (mode === "none") {
    elements.push(content);
  } else {
    const calls = callsBlock(layout.calls, request);
    if (layout.contentWithCalls === "alone") {
      elements.push(mode === "required" ? calls : or(calls, content));
    } else if (mode === "required") {
      if (answer === null) elements.push(content, calls);
      else elements.push(optional(answer), calls);
    } else if (answer === null) {
      elements.push(content, optional(calls));
    } else {
      elements.push(or(sequence(optional(answer), calls), answer));
    }
  }
  return structuralTag(elements.length === 1 ? elements[0]! : sequence(...elements));
}
