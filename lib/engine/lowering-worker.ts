/**
 * The worker thread that lowers structural tags and formats for compileGrammarAsync and
 * GrammarCompiler.compileAsync (lowering-pool.ts starts it): a format comes in, the serialized
 * grammar IR goes back (its buffer transferred, not copied), with progress messages on the way.
 * Its lowering cache lives as long as the worker, so requests that repeat tools lower fast.
 */
import { parentPort } from "node:worker_threads";
import { serializeGrammar } from "../compile/ir.js";
import { lowerFormat, type LowerOptions } from "../compile/lower.js";
import { parseJsonText } from "../format/json-text.js";
import type { Format, StructuralTag } from "../format/types.js";
import type { LoweringReply, LoweringRequest } from "./lowering-protocol.js";
import { describeError } from "./lowering-protocol.js";

const port = parentPort;
if (port === null) throw new Error("lowering-worker.js runs as a worker thread (lib/engine/lowering-pool.ts starts it)");

port.on("message", (request: LoweringRequest) => {
  const reply = (message: LoweringReply, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
  try {
    const options: LowerOptions = {
      onProgress: (done, total) => reply({ id: request.id, kind: "progress", done, total }),
    };
    if (request.simplify !== undefined) options.simplify = request.simplify;
    if (request.cache !== undefined) options.cache = request.cache;
    if (request.undeclared !== undefined) options.undeclared = request.undeclared;
    const format = request.text !== undefined ? parseJsonText(request.text) : request.format;
    const bytes = serializeGrammar(lowerFormat(format as StructuralTag | Format, options));
    reply({ id: request.id, kind: "done", bytes }, [bytes.buffer as ArrayBuffer]);
  } catch (err) {
    reply({ id: request.id, kind: "error", error: describeError(err) });
  }
});
