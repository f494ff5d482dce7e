/**
 * The streaming output parser of the layout families (layout.ts): reasoning, content, then tool
 * calls, read from a description of the family's markup ({@link ParserSyntax}) rather than coded
 * per family. Like the Kimi K3 parser it decides only what the text seen so far settles, so the
 * events are the same for every chunking, and it reports malformed output with the offset and
 * what was expected there.
 *
 * It is more forgiving than the grammars: wherever a family's template writes whitespace
 * between markers (written `\n` in the syntax), any run of whitespace, or none, is accepted;
 * whitespace before the first call and after the last is dropped; a trailing stop text is
 * accepted. Argument deltas: a call whose arguments are JSON after a header streams them one
 * code point at a time; a JSON envelope (`{"name": …, "arguments": …}`) or a markup body is read
 * whole and its arguments come as one piece per argument when the call closes.
 */
import type { FlatStyle } from "../compile/styles/index.js";
import { InternalError, InvalidArgumentError, OutputParseError } from "../errors.js";
import { isPlainObject } from "../format/json-path.js";
import type { JsonSchema } from "../format/types.js";
import { ArgumentKinds, readCohereArguments, readFlatArguments, readMiniMaxM3Arguments, setOwn } from "./argument-bodies.js";
import { DONE, WAIT, quote } from "./chunk-reader.js";
import { JsonScanner } from "./json-scanner.js";
import { OutputParserBase } from "./output-parser-base.js";
import type { ReasoningMarkers } from "./layout.js";
import type {
  FunctionTool, ParsedToolCall, ToolOutputParserOptions,
} from "./types.js";

/** One piece of a call header: literal text (`\n`: optional whitespace), or a field read up to its terminator. */
export type HeaderPiece =
  | { lit: string }
  /** The tool name, up to `name` (consumed). */
  | { name: string }
  /** The tool name, up to the first of `nameTo` or whitespace (not consumed). */
  | { nameTo: readonly string[] }
  /** The call index (digits), up to `index` (consumed). */
  | { index: string }
  /** When `maybe` comes next: it and everything up to `until` (not consumed) are skipped (a call id). */
  | { maybe: string; until: string };

/** How a call's arguments are written. */
export type ArgumentsSyntax = { kind: "json" } | { kind: "flat"; style: FlatStyle } | { kind: "cohere" } | { kind: "minimax_m3" };

/** How one call is written. */
export type CallSyntax =
  /** A JSON object holding the name and the arguments (`{"name": …, "arguments": …}`), between two literals. */
  | { kind: "envelope"; open: string; close: string; argumentKeys: readonly string[] }
  /** A header naming the tool, the arguments, the closing literal. */
  | { kind: "header"; header: readonly HeaderPiece[]; args: ArgumentsSyntax; close: string };

/** A family's output, for the parser. */
export interface ParserSyntax {
  family: string;
  reasoning: ReasoningMarkers | null;
  contentWithCalls: "before" | "alone";
  /** Texts the content may not contain. */
  contentExcludes: readonly string[];
  section?: { begin: string; end: string };
  /** Between calls (`\n`: optional whitespace). */
  separator: string;
  call: CallSyntax;
  /** Stop texts accepted at the end. */
  stops: readonly string[];
}

const enum St {
  Start, Reasoning, AfterReasoning, Content, Answer, CallsBegin, CallBegin, Lit, Header, Skip, JsonArgs, Body, Envelope, AfterCall, Trailing, Done,
}

