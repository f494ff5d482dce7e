/**
 * The harmony output parser: analysis (reasoning), commentary preambles and the final message
 * (content), and a tool call (`to=functions.NAME`, JSON arguments streamed one code point at a
 * time). Headers are read whole up to `<|message|>`; the recipient may stand before or after the
 * channel, `<|constrain|>json` or `json` may follow, whitespace between the parts is accepted.
 */
import { isPlainObject } from "../../format/json-path.js";
import { DONE, WAIT, quote } from "../chunk-reader.js";
import { JsonScanner } from "../json-scanner.js";
import { OutputParserBase } from "../output-parser-base.js";
import type { ParsedToolCall, ToolOutputParserOptions } from "../types.js";
import { ANALYSIS, CALL, CHANNEL, END, HARMONY_MARKERS, MESSAGE, RETURN, START } from "./markers.js";

const enum St { Start, Analysis, NextMessage, Header, Text, Answer, Args, AfterArgs, Done }

const HEADER = /^\s*(?:to=([^\s<]+))?\s*<\|channel\|>([a-z]+)\s*(?:to=([^\s<]+))?\s*(?:(?:<\|constrain\|>)?\s*json)?\s*$/;

export class HarmonyParser extends OutputParserBase {
  private state = St.Start;
  /** Text of the current message: reasoning (analysis) or content. */
  private into: "reasoning" | "content" = "content";
  private json: JsonScanner | undefined;
  private callName = "";

  /** The final answer is JSON (response_format json_object / json_schema): read as JSON, markers inside its strings are text. */
  private readonly jsonAnswer: boolean;

  constructor(options: ToolOutputParserOptions = {}) {
    super(options);
    const rf = options.response_format;
    this.jsonAnswer = rf !== undefined && rf !== null && (rf.type === "json_object" || rf.type === "json_schema");
  }

  protected override afterSteps(): void {
    if (this.state === St.Done && !this.atEnd) this.fail("the end of the text (a tool call or the final answer ends the output)");
  }

  protected endedWhereOutputEnds(): boolean {
    return this.state === St.Done;
  }

  protected describeState(): string {
    return `the harmony parser stopped in state ${this.state}`;
  }

  protected step(): boolean {
    switch (this.state) {
      case St.Start:
        return this.start();
      case St.Analysis:
      case St.Text:
        return this.messageText();
      case St.NextMessage: {
        const which = this.choose([`${START}assistant`]);
        if (which === WAIT) return WAIT;
        this.state = St.Header;
        return DONE;
      }
      case St.Header:
        return this.header();
      case St.Args:
        return this.args();
      case St.Answer:
        return this.answer();
      case St.AfterArgs: {
        if (this.atEnd) {
          if (!this.ended) return WAIT;
          this.state = St.Done;
          return DONE;
        }
        if (this.choose([CALL], `${quote(CALL)} or the end of the text`) === WAIT) return WAIT;
        this.state = St.Done;
        return DONE;
      }
      default:
        return WAIT;
    }
  }

  private start(): boolean {
    if (this.mode === "think") {
      this.reasoning = "";
      this.into = "reasoning";
      this.state = St.Analysis;
      return DONE;
    }
    if (this.mode === "auto") {
      const rest = this.buf.slice(this.pos);
      if (rest.length < ANALYSIS.length && ANALYSIS.startsWith(rest) && !this.ended) return WAIT;
      if (this.buf.startsWith(ANALYSIS, this.pos)) {
        this.pos += ANALYSIS.length;
        this.reasoning = "";
        this.into = "reasoning";
        this.state = St.Analysis;
        return DONE;
      }
    }
    this.state = St.Header;
    return DONE;
  }

