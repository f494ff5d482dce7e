/**
 * From generated text to an OpenAI chat completion: the family's streaming parser turns the text
 * into reasoning, content and tool-call events as it is generated; this module turns those into
 * the message of a response (`content`, `reasoning_content`, `tool_calls` with `id`, `type`,
 * `function.name`, `function.arguments` as JSON text) and into streaming deltas (content pieces;
 * per tool call first its index, id and name, then pieces of its arguments), applies the request's
 * stop strings to the content, and picks the finish reason.
 *
 * Under a grammar the text always parses. Unconstrained text (tool_choice "none", or "auto" with
 * no tools) need not follow the family's format: from the first place where it does not — or
 * where it would hold a tool call — it is passed on as plain content.
 */
import { randomBytes } from "node:crypto";
import { InternalError, type TagmaskError } from "../errors.js";
import type { StopReason } from "../integrations/node-llama-cpp/generate.js";
import { createToolOutputParser } from "../tools/families.js";
import type { ReasoningMode, ToolOutputEvent, ToolOutputParser } from "../tools/types.js";

/** A tool call of a response. */
export interface ResponseToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One tool call's piece of a streaming delta. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments: string };
}

/** The `delta` of a streaming chunk. */
export interface CompletionDelta {
  /** Only in a stream's first chunk. */
  role?: "assistant";
  content?: string;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
}

/** OpenAI's finish reasons that tagmask produces. */
export type FinishReason = "stop" | "length" | "tool_calls";

/** The finished message. */
export interface CompletionMessage {
  role: "assistant";
  content: string | null;
  reasoning_content?: string;
  tool_calls?: ResponseToolCall[];
}

/** Options of a {@link CompletionAssembler}. */
export interface CompletionOptions {
  family: string;
  /** The family's format variant, for families with several. */
  variant?: string;
  reasoning: ReasoningMode;
  /** Whether a grammar constrained the generation (then the text always parses). */
  constrained: boolean;
  /** Stop strings: the content ends before the first one. */
  stop: readonly string[];
  /** Receives the deltas as they are decided (streaming). */
  onDelta?: (delta: CompletionDelta) => void;
}

interface CallState {
  call: ResponseToolCall;
  done: boolean;
}

/** A new tool call id: `call_` and 24 random characters, as OpenAI writes them. */
export function toolCallId(): string {
  return `call_${randomBytes(18).toString("base64url")}`;
}

/**
 * Holds back the end of the content that could still become a stop string, and cuts the
 * content before the first stop string.
 */
class StopScanner {
  private held = "";
  stopped = false;
  constructor(private readonly stops: readonly string[]) {}

  /** The content that can be let out after `text`. */
  feed(text: string): string {
    if (this.stopped) return "";
    if (this.stops.length === 0) return text;
    const all = this.held + text;
    let cut = -1;
    for (const s of this.stops) {
      const at = all.indexOf(s);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      this.stopped = true;
      this.held = "";
      return all.slice(0, cut);
    }
    // Keep the longest tail that is a proper prefix of a stop string.
    let keep = 0;
    for (const s of this.stops) {
      for (let n = Math.min(s.length - 1, all.length); n > keep; n--) {
        if (all.endsWith(s.slice(0, n))) {
          keep = n;
          break;
        }
      }
    }
    this.held = all.slice(all.length - keep);
    return all.slice(0, all.length - keep);
  }

  /** What is still held back, at the end of the content. */
  flush(): string {
    const rest = this.held;
    this.held = "";
    return this.stopped ? "" : rest;
  }
}

/** `text` up to the first stop string. */
function cutAtStop(text: string, stops: readonly string[]): string {
  let cut = text.length;
  for (const s of stops) {
    const at = text.indexOf(s);
    if (at >= 0 && at < cut) cut = at;
  }
  return text.slice(0, cut);
}

/** Builds one response from generated text. */
export class CompletionAssembler {
  private readonly parser: ToolOutputParser;
  private readonly scanner: StopScanner;
  private raw = false;
  private rawText = "";
  private content = "";
  private reasoning: string | undefined;
  private readonly calls: CallState[] = [];
  private current: CallState | undefined;
  private pending: CompletionDelta[] = [];

  constructor(private readonly options: CompletionOptions) {
    this.parser = createToolOutputParser(options.family, { reasoning: options.reasoning, ...(options.variant === undefined ? {} : { variant: options.variant }) });
    this.scanner = new StopScanner(options.stop);
  }

