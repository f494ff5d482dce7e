/**
 * Structural-tag formats: the format tree (xgrammar wire names), parsing and validation,
 * serialization, typed constructors, and the outline printer.
 */
export type * from "./types.js";
export { FORMAT_TYPES, isStructuralTagObject, parseFormat, parseStructuralTag } from "./parse.js";
export { formatToJSON, stringifyStructuralTag, structuralTagToJSON } from "./serialize.js";
export type { JsonObject, JsonValue } from "./serialize.js";
export { schemaToType } from "./schema-type.js";
export { printOutline, quoteOutlineString } from "./outline.js";
export { parseJsonText } from "./json-text.js";
export * from "./build.js";
export * as formats from "./build.js";
