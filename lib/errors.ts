/**
 * The typed errors tagmask throws. Every error is a {@link TagmaskError} with a stable `code`;
 * messages name where the problem is (a JSON path, a byte offset, a line and column) and what
 * was expected.
 */

/** Base class of every error tagmask throws. */
export class TagmaskError extends Error {
  /** Stable machine-readable code, e.g. `TAGMASK_INVALID_ARGUMENT`. */
  readonly code: string;
  constructor(message: string, code = "TAGMASK_ERROR") {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A function was called with a bad value: wrong buffer size, token id out of range, bad option. */
export class InvalidArgumentError extends TagmaskError {
  constructor(message: string) {
    super(message, "TAGMASK_INVALID_ARGUMENT");
  }
}

/** Longest path shown whole in a message; `path` fields always hold the whole path. */
const SHOWN_PATH = 200;

/** A path for a message: a very long one (a value nested a thousand levels deep) keeps its two ends. */
function shownPath(path: string): string {
  if (path.length <= SHOWN_PATH) return path;
  return `${path.slice(0, 120)}…${path.slice(-60)} (${path.length} characters)`;
}

/** A structural tag (format tree) is malformed. `path` is the JSON path of the bad value. */
export class FormatError extends TagmaskError {
  readonly path: string;
  constructor(path: string, message: string) {
    super(path ? `${shownPath(path)}: ${message}` : message, "TAGMASK_INVALID_FORMAT");
    this.path = path;
  }
}

/**
 * A grammar could not be built: a regex or EBNF syntax error, a corrupt grammar IR buffer, or a
 * grammar the engine cannot handle. `position` is a 0-based offset into the source text when
 * known; `line` and `column` are 1-based.
 */
export class GrammarError extends TagmaskError {
  readonly position: number | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(message: string, location: { position?: number; line?: number; column?: number } = {}) {
    super(message, "TAGMASK_INVALID_GRAMMAR");
    this.position = location.position;
    this.line = location.line;
    this.column = location.column;
  }
}

/**
 * A JSON Schema uses a keyword tagmask cannot enforce exactly (or is itself invalid).
 * `schemaPath` is a JSON pointer into the schema, `keyword` the offending keyword.
 */
export class SchemaError extends TagmaskError {
  readonly schemaPath: string;
  readonly keyword: string | undefined;
  constructor(schemaPath: string, message: string, keyword?: string) {
    super(`${schemaPath || "#"}: ${message}`, "TAGMASK_UNSUPPORTED_SCHEMA");
    this.schemaPath = schemaPath || "#";
    this.keyword = keyword;
  }
}

/** The tools or tool_choice of a request are invalid. `path` names the bad field. */
export class ToolError extends TagmaskError {
  readonly path: string;
  constructor(path: string, message: string) {
    super(path ? `${shownPath(path)}: ${message}` : message, "TAGMASK_INVALID_TOOLS");
    this.path = path;
  }
}

/** A tokenizer or vocabulary could not be read, or is inconsistent. */
export class TokenizerError extends TagmaskError {
  constructor(message: string) {
    super(message, "TAGMASK_INVALID_TOKENIZER");
  }
}

/** A matcher operation is not possible in its current state (e.g. it is in its error state). */
export class MatcherStateError extends TagmaskError {
  constructor(message: string) {
    super(message, "TAGMASK_MATCHER_STATE");
  }
}

/** Model output does not follow the expected format. `offset` is the UTF-16 offset in the text. */
export class OutputParseError extends TagmaskError {
  readonly offset: number;
  readonly expected: string;
  constructor(offset: number, expected: string, found?: string) {
    super(
      `at offset ${offset}: expected ${expected}${found === undefined ? "" : `, found ${found}`}`,
      "TAGMASK_OUTPUT_PARSE",
    );
    this.offset = offset;
    this.expected = expected;
  }
}

/** CUDA is not available (no device, no driver, or a build without CUDA), or a device call failed. */
export class DeviceError extends TagmaskError {
  constructor(message: string) {
    super(message, "TAGMASK_DEVICE");
  }
}

/**
 * The native addon cannot be used: no prebuilt addon matches this platform and no source build
 * is there, or the one found failed to load. The message says what was tried and how to build it.
 */
export class NativeAddonError extends TagmaskError {
  constructor(message: string) {
    super(message, "TAGMASK_ADDON_UNAVAILABLE");
  }
}

/**
 * An HTTP request to tagmask's server cannot be served: the body is malformed or names a bad
 * value (status 400, `param` the field as OpenAI writes it, e.g. `messages[1].content`), an
 * unknown route (404), a full queue (429, `retryAfter` seconds), or a server shutting down (503).
 */
export class RequestError extends TagmaskError {
  readonly status: number;
  readonly param: string | null;
  readonly retryAfter: number | undefined;
  constructor(status: number, message: string, options: { param?: string | null; code?: string; retryAfter?: number } = {}) {
    super(message, options.code ?? "TAGMASK_INVALID_REQUEST");
    this.status = status;
    this.param = options.param ?? null;
    this.retryAfter = options.retryAfter;
  }
}

/** An internal invariant did not hold: a bug in tagmask. Please report it. */
export class InternalError extends TagmaskError {
  constructor(message: string) {
    super(message, "TAGMASK_INTERNAL");
  }
}

/**
 * An operation was cancelled through its `AbortSignal` (a compilation, for instance). `cause` is
 * the signal's reason when there is one.
 */
export class AbortError extends TagmaskError {
  constructor(message = "the operation was aborted", options: { cause?: unknown } = {}) {
    super(message, "TAGMASK_ABORTED");
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** The classes the native addon throws, keyed by the native error code name. */
export const nativeErrorClasses = {
  InvalidArgument: InvalidArgumentError,
  InvalidGrammar: class NativeGrammarError extends GrammarError {
    constructor(message: string) {
      super(message);
      this.name = "GrammarError";
    }
  },
  InvalidTokenizer: TokenizerError,
  MatcherState: MatcherStateError,
  Device: DeviceError,
  Internal: InternalError,
  Aborted: AbortError,
} as const;
