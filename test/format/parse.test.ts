import { describe, expect, it } from "vitest";
import { FormatError } from "../../lib/errors.js";
import { parseFormat, parseStructuralTag } from "../../lib/format/parse.js";

const X = '{"type":"const_string","value":"x"}';
/** A structural tag around one format's JSON text. */
const st = (format: string): string => `{"type":"structural_tag","format":${format}}`;
const tagJson = (begin: string, end: string): string => `{"begin":${JSON.stringify(begin)},"content":${X},"end":${end}}`;

/** [case, input (JSON text or object), expected path, words the message must contain] */
type Bad = [string, unknown, string | RegExp, string[]];

const malformed: Bad[] = [
  // The top level.
  ["root not an object", "[]", "", ["expected a structural tag object", "found an empty array"]],
  ["root a number (object input)", 42, "", ["structural tag object", "found number 42"]],
  ["top-level type of a format", `{"type":"const_string","format":${X}}`, "type", ['expected "structural_tag" (or no type)', 'found string "const_string"', "bare format"]],
  ["bare format at the top", `{"type":"sequence","elements":[${X}]}`, "type", ['expected "structural_tag"', 'found string "sequence"', "bare format", "parseFormat"]],
  ["wrong top-level type", '{"type":"structural","format":{}}', "type", ['expected "structural_tag"', 'found string "structural"']],
  ["missing format", '{"type":"structural_tag"}', "format", ["missing required field", "expected a format object"]],
  ["unknown top-level field", `{"type":"structural_tag","format":${X},"triggers":[]}`, "triggers", ['unknown field "triggers"', "expected only the fields type, format"]],
  // Format types and fields.
  ["unknown format type", st('{"type":"regexp","pattern":"a"}'), "format.type", ['unknown format type "regexp"', "expected one of const_string, json_schema"]],
  ["format type not a string", st('{"type":7}'), "format.type", ["expected a format type name", "found number 7"]],
  ["missing format type that cannot be inferred", st(`{"type":"sequence","elements":[{"pattern":"x"}]}`), "format.elements[0].type", ["missing required field", "expected a format type", "read by its fields only when"]],
  ["nested structural tag", st(`{"type":"optional","content":${st(X)}}`), "format.content.type", ['found "structural_tag"', "do not nest"]],
  ["format null", st(`{"type":"sequence","elements":[${X},null]}`), "format.elements[1]", ["expected a format object", "found null"]],
  ["unknown field", st('{"type":"const_string","value":"x","values":"y"}'), "format.values", ['unknown field "values" in a const_string format', "expected only the fields type, value"]],
  ["unknown field with an odd name", st('{"type":"regex","pattern":"a","flags i":1}'), 'format["flags i"]', ['unknown field "flags i"']],
  ["unknown field on a tag", st(`{"type":"tag","begin":"a","content":${X},"end":"b","ends":["c"]}`), "format.ends", ['unknown field "ends" in a tag']],
  ["const_string value not a string", st('{"type":"const_string","value":5}'), "format.value", ["expected a string", "found number 5"]],
  ["missing regex pattern", st('{"type":"regex"}'), "format.pattern", ["missing required field of a regex format", "expected a non-empty string"]],
  ["empty regex pattern (xgrammar refuses it)", st('{"type":"regex","pattern":""}'), "format.pattern", ["expected a non-empty string", 'found string ""']],
  ["grammar not a string", st('{"type":"grammar","grammar":["root ::= a"]}'), "format.grammar", ["expected a non-empty string", "found an array"]],
  ["empty grammar (xgrammar refuses it)", st('{"type":"grammar","grammar":""}'), "format.grammar", ["expected a non-empty string"]],
  // Lists of formats.
  ["empty sequence", st('{"type":"sequence","elements":[]}'), "format.elements", ["expected a non-empty list of formats", "found an empty array"]],
  ["or elements not a list", st(`{"type":"or","elements":${X}}`), "format.elements", ["non-empty list of formats", "found an object"]],
  ["missing content", st('{"type":"optional"}'), "format.content", ["missing required field of a optional format", "expected a format object"]],
  // repeat bounds.
  ["repeat min negative", st(`{"type":"repeat","min":-1,"max":2,"content":${X}}`), "format.min", ["expected a non-negative integer", "found number -1"]],
  ["repeat min fractional", st(`{"type":"repeat","min":1.5,"max":2,"content":${X}}`), "format.min", ["non-negative integer", "found number 1.5"]],
  ["repeat max below min", st(`{"type":"repeat","min":3,"max":2,"content":${X}}`), "format.max", ["expected -1 (unbounded) or an integer at least min (3)", "found number 2"]],
  ["repeat max -2", st(`{"type":"repeat","min":0,"max":-2,"content":${X}}`), "format.max", ["-1 (unbounded)", "found number -2"]],
  ["repeat max a string", st(`{"type":"repeat","min":0,"max":"inf","content":${X}}`), "format.max", ['found string "inf"']],
  ["repeat missing max", st(`{"type":"repeat","min":0,"content":${X}}`), "format.max", ["missing required field of a repeat format"]],
  // Tags.
  ["tag end an empty list (deep path)", st(`{"type":"sequence","elements":[${X},${X},{"type":"tags_with_separator","separator":",","tags":[${tagJson("<a>", "[]")}]}]}`),
    "format.elements[2].tags[0].end", ["expected a string, a non-empty list of strings or a token", "found an empty array"]],
  ["tag end list with a number", st(`{"type":"tag","begin":"a","content":${X},"end":["b",2]}`), "format.end[1]", ["expected a string", "found number 2"]],
  ["tag end null", st(`{"type":"tag","begin":"a","content":${X},"end":null}`), "format.end", ["string, a non-empty list of strings or a token", "found null"]],
  ["tag begin missing", st(`{"type":"tag","content":${X},"end":"b"}`), "format.begin", ["missing required field of a tag", "expected a string"]],
  ["tag content not a format", st('{"type":"tag","begin":"a","content":"x","end":"b"}'), "format.content", ["expected a format object", 'found string "x"']],
  ["entry of tags with another type", st(`{"type":"tags_with_separator","separator":"","tags":[{"type":"const_string","begin":"a","content":${X},"end":"b"}]}`),
    "format.tags[0].type", ['expected "tag"', "may also leave out its type", 'found string "const_string"']],
  ["entry of tags not an object", st('{"type":"tags_with_separator","separator":"","tags":["<a>"]}'), "format.tags[0]", ["expected a tag object", 'found string "<a>"']],
  // Tag lists.
  ["empty tags", st('{"type":"tags_with_separator","separator":",","tags":[]}'), "format.tags", ["expected a non-empty list of tags", "found an empty array"]],
  ["missing separator", st(`{"type":"tags_with_separator","tags":[${tagJson("a", '"b"')}]}`), "format.separator", ["missing required field of a tags_with_separator format"]],
  ["flag not a boolean", st(`{"type":"tags_with_separator","separator":"","tags":[${tagJson("a", '"b"')}],"stop_after_first":"true"}`), "format.stop_after_first", ["expected true or false", 'found string "true"']],
  ["empty triggers", st(`{"type":"triggered_tags","triggers":[],"tags":[${tagJson("a", '"b"')}]}`), "format.triggers", ["expected a non-empty list of non-empty strings", "found an empty array"]],
  ["empty trigger", st(`{"type":"triggered_tags","triggers":[""],"tags":[${tagJson("a", '"b"')}]}`), "format.triggers[0]", ["expected a non-empty string", 'found string ""']],
  ["trigger that begins no tag", st(`{"type":"triggered_tags","triggers":["<a","<c"],"tags":[${tagJson("<a>", '"</a>"')},${tagJson("<ab>", '"</a>"')}]}`),
    "format.triggers[1]", ["expected a prefix of at least one tag's begin", '["<a>", "<ab>"]', 'found "<c"']],
  ["tag whose begin starts with no trigger", st(`{"type":"triggered_tags","triggers":["<a"],"tags":[${tagJson("<a>", '"</a>"')},${tagJson("<b>", '"</b>"')}]}`),
    "format.tags[1].begin", ["expected a begin that starts with one of the triggers", '["<a"]', 'found "<b>"']],
  ["triggered_tags excludes with an empty string", st(`{"type":"triggered_tags","triggers":["a"],"tags":[${tagJson("a", '"b"')}],"excludes":["x",""]}`), "format.excludes[1]", ["non-empty string"]],
  // json_schema and any_text options.
  ["json_schema an array", st('{"type":"json_schema","json_schema":[]}'), "format.json_schema", ["expected a JSON Schema (an object or a boolean)", "found an empty array"]],
  ["json_schema null", st('{"type":"json_schema","json_schema":null}'), "format.json_schema", ["object or a boolean", "found null"]],
  ["json_schema a string", st('{"type":"json_schema","json_schema":"{}"}'), "format.json_schema", ['found string "{}"']],
  ["max_whitespace_cnt negative", st('{"type":"json_schema","json_schema":true,"max_whitespace_cnt":-1}'), "format.max_whitespace_cnt", ["expected a non-negative integer", "found number -1"]],
  ["style empty", st('{"type":"json_schema","json_schema":true,"style":""}'), "format.style", ["expected a non-empty string", 'found string ""']],
  ["style not a string", st('{"type":"json_schema","json_schema":true,"style":1}'), "format.style", ["non-empty string", "found number 1"]],
  ["any_order not a boolean", st('{"type":"json_schema","json_schema":true,"any_order":"yes"}'), "format.any_order", ["expected true or false"]],
  ["max_tokens fractional", st('{"type":"any_text","max_tokens":2.5}'), "format.max_tokens", ["non-negative integer", "found number 2.5"]],
  ["max_chars a string", st('{"type":"any_text","max_chars":"3"}'), "format.max_chars", ["non-negative integer", 'found string "3"']],
  ["max_tokens beyond safe integers", st('{"type":"any_text","max_tokens":1e300}'), "format.max_tokens", ["non-negative integer", "found number 1e+300"]],
  ["excludes not a list", st('{"type":"any_text","excludes":"<a>"}'), "format.excludes", ["expected a list of non-empty strings", 'found string "<a>"']],
  ["excludes with an empty string", st('{"type":"any_text","excludes":["<a>",""]}'), "format.excludes[1]", ["expected a non-empty string"]],
  // Well-formed UTF-16.
  ["lone high surrogate in a value", st('{"type":"const_string","value":"\\ud800"}'), "format.value", ["well-formed UTF-16", "lone surrogate U+D800 at index 0"]],
  ["lone low surrogate in an end", st(`{"type":"tag","begin":"a","content":${X},"end":["ok","b\\udc00"]}`), "format.end[1]", ["lone surrogate U+DC00 at index 1"]],
  ["reversed surrogate pair", st('{"type":"regex","pattern":"\\udc00\\ud800"}'), "format.pattern", ["lone surrogate U+DC00 at index 0"]],
  ["lone surrogate in a schema key", st('{"type":"json_schema","json_schema":{"properties":{"a\\ud83d":{}}}}'), 'format.json_schema.properties["a\\ud83d"]', ["lone surrogate U+D83D at index 1"]],
  ["lone surrogate in a schema value", st('{"type":"json_schema","json_schema":{"enum":["ok","\\udfff"]}}'), "format.json_schema.enum[1]", ["lone surrogate U+DFFF"]],
  // JSON text.
  ["JSON: missing value", '{"type": "structural_tag", "format": }', "format", ["invalid JSON at line 1, column 38 (offset 37)", "expected a JSON value", "found '}'"]],
  ["JSON: trailing comma", '{"type":"structural_tag",\n "format":{"type":"sequence","elements":[1,]}}', "format.elements[1]", ["line 2, column 44", "expected a JSON value", "found ']'"]],
  ["JSON: duplicate key", st('{"type":"regex","pattern":"a","pattern":"b"}'), "format.pattern", ["expected each key at most once", 'found key "pattern" a second time']],
  ["JSON: unterminated string", '{"type":"structural_tag","format":{"type":"regex","pattern":"ab', "format.pattern", ["expected '\"' to close the string", "found the end of the text"]],
  ["JSON: bad escape", st('{"type":"regex","pattern":"\\x41"}'), "format.pattern", ["expected an escape", "found 'x'"]],
  ["JSON: short unicode escape", st('{"type":"regex","pattern":"\\u12g4"}'), "format.pattern", ["expected four hex digits after \\u"]],
  ["JSON: raw control character", st('{"type":"regex","pattern":"a\tb"}'), "format.pattern", ["control characters must be escaped", "found control character U+0009"]],
  ["JSON: single quotes", "{'type':'structural_tag'}", "", ["expected a property name in double quotes", "found '''"]],
  ["JSON: missing colon", '{"type" "structural_tag"}', "type", ["expected ':' after the property name", "found '\"'"]],
  ["JSON: missing comma", '{"type":"structural_tag" "format":{}}', "", ["expected ',' or '}' in the object"]],
  ["JSON: text after the value", `${st(X)} x`, "", ["expected the end of the text after the JSON value", "found 'x'"]],
  ["JSON: number out of range", st('{"type":"json_schema","json_schema":{"maximum":1e999}}'), "format.json_schema.maximum", ["expected a number within the range of a double"]],
  ["JSON: leading zero", st('{"type":"any_text","max_chars":01}'), "format", ["expected ',' or '}' in the object", "found '1'"]],
  ["JSON: empty text", "", "", ["expected a JSON value", "found the end of the text"]],
  ["JSON: bare word", "nul", "", ["expected a JSON value", "found 'n'"]],
  ["JSON: line and column after CRLF", '{\r\n"type":\r\n  tru}', "type", ["line 3, column 3", "expected a JSON value"]],
  ["JSON: nesting too deep", `${"[".repeat(1100)}${"]".repeat(1100)}`, /^(\[0\]){1001}$/, ["expected values nested at most 1000 levels deep"]],
  ["formats nested too deep", st(`${'{"type":"optional","content":'.repeat(1200)}${X}${"}".repeat(1200)}`), /^format(\.content){999}\.type$/, ["expected values nested at most 1000 levels deep"]],
  ["formats nested too deep (object input)", { type: "structural_tag", format: JSON.parse(`${'{"type":"optional","content":'.repeat(1200)}${X}${"}".repeat(1200)}`) as unknown },
    /^format(\.content){1000}$/, ["expected formats nested at most 1000 levels deep"]],
  // Object input (not JSON text): values JSON cannot hold.
  ["object input: format is a Map", { type: "structural_tag", format: new Map() }, "format", ["expected a format object", "found an instance of Map"]],
  ["object input: function in a schema", { type: "structural_tag", format: { type: "json_schema", json_schema: { type: "string", check: () => true } } }, "format.json_schema.check", ["expected a JSON value", "found a function"]],
  ["object input: NaN in a schema", { type: "structural_tag", format: { type: "json_schema", json_schema: { minimum: Number.NaN } } }, "format.json_schema.minimum", ["expected a finite number", "found number NaN"]],
  ["object input: undefined in a schema array", { type: "structural_tag", format: { type: "json_schema", json_schema: { enum: [1, undefined] } } }, "format.json_schema.enum[1]", ["expected a JSON value, found undefined"]],
  ["object input: bigint as a count", { type: "structural_tag", format: { type: "any_text", max_tokens: 3n } }, "format.max_tokens", ["non-negative integer", "found bigint 3"]],
  ["object input: Date in a schema", { type: "structural_tag", format: { type: "json_schema", json_schema: { const: new Date(0) } } }, "format.json_schema.const", ["found an instance of Date"]],
];