  /** A message's text, up to `<|end|>` (another message follows) or a stop marker or the end (final answer). */
  private messageText(): boolean {
    const forbidden = [...HARMONY_MARKERS, RETURN, CALL];
    while (!this.atEnd) {
      if (this.buf.charCodeAt(this.pos) === 0x3c) {
        const rest = this.buf.length - this.pos;
        const found = forbidden.find((m) => this.buf.startsWith(m, this.pos));
        if (found === END) {
          this.pos += END.length;
          this.state = St.NextMessage;
          return DONE;
        }
        if (found === RETURN && this.into === "content" && this.state === St.Text) {
          this.pos += RETURN.length;
          this.state = St.Done;
          return DONE;
        }
        if (found !== undefined) this.fail(`message text or ${quote(END)} (the text may not contain ${quote(found)})`, quote(found));
        if (!this.ended && forbidden.some((m) => rest < m.length && m.startsWith(this.buf.slice(this.pos)))) return WAIT;
      }
      const ch = this.codePoint();
      if (ch === "") return WAIT;
      this.pos += ch.length;
      if (this.into === "reasoning") {
        this.reasoning += ch;
        this.out.push({ type: "reasoning", text: ch });
      } else {
        this.content += ch;
        this.out.push({ type: "content", text: ch });
      }
    }
    if (!this.ended) return WAIT;
    if (this.state === St.Analysis) this.fail(`${quote(END)} to end the analysis`);
    this.state = St.Done;
    return DONE;
  }

  private header(): boolean {
    const i = this.buf.indexOf(MESSAGE, this.pos);
    if (i < 0) {
      if (this.ended) this.fail(`a message header ending in ${quote(MESSAGE)}`);
      return WAIT;
    }
    const text = this.buf.slice(this.pos, i);
    const m = HEADER.exec(text);
    if (!m || (m[1] !== undefined && m[3] !== undefined)) this.fail(`a header "<|channel|>final", "<|channel|>commentary to=functions.NAME …" or "<|channel|>analysis" before ${quote(MESSAGE)}`);
    const recipient = m[1] ?? m[3];
    const channel = m[2]!;
    this.pos = i + MESSAGE.length;
    if (recipient !== undefined) {
      if (!recipient.startsWith("functions.") || recipient.length === "functions.".length) this.fail('a recipient "functions.NAME"', quote(recipient), this.offset() - MESSAGE.length - text.length);
      this.callName = recipient.slice("functions.".length);
      this.out.push({ type: "tool_call_start", index: this.calls.length, name: this.callName });
      this.json = new JsonScanner();
      this.text = "";
      this.textStart = this.offset();
      this.state = St.Args;
      return DONE;
    }
    if (channel === "analysis") {
      this.reasoning ??= "";
      this.into = "reasoning";
      this.state = St.Analysis;
    } else if (channel === "final" || channel === "commentary") {
      this.into = "content";
      this.state = channel === "final" && this.jsonAnswer ? St.Answer : St.Text;
      this.json = new JsonScanner();
    } else {
      this.fail('the channel "analysis", "commentary" or "final"', quote(channel), i - text.length + text.indexOf(channel) + this.base);
    }
    return DONE;
  }

  private answer(): boolean {
    const scanner = this.json!;
    while (!this.atEnd) {
      const unit = this.buf[this.pos]!;
      const inValue = this.feedJson(scanner, unit, " (the answer is JSON)");
      if (!inValue) {
        this.state = St.Text;
        return DONE;
      }
      this.pos++;
      this.content += unit;
      this.out.push({ type: "content", text: unit });
    }
    if (!this.ended) return WAIT;
    this.endJson(scanner, " (the answer is JSON)");
    this.state = St.Done;
    return DONE;
  }

  private args(): boolean {
    const scanner = this.json!;
    while (!this.atEnd) {
      const unit = this.buf[this.pos]!;
      const inValue = this.feedJson(scanner, unit);
      if (!inValue) return this.argsDone();
      this.pos++;
      this.text += unit;
      this.emitArgumentsUnit(this.calls.length, unit);
    }
    if (!this.ended) return WAIT;
    this.endJson(scanner);
    return this.argsDone();
  }

  private argsDone(): boolean {
    this.flushArgumentsUnits(this.calls.length);
    const value: unknown = JSON.parse(this.text);
    if (!isPlainObject(value)) this.fail("a JSON object (the call's arguments)", undefined, this.textStart + (this.text.length - this.text.trimStart().length));
    const call: ParsedToolCall = { index: this.calls.length, name: this.callName, arguments: value };
    this.calls.push(call);
    this.out.push({ type: "tool_call_end", index: call.index, name: call.name, arguments: value });
    this.state = St.AfterArgs;
    return DONE;
  }
}
