/**
 * Files named on the command line, read whole. A file that cannot be read, that is not a regular
 * file, that is too large, that is not UTF-8 text where text is expected, or that holds bad JSON
 * is one line naming the option, the file and why (exit code 2).
 *
 * Only regular files are read: a device (`/dev/zero`) would be read forever and a FIFO without a
 * writer would block forever. Commands that read a stream take it on stdin instead.
 */
import { FormatError, InvalidArgumentError, TagmaskError } from "../errors.js";
import { parseJsonText } from "../format/json-text.js";
import { FileReadFailure, MAX_FILE_BYTES, readRegularFile } from "../regular-file.js";

/** The largest file an option reads: 256 MiB (tokenizer.json files are tens of MiB at most). */
export const MAX_OPTION_FILE_BYTES = MAX_FILE_BYTES;

/** The bytes of the file given to `option` (e.g. `--input`): a regular file of at most `limit` bytes. */
export function readOptionBytes(file: string, option: string, limit = MAX_OPTION_FILE_BYTES): Uint8Array {
  try {
    return readRegularFile(file, limit);
  } catch (err) {
    if (err instanceof FileReadFailure) throw new InvalidArgumentError(`${option} ${file}: cannot read the file (${err.why})`);
    throw err;
  }
}

/**
 * The offset of the first byte of `bytes` that does not belong to well-formed UTF-8 (overlong
 * forms, surrogates and code points past U+10FFFF included), or -1.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // no overlong forms
      if (b === 0xed) hi = 0x9f; // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // no overlong forms
      if (b === 0xf4) hi = 0x8f; // nothing past U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** Line and column (1-based; the column in bytes) of byte `offset`. */
function byteLineColumn(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The text of the file given to `option`. It must be UTF-8: invalid bytes are refused with their
 * offset rather than silently replaced by U+FFFD (which would change what is matched).
 */
export function readOptionText(file: string, option: string, limit = MAX_OPTION_FILE_BYTES): string {
  return utf8Text(readOptionBytes(file, option, limit), `${option} ${file}`);
}

/** `bytes` decoded as strict UTF-8; `source` names them in the error ("--input a.txt", "standard input"). */
function utf8Text(bytes: Uint8Array, source: string): string {
  const bad = invalidUtf8Offset(bytes);
  if (bad >= 0) {
    const { line, column } = byteLineColumn(bytes, bad);
    const shown = Array.from(bytes.subarray(bad, bad + 4), (x) => x.toString(16).padStart(2, "0")).join(" ");
    throw new InvalidArgumentError(
      `${source}: not UTF-8 text: invalid byte sequence at byte ${bad} (line ${line}, column ${column}: ${shown}); ` +
        "save it as UTF-8",
    );
  }
  return decoder.decode(bytes);
}

/**
 * Standard input read to its end, at most `limit` bytes: `tagmask match < /dev/zero` stops at the
 * limit with a one-line error instead of filling the memory.
 */
export async function readStdinBytes(stdin: NodeJS.ReadableStream, limit = MAX_OPTION_FILE_BYTES): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk as Uint8Array);
    total += bytes.length;
    if (total > limit) {
      // Stop reading: a stream that never ends would otherwise keep the process busy.
      if ("destroy" in stdin && typeof stdin.destroy === "function") stdin.destroy();
      throw new InvalidArgumentError(
        `standard input: more than ${limit} bytes; pass a smaller text (or a file with --input, which has the same limit)`,
      );
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/** Standard input as strict UTF-8 text (at most `limit` bytes); invalid bytes are refused, not replaced. */
export async function readStdinText(stdin: NodeJS.ReadableStream, limit = MAX_OPTION_FILE_BYTES): Promise<string> {
  return utf8Text(await readStdinBytes(stdin, limit), "standard input");
}

/** The JSON value in the file given to `option`; bad JSON is reported with its line and column. */
export function readOptionJson(file: string, option: string, limit = MAX_OPTION_FILE_BYTES): unknown {
  const text = readOptionText(file, option, limit);
  try {
    return parseJsonText(text);
  } catch (err) {
    if (err instanceof FormatError) throw new InvalidArgumentError(`${option} ${file}: invalid JSON: ${shortPathMessage(err)}`);
    if (err instanceof TagmaskError) throw new InvalidArgumentError(`${option} ${file}: invalid JSON: ${err.message}`);
    throw err;
  }
}

/** Characters of a JSON path shown in a message (a value nested 1000 deep has a path of thousands). */
const SHOWN_PATH_CHARS = 120;

function shortPathMessage(err: FormatError): string {
  if (err.path.length <= SHOWN_PATH_CHARS || !err.message.startsWith(`${err.path}: `)) return err.message;
  return `${err.path.slice(0, SHOWN_PATH_CHARS)}…: ${err.message.slice(err.path.length + 2)}`;
}
