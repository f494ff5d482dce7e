/**
 * Finding subschemas: JSON pointers, `$id` / `$anchor` base URIs, `$defs` and draft-07
 * `definitions`, and `$ref` resolution. Every subschema gets a location (its JSON pointer from
 * the root, used in error messages) and a numeric id (used to memoize compiled rules).
 *
 * Remote references (to documents other than the one given) and `$dynamicRef` are refused.
 */
import { SchemaError } from "../../errors.js";

/** A schema: an object or a boolean. */
export type Schema = boolean | { readonly [key: string]: unknown };

/** A subschema and where it is. */
export interface SchemaLoc {
  readonly schema: Schema;
  /** JSON pointer from the root, as a URI fragment (`#/properties/a`). */
  readonly path: string;
  /** The base URI in effect for this subschema. */
  readonly base: string;
  /** Unique per (schema object, base): the memo key of compiled rules. */
  readonly id: number;
}

const DEFAULT_BASE = "https://tagmask.invalid/schema.json";

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "propertyNames",
  "items",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
];
/** Keywords whose value is an array of subschemas. */
const ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/** Keywords whose value is an object of subschemas. */
const MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

/** Escapes one JSON-pointer token. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(x: unknown): x is { [key: string]: unknown } {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * A JSON Schema draft. It decides which keywords exist (one the draft does not define is an
 * annotation), whether `$ref` replaces its siblings, and how `id` / `$id` set base URIs.
 */
export type Dialect = "2020-12" | "2019-09" | "draft-07" | "draft-06" | "draft-04";

/** The drafts, oldest first (for "defined since" checks). */
export const DIALECTS: readonly Dialect[] = ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];
const DIALECT_ORDER = DIALECTS;

/** The draft a `$schema` URI names, or null for other metaschemas. */
export function dialectOfUri(uri: string): Dialect | null {
  const m = /^https?:\/\/json-schema\.org\/(?:(draft-0[3-7])\/schema|draft\/(2019-09|2020-12)\/schema|(schema))#?$/.exec(uri);
  if (m === null) return /^https?:\/\/iglucentral\.com\/schemas\/com\.snowplowanalytics\.self-desc\/schema\/jsonschema\/1-0-0#?$/.test(uri) ? "draft-04" : null;
  if (m[1] !== undefined) return m[1] === "draft-03" || m[1] === "draft-05" ? "draft-04" : (m[1] as Dialect);
  if (m[2] !== undefined) return m[2] as Dialect;
  // The unversioned URI means "the latest draft".
  return "2020-12";
}

/**
 * Keywords that some drafts do not define, and the first draft (and, if removed, the last) that
 * does. Under another draft they are annotations: never enforced.
 */
const KEYWORD_DRAFTS: Readonly<Record<string, readonly [since: Dialect, until?: Dialect]>> = {
  const: ["draft-06"],
  contains: ["draft-06"],
  propertyNames: ["draft-06"],
  if: ["draft-07"],
  then: ["draft-07"],
  else: ["draft-07"],
  minContains: ["2019-09"],
  maxContains: ["2019-09"],
  dependentRequired: ["2019-09"],
  dependentSchemas: ["2019-09"],
  unevaluatedProperties: ["2019-09"],
  unevaluatedItems: ["2019-09"],
  $anchor: ["2019-09"],
  $recursiveRef: ["2019-09", "2019-09"],
  $recursiveAnchor: ["2019-09", "2019-09"],
  prefixItems: ["2020-12"],
  $dynamicRef: ["2020-12"],
  $dynamicAnchor: ["2020-12"],
  additionalItems: ["draft-04", "2019-09"],
};

function dialectOf(root: Schema, fallback: Dialect): { dialect: Dialect; declared: boolean } {
  const uri = isObject(root) && typeof root.$schema === "string" ? root.$schema : undefined;
  const named = uri === undefined ? null : dialectOfUri(uri);
  return named === null ? { dialect: fallback, declared: false } : { dialect: named, declared: true };
}

/**
 * Whether a `$schema` value names a metaschema with the standard vocabularies: the JSON Schema
 * drafts, and Snowplow's self-describing schema (draft-04 plus a `self` annotation). Any other
 * `$schema` may switch vocabularies off or on, which the compiler cannot know.
 */
export function isKnownMetaschema(uri: string): boolean {
  return dialectOfUri(uri) !== null;
}

function stripFragment(uri: string): string {
  const i = uri.indexOf("#");
  return i < 0 ? uri : uri.slice(0, i);
}