  /** Whether a stop string ended the content (the generation should stop). */
  get stopped(): boolean {
    return this.scanner.stopped;
  }

  /** Feeds a piece of generated text; returns true when a stop string was reached. */
  push(text: string): boolean {
    this.rawText += text;
    if (this.stopped) return true;
    if (this.raw) {
      this.addContent(this.scanner.feed(text));
    } else {
      this.take(() => this.parser.push(text), text);
    }
    this.emit();
    return this.stopped;
  }

  /** The message and finish reason once the generation ended for `reason`. */
  finish(reason: StopReason): { message: CompletionMessage; finishReason: FinishReason } {
    const complete = reason === "grammar-end" || reason === "stop-token" || reason === "ended";
    if (!this.raw && !this.stopped && complete) this.take(() => this.parser.end(), "");
    this.addContent(this.scanner.flush());
    this.emit();
    const toolCalls = this.calls.filter((c) => c.done).map((c) => c.call);
    const finishReason: FinishReason = this.stopped || complete ? (toolCalls.length > 0 ? "tool_calls" : "stop") : "length";
    // Unconstrained text that left the family's format is returned whole, as written.
    const content = this.raw ? cutAtStop(this.rawText, this.options.stop) : this.content;
    const message: CompletionMessage = { role: "assistant", content: content === "" && toolCalls.length > 0 ? null : content };
    if (this.reasoning !== undefined) message.reasoning_content = this.reasoning;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return { message, finishReason };
  }

  private take(parse: () => ToolOutputEvent[], text: string): void {
    let events: ToolOutputEvent[];
    try {
      events = parse();
    } catch (err) {
      if ((err as TagmaskError).code !== "TAGMASK_OUTPUT_PARSE") throw err;
      if (this.options.constrained) {
        throw new InternalError(`the ${this.options.family} parser refused text generated under its grammar: ${(err as Error).message}`);
      }
      this.raw = true;
      this.addContent(this.scanner.feed(text));
      return;
    }
    for (const e of events) {
      if (this.raw || this.stopped) return;
      this.event(e, text);
    }
  }

  private event(e: ToolOutputEvent, text: string): void {
    switch (e.type) {
      case "content":
        this.addContent(this.scanner.feed(e.text));
        return;
      case "reasoning":
        this.reasoning = (this.reasoning ?? "") + e.text;
        this.delta({ reasoning_content: e.text });
        return;
      case "tool_call_start": {
        if (!this.options.constrained) {
          // Unconstrained output may not call tools: the rest is content.
          this.raw = true;
          this.addContent(this.scanner.feed(text));
          return;
        }
        this.addContent(this.scanner.flush());
        const call: ResponseToolCall = { id: toolCallId(), type: "function", function: { name: e.name, arguments: "" } };
        this.current = { call, done: false };
        this.calls.push(this.current);
        this.delta({ tool_calls: [{ index: this.calls.length - 1, id: call.id, type: "function", function: { name: e.name, arguments: "" } }] });
        return;
      }
      case "arguments": {
        const state = this.current;
        if (!state) throw new InternalError("the parser sent arguments outside a tool call");
        state.call.function.arguments += e.text;
        this.delta({ tool_calls: [{ index: this.calls.length - 1, function: { arguments: e.text } }] });
        return;
      }
      case "tool_call_end":
        if (this.current) this.current.done = true;
        this.current = undefined;
        return;
    }
  }

  private addContent(text: string): void {
    if (text === "") return;
    this.content += text;
    this.delta({ content: text });
  }

  /** Queues a delta, merged into the previous one when both extend the same field. */
  private delta(d: CompletionDelta): void {
    const last = this.pending[this.pending.length - 1];
    if (last) {
      if (d.content !== undefined && last.content !== undefined) {
        last.content += d.content;
        return;
      }
      if (d.reasoning_content !== undefined && last.reasoning_content !== undefined) {
        last.reasoning_content += d.reasoning_content;
        return;
      }
      const a = d.tool_calls?.[0];
      const b = last.tool_calls?.[last.tool_calls.length - 1];
      // A call's first delta (index, id, name) stays apart from its argument pieces.
      if (a && b && a.index === b.index && a.id === undefined && b.id === undefined) {
        b.function.arguments += a.function.arguments;
        return;
      }
    }
    this.pending.push(d);
  }

  private emit(): void {
    if (this.pending.length === 0) return;
    const out = this.pending;
    this.pending = [];
    if (this.options.onDelta) for (const d of out) this.options.onDelta(d);
  }
}
