/**
 * The messages between the lowering worker (lowering-worker.ts) and the thread that uses it
 * (lowering-pool.ts), and how a typed error crosses between them: its class name, message,
 * stack and own fields go over, and the same class comes back out.
 */
import {
  AbortError, FormatError, GrammarError, InternalError, InvalidArgumentError, SchemaError, TagmaskError, ToolError,
} from "../errors.js";
import type { SimplifyOptions } from "../compile/simplify.js";

/**
 * A format to lower: the value itself (structured-cloned), or, when it may hold numbers a double
 * cannot (format/exact-numbers.ts, which a clone would lose), its exact JSON text.
 */
export interface LoweringRequest {
  id: number;
  format?: unknown;
  text?: string;
  simplify?: boolean | SimplifyOptions;
  cache?: boolean;
  undeclared?: "forbid" | "allow";
}

/** An error as it crosses threads. */
export interface DescribedError {
  name: string;
  message: string;
  stack: string | undefined;
  fields: Record<string, unknown>;
}

export type LoweringReply =
  | { id: number; kind: "progress"; done: number; total: number }
  | { id: number; kind: "done"; bytes: Uint8Array }
  | { id: number; kind: "error"; error: DescribedError };

/** The classes an error of the lowering can have, by name (the rest become InternalErrors). */
const CLASSES: Record<string, new (...args: never[]) => Error> = {
  TagmaskError, FormatError, GrammarError, SchemaError, ToolError, InvalidArgumentError, InternalError, AbortError,
};

/** An error as plain data (structured-clone safe). */
export function describeError(err: unknown): DescribedError {
  if (!(err instanceof Error)) return { name: "InternalError", message: `lowering failed: ${String(err)}`, stack: undefined, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(err)) {
    if (value === undefined || value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  }
  return { name: err.name, message: err.message, stack: err.stack, fields };
}

/**
 * The error again, of its class (a GrammarError keeps its line and column, a SchemaError its
 * schema path). An error of another kind (a bug) comes back as an InternalError.
 */
export function reviveError(described: DescribedError): Error {
  const cls = Object.hasOwn(CLASSES, described.name) ? CLASSES[described.name]! : undefined;
  if (cls === undefined) {
    const err = new InternalError(`the lowering worker failed: ${described.name}: ${described.message}`);
    if (described.stack !== undefined) err.stack = described.stack;
    return err;
  }
  // Built without running the constructor, which would prefix the path to the message again.
  const err = Object.create(cls.prototype) as Error;
  Object.assign(err, described.fields);
  Object.defineProperty(err, "message", { value: described.message, writable: true, configurable: true });
  if (described.stack !== undefined) Object.defineProperty(err, "stack", { value: described.stack, writable: true, configurable: true });
  return err;
}
