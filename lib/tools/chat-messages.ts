/**
 * The conversation a chat template renders: OpenAI-style `messages` checked and reduced to the
 * plain form every family's renderer reads (text content, parsed tool-call arguments, tool
 * results that know which call they answer). Bad messages are a `RequestError` (status 400)
 * whose `param` names the field, e.g. `messages[2].tool_calls[0].function.arguments`.
 */
import { RequestError } from "../errors.js";
import { describeValue, indexPath, isPlainObject, keyPath } from "../format/json-path.js";

/** A tool call of an earlier assistant message. */
export interface ChatToolCall {
  /** The call's id as the client sent it (`call_…`); generated when absent. */
  id: string;
  name: string;
  /** The arguments, parsed from the JSON string OpenAI clients send. */
  arguments: Record<string, unknown>;
  /** The arguments as the client wrote them (a JSON object text). */
  argumentsText: string;
}

/** One message of a conversation, after checking. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
    role: "assistant";
    content: string;
    /** The reasoning the model wrote before its answer (`reasoning_content`), when the client sends it back. */
    reasoning?: string;
    toolCalls: ChatToolCall[];
  }
  | {
    role: "tool";
    content: string;
    /** The id of the call this result answers. */
    toolCallId: string;
    /** The called tool's name (from the message, else from the call with that id). */
    name: string;
    /** The call's position in its assistant message (0-based). */
    callIndex: number;
    /** Whether `tool_call_id` named the call (else it was matched by order). */
    byId: boolean;
  };

const ROLES = ["system", "developer", "user", "assistant", "tool"];

function fail(param: string, message: string): never {
  throw new RequestError(400, `${param}: ${message}`, { param });
}

/** Text content: a string, or a list of `{type: "text", text}` parts joined; null only where allowed. */
function readContent(value: unknown, param: string, nullable: boolean): string {
  if (typeof value === "string") return value;
  if ((value === null || value === undefined) && nullable) return "";
  if (Array.isArray(value)) {
    return value.map((part, i) => {
      const at = indexPath(param, i);
      if (!isPlainObject(part)) fail(at, `expected a content part {"type": "text", "text": "…"}, found ${describeValue(part)}`);
      if (part.type !== "text") fail(keyPath(at, "type"), `only text content parts are supported, found ${describeValue(part.type)}`);
      if (typeof part.text !== "string") fail(keyPath(at, "text"), `expected a string, found ${describeValue(part.text)}`);
      return part.text;
    }).join("");
  }
  fail(param, `expected a string or a list of text parts${nullable ? " (or null)" : ""}, found ${describeValue(value)}`);
}

function readToolCall(value: unknown, param: string, position: number): ChatToolCall {
  if (!isPlainObject(value)) fail(param, `expected a tool call {id, type: "function", function: {name, arguments}}, found ${describeValue(value)}`);
  if (value.type !== undefined && value.type !== "function") fail(keyPath(param, "type"), `expected "function", found ${describeValue(value.type)}`);
  const fn = value.function;
  const fnParam = keyPath(param, "function");
  if (!isPlainObject(fn)) fail(fnParam, `expected {name, arguments}, found ${describeValue(fn)}`);
  if (typeof fn.name !== "string" || fn.name === "") fail(keyPath(fnParam, "name"), `expected a non-empty string, found ${describeValue(fn.name)}`);
  const argsParam = keyPath(fnParam, "arguments");
  let args: unknown = fn.arguments ?? {};
  let argumentsText: string;
  if (typeof args === "string") {
    argumentsText = args;
    try {
      args = JSON.parse(args === "" ? "{}" : args);
    } catch (err) {
      fail(argsParam, `expected a JSON object text, but it does not parse (${(err as Error).message})`);
    }
  } else {
    argumentsText = JSON.stringify(args);
  }
  if (!isPlainObject(args)) fail(argsParam, `expected a JSON object, found ${describeValue(args)}`);
  const id = value.id === undefined || value.id === null ? `call_${position}` : value.id;
  if (typeof id !== "string") fail(keyPath(param, "id"), `expected a string, found ${describeValue(id)}`);
  return { id, name: fn.name, arguments: args, argumentsText };
}

/**
 * Checks OpenAI-style chat messages and returns the conversation in the renderers' form:
 * `developer` becomes `system`, text parts are joined, tool-call arguments are parsed, and every
 * tool result is matched to the call it answers (by `tool_call_id`, else the next unanswered
 * call) so that templates that need the tool's name or the call's position have them.
 */
export function normalizeConversation(messages: unknown, param = "messages"): ChatMessage[] {
  if (!Array.isArray(messages)) fail(param, `expected a list of messages, found ${describeValue(messages)}`);
  if (messages.length === 0) fail(param, "expected at least one message");
  const out: ChatMessage[] = [];
  // The calls of the latest assistant message, for matching tool results.
  let calls: ChatToolCall[] = [];
  const answered = new Set<number>();
  messages.forEach((message, i) => {
    const at = indexPath(param, i);
    if (!isPlainObject(message)) fail(at, `expected a message {role, content}, found ${describeValue(message)}`);
    const role = message.role;
    if (typeof role !== "string" || !ROLES.includes(role)) fail(keyPath(at, "role"), `expected one of ${ROLES.join(", ")}, found ${describeValue(role)}`);
    const contentParam = keyPath(at, "content");
    switch (role) {
      case "system":
      case "developer":
        out.push({ role: "system", content: readContent(message.content, contentParam, false) });
        return;
      case "user":
        out.push({ role: "user", content: readContent(message.content, contentParam, false) });
        return;
      case "assistant": {
        const list = message.tool_calls ?? [];
        const listParam = keyPath(at, "tool_calls");
        if (!Array.isArray(list)) fail(listParam, `expected a list of tool calls, found ${describeValue(list)}`);
        const toolCalls = list.map((c, k) => readToolCall(c, indexPath(listParam, k), k));
        const content = readContent(message.content, contentParam, true);
        const reasoning = message.reasoning_content ?? message.reasoning;
        if (reasoning !== undefined && reasoning !== null && typeof reasoning !== "string") {
          fail(keyPath(at, message.reasoning_content === undefined ? "reasoning" : "reasoning_content"), `expected a string, found ${describeValue(reasoning)}`);
        }
        out.push({ role: "assistant", content, toolCalls, ...(typeof reasoning === "string" ? { reasoning } : {}) });
        calls = toolCalls;
        answered.clear();
        return;
      }
      default: {
        const content = readContent(message.content, contentParam, false);
        const idValue = message.tool_call_id;
        if (idValue !== undefined && idValue !== null && typeof idValue !== "string") fail(keyPath(at, "tool_call_id"), `expected a string, found ${describeValue(idValue)}`);
        let callIndex = typeof idValue === "string" ? calls.findIndex((c) => c.id === idValue) : -1;
        const byId = callIndex >= 0;
        if (callIndex < 0) callIndex = calls.findIndex((_, k) => !answered.has(k));
        if (callIndex < 0) {
          fail(at, typeof idValue === "string"
            ? `this tool result answers call ${JSON.stringify(idValue)}, but no earlier assistant message made a call with that id`
            : "a tool result must follow an assistant message with tool_calls (and say which one in tool_call_id)");
        }
        answered.add(callIndex);
        const call = calls[callIndex]!;
        const name = typeof message.name === "string" && message.name !== "" ? message.name : call.name;
        out.push({ role: "tool", content, toolCallId: call.id, name, callIndex, byId });
      }
    }
  });
  return out;
}