function isWs(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

/** The text of a loose literal up to its first whitespace place: what must appear first. */
function firstSegment(lit: string): string {
  const i = lit.indexOf("\n");
  return i < 0 ? lit : lit.slice(0, i);
}

export class LayoutParser extends OutputParserBase {
  private readonly tools: ReadonlyMap<string, JsonSchema | null>;
  private state = St.Start;
  private pendingWs = "";
  private readonly contentMarkers: Array<{ text: string; role: "trigger" | "stop" | "forbidden" }>;
  private readonly markerStarts: Set<string>;
  /** The content is a JSON answer (response_format json_object / json_schema). */
  private readonly jsonAnswer: boolean;
  private answerDone = false;
  /** The first thing of a call: lets the parser see where the next call starts. */
  private readonly callTrigger: string;

  // A loose literal being read, and the state after it.
  private litText = "";
  private litSeg = 0;
  private litWs = false;
  private afterLit = St.Done;
  // The call being read.
  private piece = 0;
  private callName = "";
  private callIndex = 0;
  private writtenIndex: number | undefined;
  private callStart = 0;
  private json: JsonScanner | undefined;
  private body = "";
  private bodyStart = 0;

  constructor(private readonly syntax: ParserSyntax, options: ToolOutputParserOptions = {}) {
    super(options);
    if (this.mode !== "final_output_only" && syntax.reasoning === null) {
      throw new InvalidArgumentError(`options.reasoning: the ${syntax.family} family has no reasoning markers; only "final_output_only" applies`);
    }
    this.tools = toolSchemas(options.tools);
    const rf = options.response_format;
    this.jsonAnswer = rf !== undefined && rf !== null && (rf.type === "json_object" || rf.type === "json_schema");
    const call = syntax.call;
    this.callTrigger = firstSegment(call.kind === "envelope" ? (call.open === "" ? "{" : call.open) : "lit" in call.header[0]! ? call.header[0].lit : "");
    const markers: Array<{ text: string; role: "trigger" | "stop" | "forbidden" }> = [];
    if (syntax.contentWithCalls === "before") markers.push({ text: syntax.section ? firstSegment(syntax.section.begin) : this.callTrigger, role: "trigger" });
    for (const s of syntax.stops) markers.push({ text: s, role: "stop" });
    for (const s of syntax.contentExcludes) markers.push({ text: s, role: "forbidden" });
    if (syntax.reasoning) for (const s of [syntax.reasoning.open, syntax.reasoning.close]) markers.push({ text: s, role: "forbidden" });
    const seen = new Set<string>();
    this.contentMarkers = markers.filter((m) => m.text !== "" && !seen.has(m.text) && seen.add(m.text)).sort((a, b) => b.text.length - a.text.length);
    this.markerStarts = new Set(this.contentMarkers.map((m) => m.text[0]!));
  }

  private expectLiteral(text: string, next: St): void {
    this.litText = text;
    this.litSeg = 0;
    this.litWs = false;
    this.afterLit = next;
    this.state = St.Lit;
  }

  protected override afterSteps(): void {
    if (this.state === St.Done && !this.atEnd) this.fail("the end of the text");
  }

  protected endedWhereOutputEnds(): boolean {
    return this.state === St.Done;
  }

  protected describeState(): string {
    return `the ${this.syntax.family} parser stopped in state ${this.state}`;
  }

  protected step(): boolean {
    switch (this.state) {
      case St.Start:
        return this.start();
      case St.Reasoning:
        if (this.scanUntil(this.syntax.reasoning!.close, [this.syntax.reasoning!.open], "the reasoning", (ch) => {
          this.reasoning += ch;
          this.out.push({ type: "reasoning", text: ch });
        }) === WAIT) return WAIT;
        this.state = St.AfterReasoning;
        return DONE;
      case St.AfterReasoning:
        if (this.skipWs() === WAIT) return WAIT;
        this.state = St.Content;
        return DONE;
      case St.Content:
        return this.readContent();
      case St.Answer:
        return this.readAnswer();
      case St.CallsBegin:
        if (this.syntax.section) this.expectLiteral(this.syntax.section.begin, St.CallBegin);
        else this.state = St.CallBegin;
        return DONE;
      case St.CallBegin:
        return this.callBegin();
      case St.Lit:
        if (this.readLoose() === WAIT) return WAIT;
        this.state = this.afterLit;
        return DONE;
      case St.Header:
        return this.header();
      case St.Skip:
        return this.skipTo();
      case St.JsonArgs:
        return this.jsonArgs();
      case St.Body:
        return this.readBody();
      case St.Envelope:
        return this.envelope();
      case St.AfterCall:
        return this.afterCall();
      case St.Trailing:
        return this.trailing();
      default:
        return WAIT;
    }
  }

  private start(): boolean {
    const r = this.syntax.reasoning;
    if (this.mode === "think") {
      this.reasoning = "";
      this.state = St.Reasoning;
      return DONE;
    }
    if (this.mode === "auto" && r) {
      const rest = this.buf.slice(this.pos);
      if (rest.length < r.open.length && r.open.startsWith(rest) && !this.ended) return WAIT;
      if (this.buf.startsWith(r.open, this.pos)) {
        this.pos += r.open.length;
        this.reasoning = "";
        this.state = St.Reasoning;
        return DONE;
      }
    }
    this.state = St.Content;
    return DONE;
  }

  /** Text up to `terminator` (consumed), one code point at a time; fails at any of `forbidden`. */
  private scanUntil(terminator: string, forbidden: readonly string[], what: string, onChar: (ch: string) => void): boolean {
    const markers = [terminator, ...forbidden];
    const starts = new Set(markers.map((m) => m[0]!));
    while (!this.atEnd) {
      if (starts.has(this.buf[this.pos]!)) {
        if (this.buf.startsWith(terminator, this.pos)) {
          this.pos += terminator.length;
          return DONE;
        }
        const bad = forbidden.find((m) => this.buf.startsWith(m, this.pos));
        if (bad !== undefined) this.fail(`${quote(terminator)} (${what} may not contain ${quote(bad)})`, quote(bad));
        const rest = this.buf.length - this.pos;
        if (!this.ended && markers.some((m) => rest < m.length && m.startsWith(this.buf.slice(this.pos)))) return WAIT;
      }
      const ch = this.codePoint();
      if (ch === "") return WAIT;
      this.pos += ch.length;
      onChar(ch);
    }
    if (this.ended) this.fail(`${quote(terminator)} to end ${what}`);
    return WAIT;
  }

  private skipWs(): boolean {
    while (!this.atEnd && isWs(this.buf[this.pos])) this.pos++;
    return this.atEnd && !this.ended ? WAIT : DONE;
  }

  private readLoose(): boolean {
    const segs = this.litText.split("\n");
    while (this.litSeg < segs.length) {
      if (this.litWs) {
        if (this.skipWs() === WAIT) return WAIT;
        this.litWs = false;
      }
      const seg = segs[this.litSeg]!;
      if (seg !== "" && this.choose([seg]) === WAIT) return WAIT;
      this.litSeg++;
      this.litWs = this.litSeg < segs.length;
    }
    return DONE;
  }

  private emitContent(ch: string): void {
    this.content += ch;
    this.out.push({ type: "content", text: ch });
  }

  private flushWs(): void {
    for (const ch of this.pendingWs) this.emitContent(ch);
    this.pendingWs = "";
  }

  private readContent(): boolean {
    if (this.jsonAnswer && !this.answerDone && this.content === "" && this.pendingWs === "") {
      // A JSON answer may hold any marker text inside its strings: read it as JSON first.
      if (this.atEnd) {
        if (!this.ended) return WAIT;
      } else if (/[{["0-9tfn-]/.test(this.buf[this.pos]!) && !this.startsTrigger()) {
        this.json = new JsonScanner();
        this.state = St.Answer;
        return DONE;
      }
    }
    if (this.syntax.contentWithCalls === "alone" && this.content === "" && this.pendingWs === "") {
      // A message is calls or content: a call starts with `{`.
      if (this.atEnd) {
        if (!this.ended) return WAIT;
        this.state = St.Done;
        return DONE;
      }
      if (this.buf[this.pos] === "{") {
        this.state = St.CallsBegin;
        return DONE;
      }
    }
    while (!this.atEnd) {
      const c = this.buf[this.pos]!;
      if (this.markerStarts.has(c)) {
        const rest = this.buf.length - this.pos;
        for (const m of this.contentMarkers) {
          if (!this.buf.startsWith(m.text, this.pos)) continue;
          if (m.role === "forbidden") this.fail(`content text (it may not contain ${quote(m.text)})`, quote(m.text));
          this.flushWsForStop(m.role);
          if (m.role === "trigger") {
            this.state = St.CallsBegin;
          } else {
            this.pos += m.text.length;
            this.state = St.Trailing;
          }
          return DONE;
        }
        if (!this.ended && this.contentMarkers.some((m) => rest < m.text.length && m.text.startsWith(this.buf.slice(this.pos)))) return WAIT;
      }
      const ch = this.codePoint();
      if (ch === "") return WAIT;
      this.pos += ch.length;
      if (isWs(ch)) {
        this.pendingWs += ch;
      } else {
        this.flushWs();
        this.emitContent(ch);
      }
    }
    if (!this.ended) return WAIT;
    this.flushWs();
    this.state = St.Done;
    return DONE;
  }

  /** Whether the text here is (or may still become) a content marker (a call trigger that starts like JSON). */
  private startsTrigger(): boolean {
    const rest = this.buf.slice(this.pos);
    return this.contentMarkers.some((m) => rest.startsWith(m.text) || (!this.ended && m.text.startsWith(rest)));
  }

  /** A JSON answer, one code point of content at a time; then the content goes on as text. */
  private readAnswer(): boolean {
    const scanner = this.json!;
    while (!this.atEnd) {
      const unit = this.buf[this.pos]!;
      const inValue = this.feedJson(scanner, unit, " (the answer is JSON)");
      if (!inValue) break;
      this.pos++;
      // Whitespace waits for what follows: inside the value it is content, after it separation.
      if (isWs(unit)) {
        this.pendingWs += unit;
      } else {
        this.flushWs();
        this.emitContent(unit);
      }
    }
    if (this.atEnd && !this.ended) return WAIT;
    if (this.atEnd) {
      this.endJson(scanner, " (the answer is JSON)");
    }
    this.state = St.Content;
    this.answerDone = true;
    return DONE;
  }

  /** Whitespace before calls separates them from the content; before a stop it is content. */
  private flushWsForStop(role: "trigger" | "stop"): void {
    if (role === "stop") this.flushWs();
    else this.pendingWs = "";
  }

  private callBegin(): boolean {
    const call = this.syntax.call;
    this.callName = "";
    this.text = "";
    this.writtenIndex = undefined;
    this.callStart = this.offset();
    this.piece = 0;
    if (call.kind === "envelope") {
      this.json = new JsonScanner();
      this.text = "";
      this.expectLiteral(call.open, St.Envelope);
      return DONE;
    }
    this.state = St.Header;
    return DONE;
  }

  /** Reads a field into this.text up to the first of `terminators` (consumed when `consume`) or, unconsumed, whitespace. */
  private field(terminators: readonly string[], consume: boolean, what: string, ok: (ch: string) => boolean): boolean {
    while (!this.atEnd) {
      const t = terminators.find((x) => this.buf.startsWith(x, this.pos)) ?? (!consume && isWs(this.buf[this.pos]) ? "" : undefined);
      if (t !== undefined) {
        if (this.text === "") this.fail(`${what} (at least one character)`);
        if (consume) this.pos += t.length;
        return DONE;
      }
      const rest = this.buf.length - this.pos;
      if (!this.ended && terminators.some((x) => rest < x.length && x.startsWith(this.buf.slice(this.pos)))) return WAIT;
      const ch = this.codePoint();
      if (ch === "") return WAIT;
      if (!ok(ch)) this.fail(this.text === "" ? what : `more of ${what} or ${terminators.map(quote).join(" or ")}`);
      this.pos += ch.length;
      this.text += ch;
    }
    if (this.ended) this.fail(`the rest of ${what} and ${terminators.map(quote).join(" or ")}`);
    return WAIT;
  }

  private header(): boolean {
    const call = this.syntax.call as Extract<CallSyntax, { kind: "header" }>;
    if (this.piece >= call.header.length) return this.headerDone(call);
    const p = call.header[this.piece]!;
    if ("lit" in p) {
      this.piece++;
      this.expectLiteral(p.lit, St.Header);
      return DONE;
    }
    if ("maybe" in p) {
      const rest = this.buf.length - this.pos;
      if (!this.ended && rest < p.maybe.length && p.maybe.startsWith(this.buf.slice(this.pos))) return WAIT;
      if (this.buf.startsWith(p.maybe, this.pos)) {
        this.pos += p.maybe.length;
        this.piece++;
        this.call1 = p.until;
        this.state = St.Skip;
        return DONE;
      }
      this.piece++;
      return DONE;
    }
    let done: boolean;
    const named = (ch: string): boolean => !/[\u0000-\u001f]/.test(ch);
    if ("name" in p) done = this.field([p.name], true, "the tool name", named);
    else if ("nameTo" in p) done = this.field(p.nameTo, false, "the tool name", (ch) => named(ch) && !isWs(ch));
    else done = this.field([p.index], true, "the call index (digits)", (ch) => ch >= "0" && ch <= "9");
    if (done === WAIT) return WAIT;
    if ("index" in p) this.writtenIndex = Number(this.text);
    else this.callName = this.text;
    this.text = "";
    this.piece++;
    return DONE;
  }

  /** The terminator a skipped call id runs to. */
  private call1 = "";

  private skipTo(): boolean {
    while (!this.atEnd) {
      if (this.buf.startsWith(this.call1, this.pos)) {
        this.state = St.Header;
        return DONE;
      }
      const rest = this.buf.length - this.pos;
      if (!this.ended && rest < this.call1.length && this.call1.startsWith(this.buf.slice(this.pos))) return WAIT;
      const c = this.buf[this.pos]!;
      if (/[\u0000-\u001f]/.test(c)) this.fail(`the call id, then ${quote(this.call1)}`);
      this.pos++;
    }
    if (this.ended) this.fail(`the call id, then ${quote(this.call1)}`);
    return WAIT;
  }

  private headerDone(call: Extract<CallSyntax, { kind: "header" }>): boolean {
    this.callIndex = this.writtenIndex ?? this.calls.length;
    this.out.push({ type: "tool_call_start", index: this.callIndex, name: this.callName });
    if (call.args.kind === "json") {
      this.json = new JsonScanner();
      this.text = "";
      this.textStart = this.offset();
      this.state = St.JsonArgs;
    } else {
      this.body = "";
      this.bodyStart = this.offset();
      this.state = St.Body;
    }
    return DONE;
  }

  private argumentsDelta(text: string): void {
    this.emitArguments(this.callIndex, text);
  }

  /** JSON arguments after a header: streamed one code point at a time. */
  private jsonArgs(): boolean {
    const scanner = this.json!;
    while (!this.atEnd) {
      const unit = this.buf[this.pos]!;
      const inValue = this.feedJson(scanner, unit);
      if (!inValue) return this.jsonArgsDone();
      this.pos++;
      this.text += unit;
      this.emitArgumentsUnit(this.callIndex, unit);
    }
    if (!this.ended) return WAIT;
    this.endJson(scanner);
    return this.jsonArgsDone();
  }

  private jsonArgsDone(): boolean {
    this.flushArgumentsUnits(this.callIndex);
    const value: unknown = JSON.parse(this.text);
    if (!isPlainObject(value)) {
      this.fail("a JSON object (the call's arguments)", undefined, this.textStart + (this.text.length - this.text.trimStart().length));
    }
    const call = this.syntax.call as Extract<CallSyntax, { kind: "header" }>;
    this.finishCall(value);
    this.expectLiteral(call.close, St.AfterCall);
    return DONE;
  }

  /**
   * A markup body: the text up to the closing literal, read as the style says. A JSON value or a
   * raw value of another marker may hold the closing literal's text, so each occurrence is tried
   * in turn: the first one before which the body reads completely ends the call (a body cannot
   * read completely at an occurrence inside one of its values).
   */
  private readBody(): boolean {
    const call = this.syntax.call as Extract<CallSyntax, { kind: "header" }>;
    const close = firstSegment(call.close);
    const text = this.body + this.buf.slice(this.pos);
    for (let i = text.indexOf(close, this.searchFrom); i >= 0; i = text.indexOf(close, i + 1)) {
      let args: Record<string, unknown>;
      let pairs: Array<[string, unknown]>;
      try {
        pairs = this.readArguments(call.args, text.slice(0, i));
      } catch (err) {
        if (!(err instanceof OutputParseError)) throw err;
        this.bodyError = err;
        this.searchFrom = i + 1;
        continue;
      }
      args = {};
      pairs.forEach(([k, v], n) => {
        setOwn(args, k, v);
        this.argumentsDelta(`${n === 0 ? "{" : ","}${JSON.stringify(k)}:${JSON.stringify(v)}`);
      });
      this.argumentsDelta(pairs.length === 0 ? "{}" : "}");
      this.pos += i + close.length - this.body.length;
      this.body = "";
      this.searchFrom = 0;
      this.bodyError = undefined;
      this.finishCall(args, false);
      this.expectLiteral(call.close.slice(close.length), St.AfterCall);
      return DONE;
    }
    if (this.ended) {
      if (this.bodyError) throw this.bodyError;
      this.fail(`${quote(close)} to end the call of ${quote(this.callName)}`, undefined, this.offset() + (this.buf.length - this.pos));
    }
    // Keep what could be the start of the closing literal undecided.
    let keep = Math.min(close.length - 1, this.buf.length - this.pos);
    while (keep > 0 && !close.startsWith(this.buf.slice(this.buf.length - keep))) keep--;
    const upTo = this.buf.length - keep;
    this.body += this.buf.slice(this.pos, upTo);
    this.pos = upTo;
    this.searchFrom = Math.max(this.searchFrom, this.body.length - close.length + 1);
    return WAIT;
  }

  /** Why the body did not read at the last occurrence of the closing literal tried. */
  private bodyError: OutputParseError | undefined;

  /** Where the search for the closing literal resumes in the body. */
  private searchFrom = 0;

  private readArguments(args: ArgumentsSyntax, text: string): Array<[string, unknown]> {
    const schemas = new ArgumentKinds(this.tools.get(this.callName) ?? null);
    switch (args.kind) {
      case "flat":
        return readFlatArguments(args.style, text, this.bodyStart, schemas);
      case "cohere":
        return readCohereArguments(text, this.bodyStart);
      case "minimax_m3":
        return readMiniMaxM3Arguments(text, this.bodyStart, schemas);
      default:
        throw new InternalError("JSON arguments are not a markup body");
    }
  }

  /** A JSON envelope `{"name": …, "arguments": …}`, read whole. */
  private envelope(): boolean {
    const scanner = this.json!;
    if (this.text === "") this.textStart = this.offset();
    while (!this.atEnd) {
      const unit = this.buf[this.pos]!;
      const inValue = this.feedJson(scanner, unit);
      if (!inValue) return this.envelopeDone();
      this.pos++;
      this.text += unit;
    }
    if (!this.ended) return WAIT;
    this.endJson(scanner);
    return this.envelopeDone();
  }

  private envelopeDone(): boolean {
    const call = this.syntax.call as Extract<CallSyntax, { kind: "envelope" }>;
    const at = this.textStart + (this.text.length - this.text.trimStart().length);
    const value: unknown = JSON.parse(this.text);
    const keys = call.argumentKeys.map(quote).join(" or ");
    if (!isPlainObject(value)) this.fail(`a JSON object {"name": …, ${keys}: {…}}`, undefined, at);
    const name = value["name"];
    if (typeof name !== "string" || name === "") this.fail('a "name" member holding the tool name', undefined, at);
    const key = call.argumentKeys.find((k) => Object.hasOwn(value, k));
    const args = key === undefined ? undefined : value[key];
    if (!isPlainObject(args)) this.fail(`a ${keys} member holding the arguments object`, undefined, at);
    this.callName = name;
    this.callIndex = this.calls.length;
    this.out.push({ type: "tool_call_start", index: this.callIndex, name });
    this.argumentsDelta(JSON.stringify(args));
    this.finishCall(args, false);
    this.expectLiteral(call.close, St.AfterCall);
    return DONE;
  }

  private finishCall(args: Record<string, unknown>, _streamed = true): void {
    const call: ParsedToolCall = { index: this.callIndex, name: this.callName, arguments: args };
    this.calls.push(call);
    this.out.push({ type: "tool_call_end", index: call.index, name: call.name, arguments: args });
  }

  private afterCall(): boolean {
    if (this.skipWs() === WAIT) return WAIT;
    const { section, separator, stops } = this.syntax;
    const sep = separator.replace(/[ \t\r\n]/g, "");
    const options: string[] = [];
    const roles: string[] = [];
    if (section) {
      options.push(firstSegment(section.end));
      roles.push("end");
    }
    options.push(sep === "" ? this.callTrigger : sep);
    roles.push(sep === "" ? "call" : "sep");
    for (const s of stops) {
      options.push(s);
      roles.push("stop");
    }
    if (this.atEnd) {
      if (section) this.fail(quote(firstSegment(section.end)));
      this.state = St.Done;
      return DONE;
    }
    // Longest first, so a separator that is a prefix of another option does not win early.
    const order = options.map((_, i) => i).sort((a, b) => options[b]!.length - options[a]!.length);
    const which = this.choose(order.map((i) => options[i]!), `${options.map(quote).join(" or ")}${section ? "" : " or the end of the text"}`);
    if (which === WAIT) return WAIT;
    const role = roles[order[which]!]!;
    switch (role) {
      case "end":
        this.expectLiteral(section!.end.slice(firstSegment(section!.end).length), St.Trailing);
        break;
      case "call":
        this.pos -= this.callTrigger.length;
        this.state = St.CallBegin;
        break;
      case "sep":
        this.expectLiteral("\n", St.CallBegin);
        break;
      default:
        this.state = St.Trailing;
    }
    return DONE;
  }

  private trailing(): boolean {
    if (this.skipWs() === WAIT) return WAIT;
    if (this.atEnd) {
      this.state = St.Done;
      return DONE;
    }
    const which = this.choose(this.syntax.stops, `${[...this.syntax.stops].map(quote).join(" or ")} or the end of the text`);
    if (which === WAIT) return WAIT;
    if (this.skipWs() === WAIT) return WAIT;
    if (!this.atEnd) this.fail("the end of the text");
    this.state = St.Done;
    return DONE;
  }
}

/** The parameters schema of each tool by name (null: unconstrained). */
function toolSchemas(tools: readonly FunctionTool[] | undefined): Map<string, JsonSchema | null> {
  const out = new Map<string, JsonSchema | null>();
  if (tools === undefined) return out;
  if (!Array.isArray(tools)) throw new InvalidArgumentError("options.tools: expected the request's list of tools");
  for (const t of tools) {
    const fn = isPlainObject(t) && isPlainObject(t["function"]) ? t["function"] : undefined;
    if (!fn || typeof fn["name"] !== "string") continue;
    const params = fn["parameters"];
    out.set(fn["name"], fn["strict"] === false || params === undefined || params === true ? null : (params as JsonSchema));
  }
  return out;
}
