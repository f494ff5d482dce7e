/**
 * The Kimi K3 output parser: model output → reasoning, response text and tool calls, fed in
 * chunks of any size. It accepts every text the Kimi K3 builder's grammars accept (for any
 * tools: it does not know the schemas) and refuses anything else with an `OutputParseError`
 * giving the offset and what was expected there.
 *
 * Decisions are made only when the text seen so far settles them (a possible marker prefix at
 * the end of a chunk waits for the next chunk), and every delta carries a fixed piece of text,
 * so the events are the same for every way of splitting the text. `parseToolOutput` is the same
 * machine fed the whole text at once.
 */
import { OutputParseError } from "../../errors.js";
import { isJsonType } from "../../format/json-path.js";
import { DONE, WAIT, quote } from "../chunk-reader.js";
import { JsonScanner } from "../json-scanner.js";
import { OutputParserBase } from "../output-parser-base.js";
import type {
  ParsedToolCall, ToolOutputParserOptions,
} from "../types.js";
import {
  ARGUMENT_CLOSE, ARGUMENT_OPEN_PREFIX, ARGUMENT_OPEN_SUFFIX, ARGUMENT_TYPES, ARGUMENT_TYPE_PREFIX, type ArgumentType,
  CALL_CLOSE, CALL_INDEX_PREFIX, CALL_OPEN_PREFIX, CALL_OPEN_SUFFIX, CLOSE, END_OF_MSG, JSON_CLOSE, JSON_OPEN, MESSAGE_CLOSE,
  OPEN, RESPONSE_CLOSE, RESPONSE_OPEN, THINK_CLOSE, THINK_OPEN, TOOLS_CLOSE, TOOLS_OPEN,
} from "./markers.js";

const enum St {
  Start,
  Top,
  Think,
  Response,
  Tools,
  ToolsAfterCall,
  CallName,
  CallIndexPrefix,
  CallIndex,
  CallIndexSuffix,
  Args,
  ArgKey,
  ArgTypePrefix,
  ArgType,
  ArgTypeSuffix,
  ArgString,
  ArgJson,
  ArgClose,
  JsonForm,
  JsonFormClose,
  CallClose,
}

/** How far the message has got at the top level; channels come in this order, each at most once. */
const enum Phase {
  Nothing,
  Thought,
  Responded,
  Called,
  MessageClosed,
  Stopped,
}


const MAX_INDEX_DIGITS = 15;


function describeJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Sets an own property, so a key named `__proto__` is an ordinary key. */
function setArgument(args: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(args, key, { value, enumerable: true, writable: true, configurable: true });
}



/** The incremental Kimi K3 output parser. */
export class KimiK3OutputParser extends OutputParserBase {
  private state = St.Start;
  private phase = Phase.Nothing;

  // The call being read.
  private callName = "";
  private callIndex = 0;
  private callForm: "kv" | "json" | undefined;
  private args: Record<string, unknown> = {};
  private argCount = 0;
  // The argument being read.
  private argKey = "";
  private argType: ArgumentType = "string";
  private json: JsonScanner | undefined;

  constructor(options: ToolOutputParserOptions = {}) {
    super(options);
  }

  /** Emits a piece of the arguments JSON of the current call. */
  private argumentsDelta(text: string): void {
    this.emitArguments(this.callIndex, text);
  }

  /** Emits the JSON text of an argument value one code point at a time (surrogate pairs together). */
  private jsonUnit(unit: string): void {
    this.text += unit;
    this.emitArgumentsUnit(this.callIndex, unit);
  }

  private flushJsonUnits(): void {
    this.flushArgumentsUnits(this.callIndex);
  }

  /**
   * Feeds JSON text to the scanner until the value is complete and the next character is not
   * part of it (DONE), or the chunk ends (WAIT). Returns the parsed value through `this.text`.
   */
  private scanJson(): boolean {
    const scanner = this.json!;
    while (!this.atEnd) {
      const unit = this.buf[this.pos]!;
      const inValue = this.feedJson(scanner, unit);
      if (!inValue) {
        this.flushJsonUnits();
        return DONE;
      }
      this.pos++;
      this.jsonUnit(unit);
    }
    if (!this.ended) return WAIT;
    this.endJson(scanner);
    this.flushJsonUnits();
    return DONE;
  }

  /** The parsed JSON value just scanned, checked to be of `type`. */
  private jsonValue(type: ArgumentType, what: string): unknown {
    const value: unknown = JSON.parse(this.text);
    if (!isJsonType(value, type)) {
      const start = this.textStart + (this.text.length - this.text.trimStart().length);
      this.fail(`${type === "object" || type === "array" ? "an" : "a"} ${type} (${what})`, describeJson(value), start);
    }
    return value;
  }

  // ---- the states ------------------------------------------------------------------------

  /** One step of the state machine: DONE when it made progress, WAIT when it needs more text. */
  protected endedWhereOutputEnds(): boolean {
    return this.state === St.Top && this.phase >= Phase.Responded;
  }

