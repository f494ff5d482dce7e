/**
 * The Kimi K3 chat format's markers and the fixed texts built from them (spec: outline.md,
 * "The Kimi K3 tool-call format"). Vocabulary and integration code use the exported constants
 * to register the markers as special tokens and to stop generation.
 */

/** `<|open|>`: opens a channel, a call, an argument or a JSON object form. */
export const OPEN = "<|open|>";
/** `<|sep|>`: ends an opening or closing marker's header. */
export const SEP = "<|sep|>";
/** `<|close|>`: starts a closing marker. */
export const CLOSE = "<|close|>";
/** `<|end_of_msg|>`: ends the message; the model's stop text. */
export const END_OF_MSG = "<|end_of_msg|>";

/** The four Kimi K3 markers, each a special token of the family's tokenizer. */
export const KIMI_K3_MARKERS: readonly string[] = [OPEN, SEP, CLOSE, END_OF_MSG];
/** The text that ends a Kimi K3 message: generation stops at it. */
export const KIMI_K3_STOP = END_OF_MSG;

/** `<|open|>NAME<|sep|>`. */
export function openChannel(name: string): string {
  return `${OPEN}${name}${SEP}`;
}

/** `<|close|>NAME<|sep|>`. */
export function closeChannel(name: string): string {
  return `${CLOSE}${name}${SEP}`;
}

export const THINK_OPEN = openChannel("think");
export const THINK_CLOSE = closeChannel("think");
export const RESPONSE_OPEN = openChannel("response");
export const RESPONSE_CLOSE = closeChannel("response");
export const TOOLS_OPEN = openChannel("tools");
export const TOOLS_CLOSE = closeChannel("tools");
export const MESSAGE_CLOSE = closeChannel("message");
export const CALL_CLOSE = closeChannel("call");
export const ARGUMENT_CLOSE = closeChannel("argument");
export const JSON_OPEN = `${OPEN}json type="object"${SEP}`;
export const JSON_CLOSE = closeChannel("json");
/** What comes before a call's tool name. */
export const CALL_OPEN_PREFIX = `${OPEN}call tool="`;
/** Between a call's tool name and its index. */
export const CALL_INDEX_PREFIX = `" index="`;
/** After a call's index. */
export const CALL_OPEN_SUFFIX = `"${SEP}`;
/** What comes before an argument's key. */
export const ARGUMENT_OPEN_PREFIX = `${OPEN}argument key="`;
/** Between an argument's key and its type. */
export const ARGUMENT_TYPE_PREFIX = `" type="`;
/** After an argument's type. */
export const ARGUMENT_OPEN_SUFFIX = `"${SEP}`;

/** The argument types of the format: integers are written as `number`. */
export const ARGUMENT_TYPES = ["string", "number", "boolean", "null", "object", "array"] as const;
export type ArgumentType = (typeof ARGUMENT_TYPES)[number];

/** An attribute value as written between double quotes: `&` → `&amp;`, `"` → `&quot;`. */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}
