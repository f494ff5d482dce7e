/**
 * Reading a whole file that must be a regular file of bounded size. A device (`/dev/zero`) would
 * be read forever and a FIFO without a writer would block the thread forever, so both are
 * refused; so is a file past the size limit. Callers wrap the reason into their own typed error.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** The default limit: 256 MiB (tokenizer.json files are tens of MiB at most). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Why a file could not be read (`why` is a short phrase, e.g. "no such file"). */
export class FileReadFailure extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO or pipe";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "a special file";
}

/** The bytes of the regular file `path` (at most `limit` of them); throws a FileReadFailure. */
export function readRegularFile(path: string, limit = MAX_FILE_BYTES): Uint8Array {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO that has no writer returns at once (it is refused below)
    // instead of waiting for a writer forever. It changes nothing for a regular file.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new FileReadFailure(code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (err as Error).message);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new FileReadFailure("it is a directory");
    if (!stats.isFile()) throw new FileReadFailure(`it is ${kindOf(stats)}, not a regular file`);
    if (stats.size > limit) throw new FileReadFailure(`it has ${stats.size} bytes, more than the limit of ${limit}`);
    // Read until the end, never past the limit: the size can change while reading (and files
    // such as those in /proc report 0).
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(stats.size - total, 64 * 1024), limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > limit) throw new FileReadFailure(`it has more than the limit of ${limit} bytes`);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } catch (err) {
    if (err instanceof FileReadFailure) throw err;
    throw new FileReadFailure((err as Error).message);
  } finally {
    closeSync(fd);
  }
}
