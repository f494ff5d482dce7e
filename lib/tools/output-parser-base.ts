/**
 * The lifecycle every streaming output parser of the families shares: `push` / `end` /
 * `result`, the events of one call, and the error that ends a parser for good (a parser that
 * failed throws the same error from then on). A family's parser supplies its reading `step`
 * and says whether the text may end where its steps stopped.
 */
import { InternalError, InvalidArgumentError, OutputParseError } from "../errors.js";
import { ChunkReader, isHighSurrogate, isLowSurrogate } from "./chunk-reader.js";
import type { ParsedToolCall, ParsedToolOutput, ReasoningMode, ToolOutputEvent, ToolOutputParser, ToolOutputParserOptions } from "./types.js";

export abstract class OutputParserBase extends ChunkReader implements ToolOutputParser {
  protected readonly mode: ReasoningMode;
  protected error: OutputParseError | undefined;
  /** The events of the current push or end. */
  protected out: ToolOutputEvent[] = [];
  protected reasoning: string | undefined;
  protected content = "";
  protected readonly calls: ParsedToolCall[] = [];
  private finished: ParsedToolOutput | undefined;
  /** A high surrogate of arguments JSON waiting for its low half. */
  private pendingHigh = "";

  constructor(options: ToolOutputParserOptions) {
    super();
    this.mode = options.reasoning ?? "final_output_only";
  }

  /**
   * One reading step: DONE when it read something or changed state, WAIT when it needs more
   * text (or the parser has read all it will read).
   */
  protected abstract step(): boolean;

  /** After the steps stop on the whole text: whether the parser ended where an output may end. */
  protected abstract endedWhereOutputEnds(): boolean;

  /** The parser and its state, for the internal error of a parser that stopped without one. */
  protected abstract describeState(): string;

  /** Called each time the steps stop (more text may follow unless `ended`). */
  protected afterSteps(): void {}

  /** Emits arguments JSON text of call `index`. */
  protected emitArguments(index: number, text: string): void {
    this.out.push({ type: "arguments", index, text });
  }

  /** Emits arguments JSON one code point at a time: a high surrogate waits for its low half. */
  protected emitArgumentsUnit(index: number, unit: string): void {
    const c = unit.charCodeAt(0);
    if (this.pendingHigh !== "") {
      const high = this.pendingHigh;
      this.pendingHigh = "";
      if (isLowSurrogate(c)) {
        this.emitArguments(index, high + unit);
        return;
      }
      this.emitArguments(index, high);
    }
    if (isHighSurrogate(c)) this.pendingHigh = unit;
    else this.emitArguments(index, unit);
  }

  /** Emits a high surrogate still waiting when the arguments' JSON value ends. */
  protected flushArgumentsUnits(index: number): void {
    if (this.pendingHigh !== "") this.emitArguments(index, this.pendingHigh);
    this.pendingHigh = "";
  }

  push(chunk: string): ToolOutputEvent[] {
    if (typeof chunk !== "string") throw new InvalidArgumentError(`push(chunk): expected a string, found ${typeof chunk}`);
    this.checkUsable("push");
    this.append(chunk);
    return this.run();
  }

  end(): ToolOutputEvent[] {
    this.checkUsable("end");
    this.ended = true;
    const events = this.run();
    if (!this.endedWhereOutputEnds()) throw new InternalError(`${this.describeState()} at offset ${this.offset()} without an error`);
    this.finished = { ...(this.reasoning === undefined ? {} : { reasoning: this.reasoning }), content: this.content, toolCalls: this.calls };
    return events;
  }

  result(): ParsedToolOutput {
    if (this.error) throw this.error;
    if (!this.finished) throw new InvalidArgumentError("result() is available only after end() returned");
    return this.finished;
  }

  private checkUsable(what: string): void {
    if (this.error) throw this.error;
    if (this.ended) throw new InvalidArgumentError(`${what}() after end(): the parser has already read the whole text`);
  }

  private run(): ToolOutputEvent[] {
    this.out = [];
    try {
      while (this.step()) {
        // Each step reads something or changes state; WAIT ends the loop.
      }
      this.afterSteps();
    } catch (err) {
      if (err instanceof OutputParseError) this.error = err;
      throw err;
    }
    return this.out;
  }
}