function resolveUri(ref: string, base: string): string {
  try {
    return new URL(ref, base).href;
  } catch {
    return ref;
  }
}

/** The schema registry of one compilation. */
export class SchemaRegistry {
  readonly dialect: Dialect;
  /** Whether the root's `$schema` named the draft (otherwise it is the caller's default). */
  readonly declared: boolean;
  readonly root: SchemaLoc;
  /** Resource URI (no fragment) → its location. */
  private readonly resources = new Map<string, SchemaLoc>();
  /** `uri#anchor` → location. */
  private readonly anchors = new Map<string, SchemaLoc>();
  private readonly ids = new Map<object | boolean, Map<string, number>>();
  /** `$dynamicAnchor` name → how many subschemas declare it. */
  private readonly dynamicAnchorCounts = new Map<string, number>();
  /** How many resources declare `$recursiveAnchor: true`. */
  private recursiveAnchors = 0;
  private nextId = 0;

  constructor(root: Schema, fallback: Dialect = "2020-12") {
    ({ dialect: this.dialect, declared: this.declared } = dialectOf(root, fallback));
    this.root = this.loc(root, "#", this.baseOf(root, DEFAULT_BASE));
    this.index(root, "#", DEFAULT_BASE, true);
  }

  /** `$ref` siblings are ignored before draft 2019-09. */
  get refOverridesSiblings(): boolean {
    return this.dialect === "draft-07" || this.dialect === "draft-06" || this.dialect === "draft-04";
  }

  /**
   * Whether the draft defines `keyword` (one it does not define is an annotation). Without a
   * declared `$schema`, keywords of older drafts that no later draft redefines (`additionalItems`,
   * `$recursiveRef`) still apply, so schemas written for those drafts keep their meaning.
   */
  defines(keyword: string): boolean {
    const range = KEYWORD_DRAFTS[keyword];
    if (range === undefined) return true;
    const at = DIALECT_ORDER.indexOf(this.dialect);
    if (at < DIALECT_ORDER.indexOf(range[0])) return false;
    return range[1] === undefined || !this.declared || at <= DIALECT_ORDER.indexOf(range[1]);
  }

  /** The `$id` of a schema object as this draft reads it (draft-04: `id`), or undefined. */
  private idOf(schema: { [key: string]: unknown }): string | undefined {
    // Before 2019-09 a `$ref` replaces its siblings, `$id` included.
    if (this.refOverridesSiblings && typeof schema.$ref === "string") return undefined;
    if (typeof schema.$id === "string") return schema.$id;
    return this.dialect === "draft-04" && typeof schema.id === "string" ? schema.id : undefined;
  }

  /** The location record of a schema at `path` with base `base`. */
  loc(schema: Schema, path: string, base: string): SchemaLoc {
    const key = typeof schema === "boolean" ? schema : schema;
    let byBase = this.ids.get(key);
    if (!byBase) this.ids.set(key, (byBase = new Map()));
    let id = byBase.get(base);
    if (id === undefined) {
      id = this.nextId++;
      byBase.set(base, id);
    }
    return { schema, path, base, id };
  }

  /** The base URI of a subschema, given its parent's. */
  baseOf(schema: Schema, parentBase: string): string {
    if (!isObject(schema)) return parentBase;
    const id = this.idOf(schema);
    if (id === undefined || id.startsWith("#")) return parentBase;
    return stripFragment(resolveUri(id, parentBase));
  }

  /** A child subschema location. */
  child(parent: SchemaLoc, schema: Schema, ...tokens: string[]): SchemaLoc {
    const path = `${parent.path}/${tokens.map(pointerToken).join("/")}`;
    return this.loc(schema, path, this.baseOf(schema, parent.base));
  }

