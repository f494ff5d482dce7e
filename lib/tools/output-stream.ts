/**
 * A model family's output parsed as it streams in, as an async iterator of events:
 *
 *     for await (const event of parseToolOutputStream("kimi-k3", chunks)) { ... }
 *
 * `chunks` is any (async) iterable of text pieces (node-llama-cpp's text chunks, an HTTP
 * response body of UTF-8 bytes, an array); how the text is split never changes the events.
 */
import { InvalidArgumentError } from "../errors.js";
import { describeValue } from "../format/json-path.js";
import { createToolOutputParser } from "./families.js";
import type { ParsedToolOutput, ToolOutputEvent, ToolOutputParserOptions } from "./types.js";

/** What {@link parseToolOutputStream} reads: strings, or UTF-8 bytes (a character may span chunks). */
export type ToolOutputChunks = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/**
 * Yields the events of `family`'s output parser as `chunks` arrive; the generator's return value
 * (for callers of `next()`) is the whole parsed output. Malformed output throws an
 * `OutputParseError` where it goes wrong; output that ends early throws one at the end. An
 * unknown family throws a `ToolError` on the first `next()`.
 *
 * @example
 * for await (const event of parseToolOutputStream("kimi-k3", textChunks)) {
 *   if (event.type === "content") process.stdout.write(event.text);
 *   if (event.type === "tool_call_end") console.log(event.name, event.arguments);
 * }
 */
export async function* parseToolOutputStream(
  family: string,
  chunks: ToolOutputChunks,
  options?: ToolOutputParserOptions,
): AsyncGenerator<ToolOutputEvent, ParsedToolOutput, undefined> {
  const parser = createToolOutputParser(family, options);
  if (chunks === null || typeof chunks !== "object" || !(Symbol.asyncIterator in chunks || Symbol.iterator in chunks)) {
    throw new InvalidArgumentError(`parseToolOutputStream(family, chunks): expected an iterable or async iterable of strings or Uint8Arrays, found ${describeValue(chunks)}`);
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let index = 0;
  let pendingBytes = false;
  const decode = (bytes: Uint8Array, stream: boolean): string => {
    try {
      return decoder.decode(bytes, { stream });
    } catch {
      throw new InvalidArgumentError(`parseToolOutputStream: chunk ${index} is not valid UTF-8`);
    }
  };
  for await (const chunk of chunks) {
    let text: string;
    if (typeof chunk === "string") {
      if (pendingBytes) text = decode(new Uint8Array(0), false) + chunk;
      else text = chunk;
      pendingBytes = false;
    } else if (chunk instanceof Uint8Array) {
      text = decode(chunk, true);
      pendingBytes = true;
    } else {
      throw new InvalidArgumentError(`parseToolOutputStream: chunk ${index}: expected a string or a Uint8Array, found ${describeValue(chunk)}`);
    }
    index++;
    for (const event of parser.push(text)) yield event;
  }
  if (pendingBytes) {
    const rest = decode(new Uint8Array(0), false);
    for (const event of parser.push(rest)) yield event;
  }
  for (const event of parser.end()) yield event;
  return parser.result();
}
