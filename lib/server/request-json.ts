/**
 * The server's JSON body parser. Fastify's own parser is JSON.parse, which rounds every number to
 * a double: a tool parameter with `"maximum": 9223372036854775807` would reach the JSON Schema
 * compiler as 2^63 and the grammar would allow 9223372036854775808. Bodies whose text may hold
 * such a number are read again with the package's exact reader, which keeps the digits beside
 * the value (format/exact-numbers.ts); every other body costs one JSON.parse, as before.
 */
import type { FastifyInstance } from "fastify";
import { RequestError } from "../errors.js";
import { parseJsonText } from "../format/json-text.js";

/**
 * Text that may hold a number a double cannot: 16 or more significant digits (a run of 16
 * digits, or of 17 digits and points) or an exponent of three digits. Up to 15 significant digits
 * and a two-digit exponent, a double holds the written value. Matches inside strings as well, which
 * only costs a second read.
 */
const MAY_LOSE_DIGITS = /\d{16}|\d[\d.]{16}|[eE][+-]?\d{3}/;

/** Replaces the `application/json` parser of `app` with one that keeps numbers' digits. */
export function installExactJsonParser(app: FastifyInstance): void {
  // Prototype poisoning is refused as Fastify does by default; syntax errors keep its 400 replies.
  const standard = app.getDefaultJsonParser("error", "ignore");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    standard(request, text, (err, value) => {
      if (err || !MAY_LOSE_DIGITS.test(text)) {
        done(err, value);
        return;
      }
      // The exact reader is stricter than JSON.parse (a key twice in one object, nesting past
      // 1000 levels): such a body is refused rather than read with rounded numbers.
      try {
        done(null, parseJsonText(text));
      } catch (e) {
        done(new RequestError(400, `the body is not valid JSON: ${(e as Error).message}`, { code: "TAGMASK_INVALID_JSON" }), undefined);
      }
    });
  });
}