function errorOf(run: () => unknown): FormatError {
  try {
    run();
  } catch (e) {
    if (e instanceof FormatError) return e;
    throw new Error(`expected a FormatError, got ${String(e)}`);
  }
  throw new Error("expected a FormatError, nothing was thrown");
}

describe("malformed structural tags", () => {
  it("has a large table", () => {
    expect(malformed.length).toBeGreaterThanOrEqual(15);
  });

  it.each(malformed)("%s", (_name, input, path, words) => {
    const error = errorOf(() => parseStructuralTag(input));
    expect(error.code).toBe("TAGMASK_INVALID_FORMAT");
    if (typeof path === "string") expect(error.path).toBe(path);
    else expect(error.path).toMatch(path);
    // A path of over 200 characters is shown by its two ends in the message.
    const shown = error.path.length > 200 ? `${error.path.slice(0, 120)}…${error.path.slice(-60)} (${error.path.length} characters)` : error.path;
    expect(error.message.startsWith(error.path === "" ? "" : `${shown}: `)).toBe(true);
    for (const w of words) expect(error.message).toContain(w);
  });

  it("refuses cyclic format objects with a FormatError", () => {
    const loop: { type: string; content?: unknown } = { type: "optional" };
    loop.content = loop;
    const error = errorOf(() => parseFormat(loop));
    expect(error.message).toContain("nested at most 1000 levels");
    const schema: Record<string, unknown> = {};
    schema.not = schema;
    expect(errorOf(() => parseFormat({ type: "json_schema", json_schema: schema })).message).toContain("is there a cycle?");
  });

  it("uses the path given to parseFormat", () => {
    const error = errorOf(() => parseFormat({ type: "or", elements: [] }, "tools[0].format"));
    expect(error.path).toBe("tools[0].format.elements");
    expect(errorOf(() => parseFormat("x")).message).toBe('format: expected a format object, found string "x"');
  });
});