  private index(schema: unknown, path: string, parentBase: string, isSchema: boolean): void {
    if (!isObject(schema)) {
      if (Array.isArray(schema)) schema.forEach((x, i) => this.index(x, `${path}/${i}`, parentBase, false));
      return;
    }
    let base = parentBase;
    if (isSchema) {
      base = this.baseOf(schema, parentBase);
      const loc = this.loc(schema, path, base);
      if (base !== parentBase || path === "#") {
        if (!this.resources.has(base)) this.resources.set(base, loc);
      }
      const anchor = typeof schema.$anchor === "string" && this.defines("$anchor") ? schema.$anchor : undefined;
      if (anchor !== undefined) this.anchors.set(`${base}#${anchor}`, loc);
      // draft-07 style "$id": "#foo" is a plain-name anchor.
      const legacy = this.idOf(schema);
      if (legacy !== undefined && legacy.startsWith("#") && legacy.length > 1) this.anchors.set(`${base}${legacy}`, loc);
      if (typeof schema.$dynamicAnchor === "string" && this.defines("$dynamicAnchor")) {
        this.anchors.set(`${base}#${schema.$dynamicAnchor}`, loc);
        this.dynamicAnchorCounts.set(schema.$dynamicAnchor, (this.dynamicAnchorCounts.get(schema.$dynamicAnchor) ?? 0) + 1);
      }
      if (schema.$recursiveAnchor === true && this.defines("$recursiveAnchor")) this.recursiveAnchors++;
    }
    for (const [key, value] of Object.entries(schema)) {
      const p = `${path}/${pointerToken(key)}`;
      if (isSchema && SCHEMA_KEYWORDS.includes(key) && (isObject(value) || typeof value === "boolean")) this.index(value, p, base, true);
      else if (isSchema && ARRAY_KEYWORDS.includes(key) && Array.isArray(value)) value.forEach((x, i) => this.index(x, `${p}/${i}`, base, true));
      else if (isSchema && MAP_KEYWORDS.includes(key) && isObject(value)) {
        for (const [k, v] of Object.entries(value)) this.index(v, `${p}/${pointerToken(k)}`, base, isObject(v) || typeof v === "boolean");
      } else if (key !== "const" && key !== "enum" && key !== "default" && key !== "examples") {
        // Unknown keywords may still hold schemas that a pointer reaches; index their ids too.
        this.index(value, p, base, false);
      }
    }
  }

  /**
   * Resolves `$dynamicRef` when dynamic scope cannot change the answer: the target does not
   * declare the `$dynamicAnchor` named by the fragment, or it is the only subschema that does.
   * Returns null otherwise.
   */
  resolveDynamicRef(ref: string, from: SchemaLoc): SchemaLoc | null {
    const target = this.resolveRef(ref, from, "$dynamicRef");
    const hash = ref.indexOf("#");
    const name = hash < 0 ? "" : ref.slice(hash + 1);
    const anchor = isObject(target.schema) ? target.schema.$dynamicAnchor : undefined;
    if (name === "" || name.startsWith("/") || anchor !== name) return target;
    return this.dynamicAnchorCounts.get(name) === 1 ? target : null;
  }

  /**
   * Resolves draft 2019-09's `$recursiveRef` when dynamic scope cannot change the target: it is
   * resolved like `$ref`, and only a target with `$recursiveAnchor: true` defers to the outermost
   * such resource in scope — the target itself when no other resource declares one. Returns null
   * otherwise.
   */
  resolveRecursiveRef(ref: string, from: SchemaLoc): SchemaLoc | null {
    const target = this.resolveRef(ref, from, "$recursiveRef");
    const anchored = isObject(target.schema) && target.schema.$recursiveAnchor === true;
    return !anchored || this.recursiveAnchors === 1 ? target : null;
  }

  /** Resolves `$ref` (or `$dynamicRef` treated statically) found at `from`. */
  resolveRef(ref: string, from: SchemaLoc, keyword = "$ref"): SchemaLoc {
    const where = `${from.path}/${keyword}`;
    const uri = resolveUri(ref, from.base);
    const hash = uri.indexOf("#");
    const doc = hash < 0 ? uri : uri.slice(0, hash);
    const fragment = hash < 0 ? "" : decodeURIComponent(uri.slice(hash + 1));
    const resource = this.resources.get(doc);
    if (!resource) {
      throw new SchemaError(where, `cannot resolve '${ref}': only references into this schema are supported (no remote documents)`, keyword);
    }
    if (fragment === "") return resource;
    if (!fragment.startsWith("/")) {
      const anchored = this.anchors.get(`${doc}#${fragment}`);
      if (!anchored) throw new SchemaError(where, `cannot resolve '${ref}': no anchor '${fragment}'`, keyword);
      return anchored;
    }
    // A JSON pointer into the resource.
    let node: unknown = resource.schema;
    let base = resource.base;
    let path = resource.path;
    for (const raw of fragment.slice(1).split("/")) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(token) && Number(token) < node.length) node = node[Number(token)];
      else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
      else throw new SchemaError(where, `cannot resolve '${ref}': nothing at '${token}'`, keyword);
      path = `${path}/${pointerToken(token)}`;
      if (isObject(node)) base = this.baseOf(node, base);
    }
    if (!isObject(node) && typeof node !== "boolean") throw new SchemaError(where, `'${ref}' does not point to a schema`, keyword);
    return this.loc(node as Schema, path, base);
  }
}
