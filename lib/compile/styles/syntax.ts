/**
 * The argument styles of `json_schema.style`: how a model family writes a tool call's arguments
 * when they are not one JSON object. Defined once here and shared by the style lowering
 * (lib/compile/styles) and the output parsers (lib/tools), so the grammar and the parser agree
 * on every marker. docs/compatibility.md ("json_schema argument styles") describes each one.
 */

import { ARGUMENT_STYLES, type ArgumentStyle } from "../../format/styles.js";

export { ARGUMENT_STYLES };
export type { ArgumentStyle };

/** The styles that write one tag per top-level argument, values as raw text or JSON. */
export type FlatStyleName = "qwen_xml" | "minimax_xml" | "deepseek_xml" | "deepseek_v4_1_xml" | "glm_xml" | "kimi_k3_xml";

/**
 * How a flat style tags a value:
 * - `untagged`: nothing says the value's type; a raw value is decoded as JSON when its trimmed
 *   text is a JSON value of a type the schema allows other than string (see valueKinds.ts);
 * - `string-flag`: `string="true"` before a raw string, `string="false"` before JSON;
 * - `json-type`: `type="string|number|boolean|null|object|array"` before the value.
 */
export type ValueTagging = "untagged" | "string-flag" | "json-type";

/** A flat style's markers. `KEY` is the (encoded) argument name, `T` the value tag. */
export interface FlatStyle {
  name: FlatStyleName;
  /** Text before the key. */
  keyOpen: string;
  /** Text that ends the key (the parser reads the key up to it). */
  keyEnd: string;
  tagging: ValueTagging;
  /** After keyEnd (and the tag, if any), before the value; may hold `\n` meaning optional whitespace (glm). */
  valueOpen: string;
  /** Ends the value: a raw value may never contain it. */
  close: string;
  /** A raw string loses one leading and one trailing `\n` when read (Qwen writes values on their own lines). */
  stripNewlines: boolean;
  /** Attribute escaping of keys (`&amp;`, `&quot;`), as Kimi K3 writes them. */
  escapesKeys: boolean;
  /** Keys not declared in the schema (additional arguments): a regex over their written form. */
  freeKey: string;
}

const IDENTIFIER = "[a-zA-Z_][a-zA-Z0-9_]*";

/** The flat styles by name. */
export const FLAT_STYLES: Readonly<Record<FlatStyleName, FlatStyle>> = {
  qwen_xml: {
    name: "qwen_xml", keyOpen: "<parameter=", keyEnd: ">", tagging: "untagged", valueOpen: "", close: "</parameter>",
    stripNewlines: true, escapesKeys: false, freeKey: IDENTIFIER,
  },
  minimax_xml: {
    name: "minimax_xml", keyOpen: '<parameter name="', keyEnd: '">', tagging: "untagged", valueOpen: "", close: "</parameter>",
    stripNewlines: false, escapesKeys: false, freeKey: IDENTIFIER,
  },
  deepseek_xml: {
    name: "deepseek_xml", keyOpen: "<\uff5cDSML\uff5cparameter name=\"", keyEnd: '" string="', tagging: "string-flag", valueOpen: "\">",
    close: "</\uff5cDSML\uff5cparameter>", stripNewlines: false, escapesKeys: false, freeKey: IDENTIFIER,
  },
  // DeepSeek V4.1 writes a space after the DSML marker in its tag names.
  deepseek_v4_1_xml: {
    name: "deepseek_v4_1_xml", keyOpen: "<\uff5cDSML\uff5c parameter name=\"", keyEnd: '" string="', tagging: "string-flag", valueOpen: "\">",
    close: "</\uff5cDSML\uff5c parameter>", stripNewlines: false, escapesKeys: false, freeKey: IDENTIFIER,
  },
  glm_xml: {
    name: "glm_xml", keyOpen: "<arg_key>", keyEnd: "</arg_key>", tagging: "untagged", valueOpen: "\n<arg_value>", close: "</arg_value>",
    stripNewlines: false, escapesKeys: false, freeKey: IDENTIFIER,
  },
  kimi_k3_xml: {
    name: "kimi_k3_xml", keyOpen: '<|open|>argument key="', keyEnd: '" type="', tagging: "json-type", valueOpen: '"<|sep|>',
    close: "<|close|>argument<|sep|>", stripNewlines: false, escapesKeys: true, freeKey: '(?:[^"&\\u0000-\\u001f\\u007f]|&amp;|&quot;)+',
  },
};

/** Cohere's recursive values: `<cofl:value name="KEY" type="raw|json|dict|list">BODY</cofl:value>`. */
export const COHERE = {
  open: "<cofl:value",
  name: ' name="',
  type: ' type="',
  headerEnd: '">',
  close: "</cofl:value>",
  types: ["raw", "json", "dict", "list"] as const,
} as const;

/** MiniMax M3's recursive elements: `NS<KEY>VALUE NS</KEY>` with NS the namespace marker. */
export const MINIMAX_M3 = {
  ns: "]<]minimax[>[",
  item: "item",
} as const;

/** The JSON whitespace characters. */
export const JSON_WS = " \t\n\r";

/** Whether `s` is a JSON whitespace character. */
export function isJsonWhitespace(s: string): boolean {
  return s === " " || s === "\t" || s === "\n" || s === "\r";
}

/** Kimi K3's attribute escaping: `&` → `&amp;`, `"` → `&quot;`. */
export function escapeAttribute(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}

/** Cohere's key escaping: `&`, `<`, `>`, `"` as entities. */
export function escapeCohereKey(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A key as a flat style writes it, or null when the style cannot write it (it holds the key's end). */
export function encodeFlatKey(style: FlatStyle, key: string): string | null {
  const written = style.escapesKeys ? escapeAttribute(key) : key;
  if (written === "" || written.includes(style.keyEnd) || /[\u0000-\u001f]/.test(written)) return null;
  if (!style.escapesKeys && style.keyEnd.startsWith('"') && written.includes('"')) return null;
  return written;
}

/** The value a flat style's raw text stands for (Qwen drops one `\n` on each side). */
export function decodeRawString(style: FlatStyle, raw: string): string {
  if (!style.stripNewlines) return raw;
  let s = raw;
  if (s.startsWith("\n")) s = s.slice(1);
  if (s.endsWith("\n")) s = s.slice(0, -1);
  return s;
}
