/**
 * {@link GrammarMatcher}: one sequence's state against a compiled grammar. Before each sampling
 * step, {@link GrammarMatcher.fillNextTokenBitmask} writes the allowed tokens; after it,
 * {@link GrammarMatcher.acceptToken} advances. Every call is synchronous and allocation-free on
 * the native side once warm.
 */
import { InvalidArgumentError } from "../errors.js";
import { native, type NativeGrammarMatcher } from "../native.js";
import type { CompiledGrammar } from "./compiled-grammar.js";

/** Options of a {@link GrammarMatcher}. */
export interface MatcherOptions {
  /**
   * Deepest nesting of recursive rule calls (e.g. nested JSON arrays) before the matcher stops
   * with an error state. Default 10,000.
   */
  maxStackDepth?: number;
}

const encoder = new TextEncoder();

/**
 * Tracks what a model has generated and which tokens may come next.
 *
 * Semantics: a token is allowed iff its bytes keep the output a prefix of some string of the
 * grammar; stop tokens iff the grammar can end here; control tokens and padding ids never.
 * A failure inside the engine puts the matcher into an error state: every later call throws a
 * MatcherStateError naming the original failure, until {@link reset}.
 *
 * @example
 * const matcher = new GrammarMatcher(compiled);
 * const mask = allocateTokenBitmask(1, compiled.vocabSize);
 * matcher.fillNextTokenBitmask(mask);
 * matcher.acceptToken(sampled);
 */
export class GrammarMatcher {
  /** The grammar this matcher follows. */
  readonly compiled: CompiledGrammar;
  /** The native handle (used by the batch path). */
  readonly handle: NativeGrammarMatcher;

  constructor(compiled: CompiledGrammar, options?: MatcherOptions);
  /** @internal */
  constructor(compiled: CompiledGrammar, options: MatcherOptions, handle: NativeGrammarMatcher);
  constructor(compiled: CompiledGrammar, options: MatcherOptions = {}, handle?: NativeGrammarMatcher) {
    if (compiled === null || typeof compiled !== "object" || !("handle" in compiled)) {
      throw new InvalidArgumentError("GrammarMatcher: expected a CompiledGrammar (from compileGrammar)");
    }
    this.compiled = compiled;
    if (handle) {
      this.handle = handle;
      return;
    }
    if (options === null || typeof options !== "object") throw new InvalidArgumentError("GrammarMatcher: options must be an object");
    const { maxStackDepth } = options;
    if (maxStackDepth !== undefined && (!Number.isInteger(maxStackDepth) || maxStackDepth < 1 || maxStackDepth > 1e8)) {
      throw new InvalidArgumentError(`GrammarMatcher: options.maxStackDepth must be an integer in [1, 1e8], got ${String(maxStackDepth)}`);
    }
    this.handle = native().createMatcher(compiled.handle, maxStackDepth === undefined ? {} : { maxStackDepth });
  }

  /** Ids a bitmask row covers. */
  get vocabSize(): number {
    return this.compiled.vocabSize;
  }

  /**
   * Accepts a token: true if the grammar allows it (the state advances), false if not (the state
   * is unchanged). A stop token is accepted iff the grammar can end, and terminates the matcher.
   * Throws InvalidArgumentError for an id outside [0, vocabSize).
   */
  acceptToken(tokenId: number): boolean {
    return this.handle.acceptToken(tokenId);
  }

  /**
   * Accepts text (its UTF-8 bytes) as one step, e.g. a jump-forward string forced into the
   * output. False leaves the state unchanged.
   */
  acceptString(text: string | Uint8Array): boolean {
    if (typeof text !== "string" && !(text instanceof Uint8Array)) {
      throw new InvalidArgumentError("acceptString: text must be a string or a Uint8Array of UTF-8 bytes");
    }
    return this.handle.acceptBytes(typeof text === "string" ? encoder.encode(text) : text);
  }

  /**
   * Writes the allowed tokens into row `row` of `out` (layout: token t is bit t&31 of word
   * t>>5; 1 = allowed). `out` needs at least (row+1)*ceil(vocabSize/32) words.
   */
  fillNextTokenBitmask(out: Int32Array, row = 0): void {
    this.handle.fillNextTokenBitmask(out, row);
  }

  /** A fresh one-row bitmask of the allowed tokens. */
  nextTokenBitmask(): Int32Array {
    const out = new Int32Array(Math.ceil(this.vocabSize / 32));
    this.handle.fillNextTokenBitmask(out, 0);
    return out;
  }

  /** Whether the grammar can end here (a stop token would be accepted). */
  canTerminate(): boolean {
    return this.handle.canTerminate();
  }

  /** Whether a stop token was accepted. After that, only stop tokens are allowed. */
  isTerminated(): boolean {
    return this.handle.isTerminated();
  }

  /** Undoes the last `steps` accepted tokens or strings (exactly). */
  rollback(steps = 1): void {
    this.handle.rollback(steps);
  }

  /** Back to the initial state (clears an error state too). */
  reset(): void {
    this.handle.reset();
  }

  /** An independent copy of this matcher in its current state. */
  fork(): GrammarMatcher {
    return new GrammarMatcher(this.compiled, {}, this.handle.fork());
  }

  /**
   * The longest string every continuation must start with (whole characters), to append
   * without sampling; empty when the grammar can end here or several bytes are possible.
   */
  findJumpForwardString(): string {
    return this.handle.findJumpForwardString();
  }

  /** Tokens and strings accepted since the start or the last reset (what rollback can undo). */
  get stepCount(): number {
    return this.handle.stepCount;
  }

  /** Parser stacks alive (1 for an unambiguous grammar). */
  get stackCount(): number {
    return this.handle.stackCount;
  }

  /** Whether the matcher is in its error state, and the failure that put it there. */
  get inError(): boolean {
    return this.handle.inError;
  }
  get errorMessage(): string {
    return this.handle.errorMessage;
  }
}
