/**
 * xgrammar's tests/python/test_optional_string_continuations.py on tagmask's engine: an object of
 * optional bounded strings then a required `tail`, written without whitespace; inside one string,
 * every candidate token (more string, or the string closed and the object continued at a later
 * field or at the tail, or at an earlier field: not allowed) is allowed exactly when its length
 * fits the bound and the field order holds, and accepting then rolling back an allowed one gives
 * the same mask again. The expected masks come from the same length/order rule as xgrammar's.
 */
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../lib/compile/json-schema/index.js";
import { compileGrammar } from "../../lib/engine/compiled-grammar.js";
import { GrammarMatcher } from "../../lib/engine/matcher.js";
import { TokenizerInfo } from "../../lib/tokenizer/tokenizer-info.js";
import { maskHas } from "./oracle.js";

const EOS = "<eos>";
const BODIES = ["", "a", "a".repeat(127), "a".repeat(256), "中", "😀"];

describe("test_optional_string_continuations", () => {
  it.each([4, 16, 40].flatMap((count) => [16, 4096].map((upper) => [count, upper] as const)))("count=%i, upper=%i", (count, upper) => {
    const fields = Array.from({ length: count }, (_, i) => `field_${i}`);
    const schema = {
      type: "object",
      properties: { ...Object.fromEntries(fields.map((f) => [f, { type: "string", maxLength: upper }])), tail: { const: true } },
      required: ["tail"],
      additionalProperties: false,
    };
    // A candidate stays inside the string (next null) or closes it and goes on at field `next`
    // (`count`: the tail).
    const candidates: Array<[body: string, next: number | null]> = [
      ...BODIES.filter((b) => b !== "").map((b): [string, null] => [b, null]),
      ...BODIES.flatMap((b) => Array.from({ length: count + 1 }, (_, next): [string, number] => [b, next])),
    ];
    const texts = candidates.map(([body, next]) => (next === null ? body : `${body}",${next < count ? `"${fields[next]}":"",` : ""}"tail":true}`));
    const info = TokenizerInfo.fromTokens([...texts, EOS], { vocabType: "raw", specialTokens: [EOS], stopTokens: [EOS] });
    const { grammar } = compileJsonSchema(schema as never, { whitespace: "compact" });
    const compiled = compileGrammar(info, grammar, { threads: 1 });
    const mask = new Int32Array(Math.ceil(info.vocabSize / 32));
    const again = new Int32Array(mask.length);
    for (const index of [0, Math.floor(count / 2), count - 1]) {
      for (const position of [...new Set([0, Math.min(16, upper), upper - 1, upper])].sort((a, b) => a - b)) {
        const matcher = new GrammarMatcher(compiled);
        expect(matcher.acceptString(`{"${fields[index]}":"${"a".repeat(position)}`)).toBe(true);
        matcher.fillNextTokenBitmask(mask);
        candidates.forEach(([body, next], id) => {
          const expected = position + [...body].length <= upper && (next === null || next > index);
          expect(maskHas(mask, id), `field ${index}, ${position} written, ${JSON.stringify(texts[id])}`).toBe(expected);
          if (expected && next !== null) {
            expect(matcher.acceptToken(id)).toBe(true);
            matcher.rollback(1);
            matcher.fillNextTokenBitmask(again);
            expect(again).toEqual(mask);
          }
        });
      }
    }
  });
});