  protected describeState(): string {
    return `the Kimi K3 parser stopped in state ${this.state}`;
  }

  protected step(): boolean {
    switch (this.state) {
      case St.Start:
        return this.start();
      case St.Top:
        return this.top();
      case St.Think:
        if (this.scanText(THINK_CLOSE, [END_OF_MSG], "the reasoning", (ch) => {
          this.reasoning += ch;
          this.out.push({ type: "reasoning", text: ch });
        }) === WAIT) return WAIT;
        this.phase = Phase.Thought;
        this.state = St.Top;
        return DONE;
      case St.Response:
        if (this.scanText(RESPONSE_CLOSE, [OPEN, CLOSE, END_OF_MSG], "the response text", (ch) => {
          this.content += ch;
          this.out.push({ type: "content", text: ch });
        }) === WAIT) return WAIT;
        this.phase = Phase.Responded;
        this.state = St.Top;
        return DONE;
      case St.Tools:
      case St.ToolsAfterCall: {
        const options = this.state === St.Tools ? [CALL_OPEN_PREFIX] : [CALL_OPEN_PREFIX, TOOLS_CLOSE];
        const which = this.choose(options, this.state === St.Tools ? `a tool call ${quote(CALL_OPEN_PREFIX)}` : undefined);
        if (which === WAIT) return WAIT;
        if (which === 1) {
          this.phase = Phase.Called;
          this.state = St.Top;
        } else {
          this.text = "";
          this.textStart = this.offset();
          this.state = St.CallName;
        }
        return DONE;
      }
      case St.CallName:
        if (this.scanAttribute("the tool name") === WAIT) return WAIT;
        this.callName = this.text;
        this.state = St.CallIndexPrefix;
        return DONE;
      case St.CallIndexPrefix:
        if (this.literal(CALL_INDEX_PREFIX) === WAIT) return WAIT;
        this.text = "";
        this.textStart = this.offset();
        this.state = St.CallIndex;
        return DONE;
      case St.CallIndex:
        return this.callIndexDigits();
      case St.CallIndexSuffix:
        if (this.literal(CALL_OPEN_SUFFIX) === WAIT) return WAIT;
        this.callIndex = Number(this.text);
        this.callForm = undefined;
        this.args = {};
        this.argCount = 0;
        this.out.push({ type: "tool_call_start", index: this.callIndex, name: this.callName });
        this.state = St.Args;
        return DONE;
      case St.Args:
        return this.argumentsStart();
      case St.ArgKey:
        if (this.scanAttribute("the argument key") === WAIT) return WAIT;
        this.argKey = this.text;
        this.state = St.ArgTypePrefix;
        return DONE;
      case St.ArgTypePrefix:
        if (this.literal(ARGUMENT_TYPE_PREFIX) === WAIT) return WAIT;
        this.text = "";
        this.textStart = this.offset();
        this.state = St.ArgType;
        return DONE;
      case St.ArgType:
        return this.argumentType();
      case St.ArgTypeSuffix:
        if (this.literal(ARGUMENT_OPEN_SUFFIX) === WAIT) return WAIT;
        this.argumentsDelta(`${this.argCount === 0 ? "{" : ","}${JSON.stringify(this.argKey)}:${this.argType === "string" ? '"' : ""}`);
        this.argCount++;
        this.text = "";
        this.textStart = this.offset();
        if (this.argType === "string") {
          this.state = St.ArgString;
        } else {
          this.json = new JsonScanner();
          this.state = St.ArgJson;
        }
        return DONE;
      case St.ArgString:
        if (this.scanText(ARGUMENT_CLOSE, [CALL_CLOSE], "a string argument", (ch) => {
          this.text += ch;
          this.argumentsDelta(JSON.stringify(ch).slice(1, -1));
        }) === WAIT) return WAIT;
        setArgument(this.args, this.argKey, this.text);
        this.argumentsDelta('"');
        this.state = St.Args;
        return DONE;
      case St.ArgJson:
        if (this.scanJson() === WAIT) return WAIT;
        setArgument(this.args, this.argKey, this.jsonValue(this.argType, `the argument's type attribute says ${this.argType}`));
        this.state = St.ArgClose;
        return DONE;
      case St.ArgClose:
        if (this.literal(ARGUMENT_CLOSE) === WAIT) return WAIT;
        this.state = St.Args;
        return DONE;
      case St.JsonForm:
        if (this.scanJson() === WAIT) return WAIT;
        this.args = this.jsonValue("object", "the arguments of the JSON object form") as Record<string, unknown>;
        this.state = St.JsonFormClose;
        return DONE;
      case St.JsonFormClose:
        if (this.literal(JSON_CLOSE) === WAIT) return WAIT;
        this.state = St.CallClose;
        return DONE;
      case St.CallClose:
        if (this.literal(CALL_CLOSE) === WAIT) return WAIT;
        this.finishCall();
        return DONE;
    }
  }