describe("valid structural tags", () => {
  it("normalizes tags in lists to carry their type, and orders fields", () => {
    const tag = parseStructuralTag({
      format: {
        separator: ",",
        tags: [{ end: "b", content: { value: "x", type: "const_string" }, begin: "a" }],
        type: "tags_with_separator",
      },
      type: "structural_tag",
    });
    expect(JSON.stringify(tag)).toBe(
      '{"type":"structural_tag","format":{"type":"tags_with_separator","tags":[{"type":"tag","begin":"a","content":{"type":"const_string","value":"x"},"end":"b"}],"separator":","}}',
    );
  });

  it("keeps absent options absent and explicit defaults as written", () => {
    expect(parseFormat({ type: "any_text" })).toStrictEqual({ type: "any_text" });
    expect(parseFormat({ type: "any_text", excludes: [], max_tokens: 0 })).toStrictEqual({ type: "any_text", excludes: [], max_tokens: 0 });
    expect(parseFormat({ type: "json_schema", json_schema: false, any_order: false })).toStrictEqual({ type: "json_schema", json_schema: false, any_order: false });
  });

  it("treats undefined fields as absent (object spreads in code)", () => {
    expect(parseFormat({ type: "any_text", excludes: undefined, max_chars: undefined, unknown: undefined })).toStrictEqual({ type: "any_text" });
    expect(parseFormat({ type: "json_schema", json_schema: { type: "string", description: undefined } })).toStrictEqual({ type: "json_schema", json_schema: { type: "string" } });
  });

  it("accepts what the wire format allows at the edges", () => {
    const text = st(`{"type":"sequence","elements":[
      {"type":"tag","begin":"","content":{"type":"const_string","value":""},"end":""},
      {"type":"repeat","min":0,"max":0,"content":${X}},
      {"type":"repeat","min":5,"max":-1,"content":${X}},
      {"type":"triggered_tags","triggers":["<a>"],"tags":[{"type":"tag","begin":"<a>","content":${X},"end":["", "x"]}],"excludes":[]},
      {"type":"json_schema","json_schema":{"$defs":{"__proto__":{"const":"\\ud83c\\udf89"}}},"style":"qwen_xml","max_whitespace_cnt":0},
      {"type":"any_text","excludes":["\\u0000"],"max_tokens":0,"max_chars":2147483647}
    ]}`);
    const tag = parseStructuralTag(text);
    expect(tag.format.type).toBe("sequence");
    const schema = (tag.format as { elements: Array<{ json_schema?: unknown }> }).elements[4]?.json_schema as Record<string, Record<string, unknown>>;
    // "__proto__" stays an ordinary key, never the prototype.
    expect(Object.keys(schema.$defs ?? {})).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(schema.$defs)).toBe(Object.prototype);
    expect(schema.$defs?.["__proto__"]).toEqual({ const: "🎉" });
  });

  it("skips a byte-order mark and accepts any JSON whitespace", () => {
    expect(parseStructuralTag(`\ufeff \t\r\n${st(X)}\n`).format).toEqual({ type: "const_string", value: "x" });
  });

  it("returns a copy and leaves its input untouched", () => {
    const input = { type: "structural_tag", format: { type: "tags_with_separator", separator: "", tags: [{ begin: "a", content: { type: "json_schema", json_schema: { type: "object" } }, end: "b" }] } };
    const before = JSON.stringify(input);
    const tag = parseStructuralTag(input);
    expect(JSON.stringify(input)).toBe(before);
    const out = tag.format as { tags: Array<{ content: { json_schema: unknown } }> };
    expect(out.tags[0]?.content.json_schema).not.toBe(input.format.tags[0]?.content.json_schema);
  });

  it("parses the same tree from text and from the object", () => {
    const text = st(`{"type":"or","elements":[${X},{"type":"regex","pattern":"[0-9]+"}]}`);
    expect(parseStructuralTag(text)).toStrictEqual(parseStructuralTag(JSON.parse(text)));
  });
});
