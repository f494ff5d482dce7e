/**
 * Differential fuzzing against ajv: random schemas built from the enforced keywords (nested
 * applicators included), compiled strictly in any property order. For each: random walks of the
 * grammar must validate (soundness), and random JSON values must be accepted by the grammar
 * exactly when ajv accepts them (exactness), serialized with JSON.stringify; the declared-order
 * grammar must reject every value ajv rejects. ajv checks
 * `multipleOf` exactly here (see exact-ajv.ts).
 *
 * ajv 8.20 gets annotation collection wrong in places that matter to `unevaluated*`: it drops
 * what a passing `if` evaluates when `then` is trivial, keeps what a failing `if` would have let
 * `then` evaluate, and gets `not` over `unevaluatedItems` backwards. Where a schema uses
 * `unevaluated*` and the grammar disagrees with ajv, @cfworker/json-schema referees: the grammar
 * must agree with it instead (it is not used elsewhere: its `multipleOf` divides floats).
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { isMatch } from "../../lib/compile/recognizer.js";
import { SchemaError } from "../../lib/errors.js";
import { exactAjv, parseInstance } from "./exact-ajv.js";
import { randomWalk, rng } from "./random-walk.js";

/** A deterministic, bounded workload that a loaded 2-core machine can take minutes over. */
const HEAVY_TIMEOUT_MS = 300_000;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const KEYS = ["a", "b", "c", "x1", "é"];
const STRINGS = ["", "a", "ab", "abc", "x1", "é", "1", "a b", "\n", "zzzz"];
const NUMBERS = [0, 1, -1, 2, 3, 0.5, 1.5, -2.5, 10, 100, 7];
const PATTERNS = ["^a", "b$", "^[a-c]*$", "\\d", "^x\\d$", "é"];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function randomValue(r: () => number, depth = 0): Json {
  const k = r();
  if (depth >= 2 || k < 0.45) {
    const t = r();
    if (t < 0.1) return null;
    if (t < 0.2) return r() < 0.5;
    if (t < 0.6) return pick(r, NUMBERS);
    return pick(r, STRINGS);
  }
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: { [k: string]: Json } = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) o[pick(r, KEYS)] = randomValue(r, depth + 1);
  return o;
}

function randomSchema(r: () => number, depth = 0): Record<string, unknown> | boolean {
  if (depth > 0 && r() < 0.08) return r() < 0.7;
  const s: Record<string, unknown> = {};
  const add = (p: number, f: () => void): void => {
    if (r() < p) f();
  };
  const sub = (): Record<string, unknown> | boolean => randomSchema(r, depth + 1);
  add(0.4, () => {
    const types = ["null", "boolean", "integer", "number", "string", "array", "object"];
    const first = pick(r, types);
    s.type = r() < 0.7 ? first : [first, pick(r, types.filter((t) => t !== first))];
  });
  add(0.08, () => (s.enum = Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomValue(r, 1))));
  add(0.05, () => (s.const = randomValue(r, 1)));
  add(0.15, () => (s[pick(r, ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])] = pick(r, NUMBERS)));
  add(0.06, () => (s.multipleOf = pick(r, [2, 3, 0.5, 1.5, 0.25])));
  add(0.12, () => (s[pick(r, ["minLength", "maxLength"])] = Math.floor(r() * 4)));
  add(0.1, () => (s.pattern = pick(r, PATTERNS)));
  if (depth < 3) {
    add(0.25, () => {
      const props: Record<string, unknown> = {};
      for (const k of KEYS) if (r() < 0.4) props[k] = sub();
      s.properties = props;
    });
    add(0.15, () => (s.required = KEYS.filter(() => r() < 0.3)));
    add(0.15, () => (s.additionalProperties = r() < 0.5 ? false : sub()));
    add(0.08, () => (s.patternProperties = { [pick(r, PATTERNS)]: sub() }));
    add(0.06, () => (s.propertyNames = { maxLength: 1 + Math.floor(r() * 2) }));
    add(0.08, () => (s[pick(r, ["minProperties", "maxProperties"])] = r() < 0.5 ? 1 : Math.floor(r() * 3)));
    add(0.06, () => (s.dependentRequired = { [pick(r, KEYS)]: [pick(r, KEYS)] }));
    add(0.15, () => (s.items = sub()));
    add(0.08, () => (s.prefixItems = [sub(), sub()]));
    add(0.1, () => (s[pick(r, ["minItems", "maxItems"])] = Math.floor(r() * 3)));
    add(0.08, () => {
      s.contains = sub();
      if (r() < 0.5) s.maxContains = Math.floor(r() * 2) + 1;
      if (r() < 0.3) s.minContains = Math.floor(r() * 2);
    });
    add(0.06, () => (s.unevaluatedProperties = r() < 0.6 ? false : sub()));
    add(0.05, () => (s.unevaluatedItems = r() < 0.6 ? false : sub()));
    add(0.05, () => (s.dependentSchemas = { [pick(r, KEYS)]: sub() }));
    add(0.1, () => (s.allOf = [sub(), sub()]));
    add(0.1, () => (s.anyOf = [sub(), sub()]));
    add(0.1, () => (s.oneOf = [sub(), sub()]));
    add(0.1, () => (s.not = sub()));
    add(0.08, () => {
      s.if = sub();
      s.then = sub();
      if (r() < 0.6) s.else = sub();
    });
  }
  return s;
}

