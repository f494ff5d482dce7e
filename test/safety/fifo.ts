/** A FIFO (named pipe) that nothing writes to: opening it for reading would wait forever. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Makes `no-writer.fifo` in `dir` (once) and returns its path. */
export function mkfifoSync(dir: string): string {
  const path = join(dir, "no-writer.fifo");
  if (!existsSync(path)) execFileSync("mkfifo", [path]);
  return path;
}