  private start(): boolean {
    if (this.mode === "think") {
      this.reasoning = "";
      this.state = St.Think;
      return DONE;
    }
    if (this.mode === "auto") {
      this.state = St.Top;
      return DONE;
    }
    // final_output_only: inside the response channel, whose opening marker the output may repeat.
    const rest = this.buf.length - this.pos;
    if (rest < RESPONSE_OPEN.length && !this.ended && RESPONSE_OPEN.startsWith(this.buf.slice(this.pos))) return WAIT;
    if (this.buf.startsWith(RESPONSE_OPEN, this.pos)) this.pos += RESPONSE_OPEN.length;
    this.state = St.Response;
    return DONE;
  }

  private top(): boolean {
    const options: string[] = [];
    if (this.mode === "auto" && this.phase === Phase.Nothing) options.push(THINK_OPEN);
    if (this.phase < Phase.Responded) options.push(RESPONSE_OPEN);
    if (this.phase < Phase.Called) options.push(TOOLS_OPEN);
    if (this.phase >= Phase.Responded && this.phase < Phase.MessageClosed) options.push(MESSAGE_CLOSE);
    if (this.phase >= Phase.Responded && this.phase < Phase.Stopped) options.push(END_OF_MSG);
    if (this.atEnd) {
      if (!this.ended) return WAIT;
      if (this.phase >= Phase.Responded) return WAIT; // the whole text was read: nothing left to do
      this.fail(options.map(quote).join(" or "));
    }
    if (options.length === 0) this.fail("the end of the text (nothing may follow the end of the message)");
    const which = this.choose(options, `${options.map(quote).join(" or ")}${this.phase >= Phase.Responded ? " or the end of the text" : ""}`);
    if (which === WAIT) return WAIT;
    switch (options[which]) {
      case THINK_OPEN:
        this.reasoning = "";
        this.state = St.Think;
        break;
      case RESPONSE_OPEN:
        this.state = St.Response;
        break;
      case TOOLS_OPEN:
        this.state = St.Tools;
        break;
      case MESSAGE_CLOSE:
        this.phase = Phase.MessageClosed;
        break;
      default:
        this.phase = Phase.Stopped;
    }
    return DONE;
  }

  private callIndexDigits(): boolean {
    while (!this.atEnd) {
      const c = this.buf.charCodeAt(this.pos);
      const digit = c >= 0x30 && c <= 0x39;
      if (this.text === "" && (!digit || c === 0x30)) this.fail("a call index 1, 2, … (a digit 1-9)");
      if (!digit) {
        this.state = St.CallIndexSuffix;
        return DONE;
      }
      if (this.text.length === MAX_INDEX_DIGITS) this.fail(`the end of the call index (at most ${MAX_INDEX_DIGITS} digits)`);
      this.text += this.buf[this.pos];
      this.pos++;
    }
    if (this.ended) this.fail(this.text === "" ? "a call index 1, 2, … (a digit 1-9)" : `more digits or ${quote(CALL_OPEN_SUFFIX)}`);
    return WAIT;
  }

  private argumentsStart(): boolean {
    const options: string[] = [];
    if (this.callForm !== "json") options.push(ARGUMENT_OPEN_PREFIX);
    if (this.callForm === undefined) options.push(JSON_OPEN);
    options.push(CALL_CLOSE);
    const which = this.choose(options);
    if (which === WAIT) return WAIT;
    const chosen = options[which];
    if (chosen === ARGUMENT_OPEN_PREFIX) {
      this.callForm = "kv";
      this.text = "";
      this.textStart = this.offset();
      this.state = St.ArgKey;
    } else if (chosen === JSON_OPEN) {
      this.callForm = "json";
      this.text = "";
      this.textStart = this.offset();
      this.json = new JsonScanner();
      this.state = St.JsonForm;
    } else {
      this.finishCall();
    }
    return DONE;
  }

  private argumentType(): boolean {
    while (!this.atEnd) {
      const c = this.buf.charCodeAt(this.pos);
      if (c >= 0x61 && c <= 0x7a) {
        this.text += this.buf[this.pos];
        this.pos++;
        if (this.text.length > 7) break;
        continue;
      }
      break;
    }
    if (this.atEnd && !this.ended && this.text.length <= 7) return WAIT;
    if (!(ARGUMENT_TYPES as readonly string[]).includes(this.text)) {
      this.fail(`an argument type (${ARGUMENT_TYPES.join(", ")})`, quote(this.text), this.textStart);
    }
    this.argType = this.text as ArgumentType;
    this.state = St.ArgTypeSuffix;
    return DONE;
  }

  private finishCall(): void {
    if (this.callForm !== "json") this.argumentsDelta(this.argCount === 0 ? "{}" : "}");
    const call: ParsedToolCall = { index: this.callIndex, name: this.callName, arguments: this.args };
    this.calls.push(call);
    this.out.push({ type: "tool_call_end", index: call.index, name: call.name, arguments: call.arguments });
    this.state = St.ToolsAfterCall;
  }
}
