/**
 * Files named on the command line, read whole. A file that cannot be read, or that holds bad
 * JSON, is one line naming the option, the file and why (exit code 2).
 */
import { readFileSync } from "node:fs";
import { InvalidArgumentError, TagmaskError } from "../errors.js";
import { parseJsonText } from "../format/json-text.js";

/** `read(file)`, or the one-line error naming `option` and the file. */
function readWhole<T>(file: string, option: string, read: (file: string) => T): T {
  try {
    return read(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (err as Error).message;
    throw new InvalidArgumentError(`${option} ${file}: cannot read the file (${why})`);
  }
}

/** The bytes of the file given to `option` (e.g. `--input`). */
export function readOptionBytes(file: string, option: string): Uint8Array {
  return readWhole(file, option, (f) => readFileSync(f));
}

/** The text of the file given to `option`, decoded as UTF-8. */
export function readOptionText(file: string, option: string): string {
  return readWhole(file, option, (f) => readFileSync(f, "utf8"));
}

/** The JSON value in the file given to `option`; bad JSON is reported with its line and column. */
export function readOptionJson(file: string, option: string): unknown {
  const text = readOptionText(file, option);
  try {
    return parseJsonText(text);
  } catch (err) {
    if (err instanceof TagmaskError) throw new InvalidArgumentError(`${option} ${file}: invalid JSON: ${err.message}`);
    throw err;
  }
}
