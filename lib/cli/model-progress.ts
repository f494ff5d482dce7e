/**
 * Progress of the tiny model's generation on stderr, for `tagmask demo` and
 * `tagmask make-tiny-model`: the vocabulary read, the megabytes written (a few lines, not one per
 * chunk), the load check; then where the file is cached.
 */
import type { TinyModelProgress } from "../integrations/node-llama-cpp/tiny-model.js";
import type { CliIO } from "./command.js";

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/** An `onProgress` for ensureTinyModel that writes `tagmask NAME: …` lines to `io.stderr`. */
export function modelProgress(io: CliIO, name: string, path: string): (p: TinyModelProgress) => void {
  const say = (line: string): void => {
    io.stderr.write(`tagmask ${name}: ${line}\n`);
  };
  let nextQuarter = 1;
  return (p) => {
    switch (p.phase) {
      case "vocabulary":
        say(`generating the tiny model (first run only) into ${path}`);
        say(`vocabulary: ${p.tokens} tokens, ${p.merges} merges from ${p.source}`);
        return;
      case "write":
        // One line per quarter of the file: readable in a log, alive on a terminal.
        while (nextQuarter <= 4 && p.bytesWritten >= (p.totalBytes * nextQuarter) / 4) {
          say(`written ${mb(Math.min(p.bytesWritten, (p.totalBytes * nextQuarter) / 4))} of ${mb(p.totalBytes)}`);
          nextQuarter++;
        }
        return;
      case "probe":
        say("checking that node-llama-cpp loads it");
        return;
    }
  };
}
