/**
 * The JSON Schema of a `--schema FILE` option, compiled the same way by every command (`compile`,
 * `masks`, `match`): a schema that accepts no JSON value at all (minimum > maximum, an empty
 * enum, ...) is refused with a SchemaError naming the contradiction, exit code 2, rather than
 * compiled by one command and refused by another. (The API's compileJsonSchema keeps JSON
 * Schema's meaning and returns a grammar that matches nothing; compileGrammar refuses that.)
 */
import { matchesNothing } from "../compile/empty-language.js";
import { findContradiction } from "../compile/json-schema/contradictions.js";
import { compileJsonSchema, type JsonSchemaOptions, type UnenforcedKeyword } from "../compile/json-schema/index.js";
import type { IrGrammar } from "../compile/ir.js";
import { SchemaError } from "../errors.js";
import type { JsonSchema } from "../format/types.js";

/** Throws a SchemaError when `grammar` (compiled from `schema`) matches nothing. */
export function refuseUnsatisfiableSchema(schema: unknown, grammar: IrGrammar): void {
  if (!matchesNothing(grammar)) return;
  const why = findContradiction(schema);
  throw new SchemaError(
    "#",
    `the schema accepts no JSON value at all, so no output could follow it${why ? ` (${why.detail} at ${why.path})` : ""}`,
    why?.keyword,
  );
}

/** compileJsonSchema for a schema read from a file, refusing one that accepts nothing. */
export function compileSchemaOption(schema: JsonSchema, options: JsonSchemaOptions = {}): { grammar: IrGrammar; unenforced: UnenforcedKeyword[] } {
  const result = compileJsonSchema(schema, options);
  refuseUnsatisfiableSchema(schema, result.grammar);
  return result;
}