const decoder = new TextDecoder("utf-8", { fatal: true });


describe("differential fuzzing against ajv", () => {
  it("random schemas: walks validate, random values agree", () => {
    // FUZZ_SEED / FUZZ_COUNT explore further; the committed run is fixed.
    const r = rng(Number(process.env.FUZZ_SEED ?? "20261129"));
    const count = Number(process.env.FUZZ_COUNT ?? "250");
    let compiled = 0;
    let refused = 0;
    let walks = 0;
    let values = 0;
    let ajvErrors = 0;
    let refereed = 0;
    for (let i = 0; i < count; i++) {
      const schema = randomSchema(r);
      let grammar;
      let ordered;
      try {
        grammar = compileJsonSchema(schema as never, { anyOrder: true }).grammar;
        ordered = compileJsonSchema(schema as never).grammar;
      } catch (err) {
        if (!(err instanceof SchemaError)) throw err;
        refused++;
        continue;
      }
      compiled++;
      const compiledAjv = exactAjv().compile(schema);
      // ajv itself throws on a few generated schemas; those are skipped (counted).
      const validate = (x: unknown): boolean | "ajv error" => {
        try {
          return compiledAjv(x);
        } catch {
          return "ajv error";
        }
      };
      if (validate(null) === "ajv error") {
        ajvErrors++;
        continue;
      }
      // ajv 8.20 also misjudges some contains inside additionalProperties (it accepts {"a": []} for
      // {"additionalProperties": {"contains": {"type": ["integer", "null"], "required": ["c"], …}}}).
      const referee = /"unevaluated(Properties|Items)"|"contains"/.test(JSON.stringify(schema)) ? new Validator(schema as never, "2020-12", false) : null;
      /** ajv's verdict, or the referee's where ajv and the grammar disagree on an unevaluated* schema. */
      const verdict = (value: Json, grammarSays: boolean): boolean | "ajv error" => {
        const a = validate(value);
        if (a === "ajv error" || a === grammarSays || referee === null) return a;
        refereed++;
        return referee.validate(value).valid;
      };
      const where = `schema ${JSON.stringify(schema)}`;
      for (let k = 0; k < 3; k++) {
        const bytes = randomWalk(grammar, r, 40);
        if (bytes === null) continue;
        walks++;
        const text = decoder.decode(bytes);
        expect({ where, text, valid: verdict(parseInstance(text) as Json, true) }).toEqual({ where, text, valid: true });
      }
      for (let k = 0; k < 25; k++) {
        const value = randomValue(r);
        const text = JSON.stringify(value);
        const accepted = isMatch(grammar, text);
        const expected = verdict(parseInstance(text) as Json, accepted);
        if (expected === "ajv error") {
          ajvErrors++;
          continue;
        }
        values++;
        expect({ where, text, accepted }).toEqual({ where, text, accepted: expected });
        // Declared order accepts a subset: never an invalid value.
        if (!expected) expect({ where, text, orderedAccepted: isMatch(ordered, text) }).toEqual({ where, text, orderedAccepted: false });
      }
    }
    process.stdout.write(`fuzz: ${compiled} schemas compiled (${refused} refused), ${walks} walks, ${values} values, all agreeing with ajv (${refereed} refereed by @cfworker/json-schema, ${ajvErrors} ajv internal errors skipped)\n`);
    expect(compiled).toBeGreaterThan(count * 0.6);
  }, HEAVY_TIMEOUT_MS);
});
