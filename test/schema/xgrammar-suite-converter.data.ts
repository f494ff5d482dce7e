/**
 * Rows from xgrammar's tests/python/test_json_schema_converter.py: every schema with instances and
 * a verdict, and every schema the converter refuses. Pydantic models are written out as the JSON
 * Schema pydantic 2 generates for them (titles left out: annotations). Texts are what the test
 * feeds the matcher: `json.dumps` of the instance (see `dumps`).
 */
import { dumps, Raw, type SuiteCase, type SuiteFile } from "./xgrammar-suite.types.js";

const int = { type: "integer" };
const str = { type: "string" };
const num = { type: "number" };
const bool = { type: "boolean" };
const nullable = (t: object) => ({ anyOf: [t, { type: "null" }] });
const obj = (properties: Record<string, unknown>, required: string[] = [], extra: object = {}) => ({ type: "object", properties, required, ...extra });

/** test_basic's model: every JSON type, a tuple, maps. */
export const MAIN_MODEL = obj(
  {
    integer_field: int,
    number_field: num,
    boolean_field: bool,
    any_array_field: { type: "array", items: {} },
    array_field: { type: "array", items: str },
    tuple_field: { type: "array", prefixItems: [str, int, { type: "array", items: str }], minItems: 3, maxItems: 3 },
    object_field: { type: "object", additionalProperties: int },
    nested_object_field: { type: "object", additionalProperties: { type: "object", additionalProperties: int } },
  },
  ["integer_field", "number_field", "boolean_field", "any_array_field", "array_field", "tuple_field", "object_field", "nested_object_field"],
);
export const MAIN_INSTANCE = {
  integer_field: 42,
  number_field: new Raw("314000.0"),
  boolean_field: true,
  any_array_field: [3.14, "foo", null, true],
  array_field: ["foo", "bar"],
  tuple_field: ["foo", 42, ["bar", "baz"]],
  object_field: { foo: 42, bar: 43 },
  nested_object_field: { foo: { bar: 42 } },
};

const indentModel = obj(
  { array_field: { type: "array", items: str }, tuple_field: MAIN_MODEL.properties.tuple_field, object_field: MAIN_MODEL.properties.object_field },
  ["array_field", "tuple_field", "object_field"],
);
const indentInstance = { array_field: ["foo", "bar"], tuple_field: ["foo", 42, ["bar", "baz"]], object_field: { foo: 42, bar: 43 } };

const nameAge = obj({ name: str, age: int }, ["name", "age"]);
const optionalModel = obj(
  { num: { type: "integer", default: 0 }, opt_bool: { ...nullable(bool), default: null }, size: nullable(num), name: { type: "string", default: "" } },
  ["size"],
);
const allOptional = obj({ size: { type: "integer", default: 0 }, state: { type: "boolean", default: false }, num: { type: "number", default: 0 } });

const reference = {
  $defs: {
    Bar: obj({ apple: { type: "string", default: "x" }, banana: { type: "string", default: "y" } }),
    Foo: obj({ count: int, size: { ...nullable(num), default: null } }, ["count"]),
  },
  ...obj({ foo: { $ref: "#/$defs/Foo" }, bars: { type: "array", items: { $ref: "#/$defs/Bar" } } }, ["foo", "bars"]),
};

const refValue = (ref: string, defs: object) => ({ ...obj({ value: { $ref: ref } }, ["value"]), ...defs });
const circular = refValue("#/$defs/schema_a", {
  $defs: {
    schema_a: obj({ name: str, next: { $ref: "#/$defs/schema_b" } }, ["name", "next"]),
    schema_b: obj({ id: int, child: { $ref: "#/$defs/schema_a" } }, ["id"]),
  },
});
const deepCircular = (depth: number): unknown => {
  const next = depth === 5 ? { id: 5 } : { id: depth, child: { name: `level${depth}`, next: deepCircular(depth + 1) } };
  return next;
};

const restricted = (pattern: string) => ({ type: "string", pattern });

/** The object-size test's instances: [value, its member count, whether it has undeclared keys]. */
const SIZE_INSTANCES: Array<[Record<string, string>, number, boolean]> = (() => {
  const o = (...keys: string[]) => Object.fromEntries(keys.map((k) => [k, k.replace("key", "value")]));
  const rows: string[][] = [
    [], ["key1"], ["key4"], ["additional_key"], ["key1", "additional_key"], ["key1", "key2"], ["key1", "key4"], ["key2", "key3"],
    ["key1", "key2", "additional_key"], ["key1", "key4", "additional_key"], ["key3", "key4", "additional_key"], ["key1", "key2", "key3"],
    ["key2", "key3", "key4"], ["key1", "key2", "key3", "additional_key"], ["key2", "key3", "key4", "additional_key"],
    ["key1", "key2", "key3", "key4"], ["key1", "key2", "key3", "key4", "additional_key"], ["additional_key1", "additional_key2"],
    ["key1", "key2", "additional_key1", "additional_key2"], ["key1", "key2", "key3", "additional_key1", "additional_key2"],
    ["key1", "key2", "key3", "key4", "additional_key1", "additional_key2"], ["additional_key1", "additional_key2", "additional_key3"],
    ["additional_key1", "additional_key2", "additional_key3", "additional_key4", "additional_key5", "additional_key6"],
  ];
  return rows.map((keys) => [o(...keys), keys.length, keys.some((k) => k.startsWith("additional"))]);
})();

/**
 * test_object_with_property_numbers: four optional string properties under every combination of
 * minProperties (0-7), maxProperties, required names and additionalProperties the test loops
 * over, with the verdict it computes for each instance (it skips the combinations it skips).
 */
export function propertyNumberCases(): SuiteCase[] {
  const base = { key1: str, key2: str, key3: str, key4: str };
  const requiredSets = [[], ["key1"], ["key3"], ["key4"], ["key1", "key2"], ["key1", "key4"], ["key3", "key4"], ["key1", "key2", "key3"], ["key2", "key3", "key4"], ["key1", "key2", "key3", "key4"]];
  const out: SuiteCase[] = [];
  const add = (name: string, schema: object, verdict: (value: Record<string, string>, count: number, extra: boolean) => boolean) => {
    const accept: string[] = [];
    const reject: string[] = [];
    for (const [value, count, extra] of SIZE_INSTANCES) (verdict(value, count, extra) ? accept : reject).push(dumps(value));
    out.push({ name: `test_object_with_property_numbers: ${name}`, kind: "agree", schema, accept, reject });
  };
  for (const additional of [false, true]) {
    for (const required of additional ? [null, ...requiredSets] : [null, ...requiredSets]) {
      const props: Record<string, unknown> = { properties: base, ...(required ? { required } : {}), ...(additional ? { additionalProperties: str } : {}) };
      const has = (value: Record<string, string>) => (required ?? []).every((k) => k in value);
      const ok = (value: Record<string, string>, extra: boolean) => has(value) && (additional || !extra);
      const label = `${additional ? "additional strings" : "closed"}, required ${required ? JSON.stringify(required) : "absent"}`;
      add(label, props, (v, _c, extra) => ok(v, extra));
      for (let lo = 0; lo < 8; lo++) {
        // The test skips lower bounds past the declared names, except with additional members and no required list.
        if (!(additional && !required) && lo > 4) continue;
        add(`${label}, minProperties ${lo}`, { ...props, minProperties: lo }, (v, c, extra) => c >= lo && ok(v, extra));
        for (let hi = lo; hi < 8; hi++) {
          if (lo > 4 || (required && hi < required.length)) continue;
          add(`${label}, minProperties ${lo}, maxProperties ${hi}`, { ...props, minProperties: lo, maxProperties: hi }, (v, c, extra) => c >= lo && c <= hi && ok(v, extra));
        }
      }
    }
  }
  for (let lo = 0; lo < 8; lo++) {
    add(`no properties, minProperties ${lo}`, { type: "object", minProperties: lo, additionalProperties: str }, (_v, c) => c >= lo);
    for (let hi = lo; hi < 8; hi++) {
      add(`no properties, minProperties ${lo}, maxProperties ${hi}`, { type: "object", minProperties: lo, maxProperties: hi, additionalProperties: str }, (_v, c) => c >= lo && c <= hi);
    }
  }
  return out;
}

/** `"` + text + `"`: the format tests put the instance between quotes as it is. */
const q = (s: string) => `"${s}"`;
const formatCase = (format: string, accept: string[], reject: string[], more: Partial<SuiteCase> = {}): SuiteCase => ({
  name: `test_${format.replace(/-/g, "_")}_format`,
  kind: "agree",
  schema: { type: "string", format },
  accept: accept.map(q),
  reject: reject.map(q),
  ...more,
});

const arrayError = (schema: object, path: string, peerError: string): SuiteCase => ({ name: `test_array_schema_error_cases: ${peerError}`, kind: "agree", schema, error: { path }, peerError });
const objectError = (schema: object, path: string, peerError: string): SuiteCase => ({ name: `test_object_error_handle: ${peerError}`, kind: "agree", schema, error: { path }, peerError });

export const CONVERTER: SuiteFile = {
  file: "test_json_schema_converter.py",
  cases: [
    { name: "test_basic", kind: "agree", schema: MAIN_MODEL, accept: [dumps(MAIN_INSTANCE)], reject: [dumps({ ...MAIN_INSTANCE, tuple_field: ["foo", 42] })] },
    {
      name: "test_indent",
      kind: "agree",
      schema: indentModel,
      accept: [dumps(indentInstance, { indent: 2 }), dumps(indentInstance, { compact: true })],
    },
    {
      name: "test_non_strict: prefixItems",
      kind: "exact",
      schema: { type: "array", prefixItems: [int, int] },
      options: { undeclared: "allow" },
      accept: ["[1, 2]", "[1, 2, 3]", '[1, 2, 3, "123"]', "[1]"],
      reject: ['["1"]'],
      peer: ["[1]"],
      why: "xgrammar requires every prefixItems item; JSON Schema does not (prefixItems constrains the items present)",
    },
    {
      name: "test_non_strict: required",
      kind: "agree",
      schema: obj({ foo: int, bar: int }, ["foo", "bar"]),
      options: { undeclared: "allow" },
      accept: [dumps({ foo: 1, bar: 2 }), dumps({ foo: 1, bar: 2, baz: 3 })],
      reject: [dumps({ foo: 1 })],
    },
    {
      name: "test_enum_const",
      kind: "agree",
      schema: {
        ...obj(
          { bars: { const: "a", type: "string" }, str_values: { const: 'a\n\r"', type: "string" }, foo: { enum: ["a", "b", "c"], type: "string" }, values: { enum: [1, "a", true] }, field: { $ref: "#/$defs/Field" } },
          ["bars", "str_values", "foo", "values", "field"],
        ),
        $defs: { Field: { enum: ["foo", "bar"], type: "string" } },
      },
      accept: [dumps({ bars: "a", str_values: 'a\n\r"', foo: "a", values: 1, field: "foo" }), dumps({ bars: "a", str_values: 'a\n\r"', foo: "c", values: true, field: "bar" })],
      reject: [dumps({ bars: "b", str_values: 'a\n\r"', foo: "a", values: 1, field: "foo" }), dumps({ bars: "a", str_values: 'a\n\r"', foo: "a", values: 2, field: "baz" })],
    },
    {
      name: "test_optional",
      kind: "agree",
      schema: optionalModel,
      accept: [dumps({ num: 42, opt_bool: true, size: 3.14, name: "foo" }), dumps({ num: 0, opt_bool: null, size: null, name: "" }), '{"size": null}', '{"size": null, "name": "foo"}', '{"num": 1, "size": null, "name": "foo"}'],
      reject: ['{"num": 1}', '{"size": null, "other": 1}'],
    },
    {
      name: "test_all_optional",
      kind: "agree",
      schema: allOptional,
      accept: [dumps({ size: 42, state: true, num: 3.14 }), '{"state": false}', '{"size": 1, "num": 1.5}', "{}"],
      reject: ['{"other": false}'],
    },
    {
      name: "test_all_optional_non_strict",
      kind: "agree",
      schema: allOptional,
      options: { undeclared: "allow" },
      accept: ['{"size": 1, "num": 1.5, "other": false}', '{"other": false}'],
    },
    { name: "test_empty", kind: "agree", schema: { type: "object", properties: {} }, accept: ["{}"], reject: ['{"tmp": 123}'] },
    { name: "test_empty (non-strict)", kind: "agree", schema: { type: "object", properties: {} }, options: { undeclared: "allow" }, accept: ["{}", '{"tmp": 123}'] },
    {
      name: "test_reference",
      kind: "agree",
      schema: reference,
      accept: [dumps({ foo: { count: 42, size: 3.14 }, bars: [{ apple: "a", banana: "b" }, { apple: "c", banana: "d" }] })],
      reject: [dumps({ foo: { size: 3.14 }, bars: [] })],
    },
    {
      name: "test_reference_schema: $defs",
      kind: "agree",
      schema: refValue("#/$defs/nested", { $defs: { nested: nameAge } }),
      accept: [dumps({ value: { name: "John", age: 30 } })],
      reject: [dumps({ value: { name: "John" } })],
    },
    {
      name: "test_reference_schema: definitions",
      kind: "agree",
      schema: refValue("#/definitions/nested", { definitions: { nested: nameAge } }),
      accept: [dumps({ value: { name: "John", age: 30 } })],
      reject: [dumps({ value: { name: "John" } })],
    },
    {
      name: "test_reference_schema: a pointer through plain objects",
      kind: "agree",
      schema: refValue("#/$defs/level1/level2/nested", { $defs: { level1: { level2: { nested: nameAge } } } }),
      accept: [dumps({ value: { name: "John", age: 30 } })],
      reject: [dumps({ value: { name: "John" } })],
    },
    {
      name: "test_reference_schema: nested references",
      kind: "agree",
      schema: refValue("#/definitions/node_a", {
        definitions: { node_a: obj({ name: str, child: { $ref: "#/definitions/node_b" } }, ["name"]), node_b: obj({ id: int }, ["id"]) },
      }),
      accept: [dumps({ value: { name: "first", child: { id: 1 } } })],
      reject: [dumps({ value: { name: "first", child: {} } })],
    },
    {
      name: "test_reference_schema: self-recursion",
      kind: "agree",
      schema: refValue("#/$defs/node", { $defs: { node: obj({ id: int, next: { $ref: "#/$defs/node" } }, ["id"]) } }),
      accept: [dumps({ value: { id: 1, next: { id: 2, next: { id: 3 } } } }), dumps({ value: { id: 1 } })],
      reject: [dumps({ value: { id: 1, next: { next: { id: 3 } } } })],
    },
    {
      name: "test_reference_schema: circular references",
      kind: "agree",
      schema: circular,
      accept: [dumps({ value: { name: "first", next: { id: 1, child: { name: "second", next: { id: 2 } } } } }), dumps({ value: { name: "root", next: deepCircular(1) } })],
      reject: [dumps({ value: { name: "first", next: { child: { name: "second", next: { id: 2 } } } } })],
    },
    {
      name: "test_reference_schema: $ref to the root",
      kind: "agree",
      schema: obj({ name: str, children: { type: "array", items: { $ref: "#" } } }, ["name"]),
      accept: [dumps({ name: "root", children: [{ name: "child1", children: [{ name: "grandchild1" }] }, { name: "child2" }] })],
      reject: [dumps({ children: [{ name: "child1" }] })],
    },
    {
      name: "test_union",
      kind: "agree",
      schema: { $defs: { Cat: obj({ name: str, color: str }, ["name", "color"]), Dog: obj({ name: str, breed: str }, ["name", "breed"]) }, anyOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }] },
      accept: [dumps({ name: "kitty", color: "black" }), dumps({ name: "doggy", breed: "bulldog" })],
      reject: ['{"name": "kitty", "test": "black"}'],
    },
    {
      name: "test_anyof_oneof: anyOf",
      kind: "agree",
      schema: { type: "object", properties: { name: { anyOf: [str, int] } } },
      accept: ['{"name": "John"}', '{"name": 123}'],
      reject: ['{"name": {"a": 1}}'],
    },
    {
      name: "test_anyof_oneof: oneOf",
      kind: "agree",
      schema: { type: "object", properties: { name: { oneOf: [str, int] } } },
      accept: ['{"name": "John"}', '{"name": 123}'],
      reject: ['{"name": {"a": 1}}'],
    },
    { name: "test_alias: by alias", kind: "agree", schema: obj({ name: str }, ["name"]), accept: ['{"name": "kitty"}'], reject: ['{"test": "kitty"}'] },
    { name: "test_alias: by field name", kind: "agree", schema: obj({ test: str }, ["test"]), accept: ['{"test": "kitty"}'] },
    { name: "test_alias: a name with a space", kind: "agree", schema: obj({ "name 1": { const: "abc", type: "string" } }, ["name 1"]), accept: ['{"name 1": "abc"}'], reject: ['{"name 1": "abd"}'] },
    { name: "test_restricted_string", kind: "agree", schema: obj({ restricted_string: restricted("[a-f]") }, ["restricted_string"]), accept: ['{"restricted_string": "a"}'], reject: ['{"restricted_string": "j"}'] },
    {
      name: "test_complex_restrictions",
      kind: "exact",
      schema: obj({ restricted_string: restricted('[^\\"]*'), restricted_value: { type: "integer", minimum: 0, exclusiveMaximum: 44 } }, ["restricted_string", "restricted_value"]),
      accept: ['{"restricted_string": "abd", "restricted_value": 42}', '{"restricted_string": "\\"", "restricted_value": 42}'],
      reject: ['{"restricted_string": "j", "restricted_value": 45}', '{"restricted_string": "j", "restricted_value": 44}'],
      peer: ['{"restricted_string": "\\"", "restricted_value": 42}'],
      why: 'a pattern searches: [^"]* matches the empty string at any position, so every string is valid; the test reads it as a full match',
    },
    {
      name: "test_dynamic_model",
      kind: "agree",
      schema: obj({ restricted_string: restricted("[a-f]"), restricted_string_dynamic: restricted("[a-x]") }, ["restricted_string", "restricted_string_dynamic"]),
      accept: ['{"restricted_string": "a", "restricted_string_dynamic": "j"}'],
      reject: ['{"restricted_string": "a", "restricted_string_dynamic": "z"}'],
    },
    {
      name: "test_any_whitespace",
      kind: "agree",
      schema: obj({ value: str, arr: { type: "array", items: int }, obj: { type: "object", additionalProperties: int } }, ["value", "arr", "obj"]),
      accept: [
        '{"value": "test", "arr": [1, 2], "obj": {"a": 1}}',
        '{ "value" : "test", "arr": [1, 2], "obj": {"a": 1} }',
        '{\n  "value"  :  "test",\n  "arr"  :  [1, 2],\n  "obj"  :  {"a": 1}\n}',
        '{\t"value"\t:\t"test",\t"arr":\t[1,\t2],\t"obj":\t{"a":\t1}\t}',
      ],
    },
    arrayError({ type: "array", prefixItems: { type: "string" } }, "#/prefixItems", "prefixItems must be an array"),
    arrayError({ type: "array", prefixItems: ["not an object"] }, "#/prefixItems/0", "prefixItems must be an array of objects or booleans"),
    {
      name: "test_array_schema_error_cases: prefixItems contains false",
      kind: "compiles",
      schema: { type: "array", prefixItems: [false] },
      accept: ["[]"],
      reject: ["[1]"],
      peerError: "prefixItems contains false",
    },
    arrayError({ type: "array", items: "not an object" }, "#/items", "items must be a boolean or an object"),
    arrayError({ type: "array", unevaluatedItems: "not an object" }, "#/unevaluatedItems", "unevaluatedItems must be a boolean or an object"),
    arrayError({ type: "array", minItems: "not an integer" }, "#/minItems", "minItems must be an integer"),
    arrayError({ type: "array", maxItems: -1 }, "#/maxItems", "maxItems must be a non-negative integer"),
    {
      name: "test_array_schema_error_cases: minItems is greater than maxItems",
      kind: "compiles",
      schema: { type: "array", minItems: 5, maxItems: 3 },
      reject: ["[]", "[1, 2, 3, 4]", "null"],
      peerError: "minItems is greater than maxItems: 5 > 3",
      why: "a valid schema that no value meets: compiled to a grammar that matches nothing",
    },
    {
      name: "test_array_schema_error_cases: maxItems below the prefixItems",
      kind: "compiles",
      schema: { type: "array", prefixItems: [{}, {}, {}], maxItems: 2 },
      accept: ["[]", "[1, 2]"],
      reject: ["[1, 2, 3]"],
      peerError: "maxItems is less than the number of prefixItems: 2 < 3",
    },
    {
      name: "test_array_schema_error_cases: minItems past closed prefixItems",
      kind: "compiles",
      schema: { type: "array", prefixItems: [{}, {}], minItems: 3, items: false },
      reject: ["[1, 2]", "[1, 2, 3]"],
      peerError: "minItems is greater than the number of prefixItems, but additional items are not allowed: 3 > 2",
    },
    {
      name: "test_array_schema: items",
      kind: "agree",
      schema: { type: "array", items: nameAge },
      accept: [dumps([{ name: "John", age: 30 }, { name: "Jane", age: 25 }])],
      reject: [dumps([{ name: "John" }])],
    },
    {
      name: "test_array_schema: prefixItems with additionalItems false",
      kind: "exact",
      schema: { type: "array", prefixItems: [nameAge, int, str], additionalItems: false },
      accept: [dumps([{ name: "John", age: 30 }, 42, "test"]), dumps([{ name: "John", age: 30 }, 42])],
      reject: [dumps([{ name: "John", age: 30 }, "test", 42]), dumps([{ name: "John" }, 42, "test"])],
      peer: [dumps([{ name: "John", age: 30 }, 42])],
      why: "xgrammar requires every prefixItems item",
    },
    {
      name: "test_array_schema: prefixItems with unevaluatedItems",
      kind: "agree",
      schema: { type: "array", prefixItems: [nameAge, int], unevaluatedItems: obj({ name: str }, ["name"]) },
      accept: [dumps([{ name: "John", age: 30 }, 42, { name: "Jane" }]), dumps([{ name: "John", age: 30 }, 42])],
      reject: [dumps([{ name: "John", age: 30 }, 42, 123]), dumps([{ name: "John", age: 30 }, { name: "Jane" }])],
    },
    { name: "test_array_schema_min_max: empty prefix, items false", kind: "agree", schema: { type: "array", items: false, prefixItems: [] }, accept: ["[]"], reject: ["[1]", "[1, 2]"] },
    { name: "test_array_schema_min_max: maxItems 0", kind: "agree", schema: { type: "array", items: int, minItems: 0, maxItems: 0 }, accept: ["[]"], reject: ["[1]", "[1, 2]"] },
    { name: "test_array_schema_min_max: maxItems 2", kind: "agree", schema: { type: "array", items: int, minItems: 0, maxItems: 2 }, accept: ["[]", "[1]", "[1, 2]"], reject: ["[1, 2, 3]"] },
    { name: "test_array_schema_min_max: 2 to 3 items", kind: "agree", schema: { type: "array", items: int, minItems: 2, maxItems: 3 }, accept: ["[1, 2]", "[1, 2, 3]"], reject: ["[]", "[1]", "[1, 2, 3, 4]"] },
    {
      name: "test_array_schema_min_max: prefix, items false",
      kind: "exact",
      schema: { type: "array", items: false, prefixItems: [str, int] },
      accept: ['["foo", 42]', '["foo"]'],
      reject: ['["foo", 42, "bar"]', '[42, "foo"]'],
      peer: ['["foo"]'],
      why: "xgrammar requires every prefixItems item",
    },
    {
      name: "test_array_schema_min_max: prefix, boolean items, 3 to 4",
      kind: "agree",
      schema: { type: "array", prefixItems: [str, int], items: bool, minItems: 3, maxItems: 4 },
      accept: ['["foo", 42, true]', '["foo", 42, true, false]'],
      reject: ['["foo", 42]', '["foo", 42, true, false, true]', '["foo", 42, "bar"]'],
    },
    {
      name: "test_array_schema_min_max: prefix, boolean items, at least 3",
      kind: "agree",
      schema: { type: "array", prefixItems: [str, int], items: bool, minItems: 3 },
      accept: ['["foo", 42, true]', '["foo", 42, true, false]', '["foo", 42, true, false, true]'],
      reject: ['["foo", 42]', '["foo", 42, "bar"]'],
    },
    {
      name: "test_array_with_only_items_keyword: items",
      kind: "agree",
      schema: { items: nameAge },
      accept: [dumps([{ name: "John", age: 30 }, { name: "Jane", age: 25 }])],
      reject: [dumps([{ name: "John" }])],
    },
    {
      name: "test_array_with_only_items_keyword: prefixItems",
      kind: "agree",
      schema: { prefixItems: [nameAge, nameAge] },
      accept: [dumps([{ name: "John", age: 30 }, { name: "Jane", age: 25 }])],
      reject: [dumps([{ name: "John" }])],
    },
    {
      name: "test_array_with_only_items_keyword: unevaluatedItems",
      kind: "agree",
      schema: { unevaluatedItems: nameAge },
      accept: [dumps([{ name: "John", age: 30 }, { name: "Jane", age: 25 }])],
      reject: [dumps([{ name: "John" }])],
    },
    {
      name: "test_object_with_only_properties_keyword: properties",
      kind: "agree",
      schema: { properties: { name: str, age: int }, required: ["name", "age"] },
      accept: ['{"name": "John", "age": 30}'],
      reject: ['{"name": "John"}'],
    },
    { name: "test_object_with_only_properties_keyword: additionalProperties", kind: "agree", schema: { additionalProperties: str }, accept: ['{"name": "John"}'], reject: ['{"name": "John", "age": 30}'] },
    { name: "test_object_with_only_properties_keyword: unevaluatedProperties", kind: "agree", schema: { unevaluatedProperties: str }, accept: ['{"name": "John"}'], reject: ['{"name": "John", "age": 30}'] },
    {
      name: "test_object_with_pattern_properties_and_property_names: patternProperties",
      kind: "agree",
      schema: { type: "object", patternProperties: { "^[a-zA-Z]+$": str, "^[0-9]+$": int, "^[a-zA-Z]*_[0-9]*$": { type: "object" } } },
      accept: [
        { aBcDe: "aaa" }, { "12345": 12345 }, { abc_123: { key: "value" } }, { _: { key: "value" } },
        { a: "value", b: "another_value", "000": 12345, abc_123: { key: "value" } },
      ].map((v) => dumps(v)).concat(['{"000": 12345, "a": "value", "abc_123": {"key": "value"}, "b": "another_value"}']),
      reject: [
        { "233A": "adfa" }, { aBcDe: 12345 }, { "12345": "aaa" }, { abc_123: 12345 },
        { a: "value", b: "another_value", "000": 12345, abc_123: "aaa" },
      ].map((v) => dumps(v)).concat([
        '{"a": "value", "b": "another_value", "000": 12345, "???": {"key": "value"}, "abc_123": {"key": "value"}}',
        '{"000": 12345, "a": "value", "abc_123": {"key": "value"}, "b": 12345}',
      ]),
    },
    {
      name: "test_object_with_pattern_properties_and_property_names: propertyNames",
      kind: "agree",
      schema: { type: "object", propertyNames: { pattern: "^[a-zA-Z0-9_]+$" } },
      accept: ['{"aBcDe": "aaa"}', '{"12345": 12345}', '{"abc_123": {"key": "value"}}', '{"_": {"key": "value"}}', '{"a": "value", "b": "another_value", "000": 12345, "abc_123": {"key": "value"}}'],
      reject: ['{"aBc?De": "aaa"}', '{"1234|5": 12345}', '{"abc_1.23": {"key": "value"}}', '{"_/": {"key": "value"}}', '{"a&": "value", "b": "another_value", "000": 12345, "abc_123": {"key": "value"}}', '{"00(0": 12345, "a": "value"}'],
    },
    objectError({ type: "object", properties: "not an object" }, "#/properties", "properties must be an object"),
    objectError({ type: "object", required: { key: "not an array" } }, "#/required", "required must be an array"),
    objectError({ type: "object", patternProperties: ["not an object"] }, "#/patternProperties", "patternProperties must be an object"),
    objectError({ type: "object", propertyNames: "not an object" }, "#/propertyNames", "propertyNames must be an object"),
    {
      name: "test_object_error_handle: propertyNames must validate strings",
      kind: "compiles",
      schema: { type: "object", propertyNames: { type: "object" } },
      accept: ["{}"],
      reject: ['{"a": 1}'],
      peerError: "propertyNames must be an object that validates string",
      why: "keys are strings, so only the empty object is valid",
    },
    objectError({ type: "object", minProperties: "not an integer" }, "#/minProperties", "minProperties must be an integer"),
    objectError({ type: "object", maxProperties: "not an integer" }, "#/maxProperties", "maxProperties must be an integer"),
    objectError({ type: "object", minProperties: -1 }, "#/minProperties", "minProperties must be a non-negative integer"),
    objectError({ type: "object", maxProperties: -1 }, "#/maxProperties", "maxProperties must be a non-negative integer"),
    { name: "test_object_error_handle: minProperties > maxProperties", kind: "compiles", schema: { type: "object", minProperties: 5, maxProperties: 3 }, reject: ["{}", '{"a": 1, "b": 2, "c": 3, "d": 4}'], peerError: "minxPropertiesmax is greater than maxProperties" },
    { name: "test_object_error_handle: maxProperties below required", kind: "compiles", schema: { type: "object", maxProperties: 1, required: ["key1", "key2"] }, reject: ["{}", '{"key1": 1, "key2": 2}'], peerError: "maxProperties is less than the number of required properties" },
    {
      name: "test_object_error_handle: minProperties past closed properties",
      kind: "compiles",
      schema: { type: "object", additionalProperties: false, properties: { key: str }, minProperties: 2 },
      reject: ["{}", '{"key": "a"}'],
      peerError: "minProperties is greater than the number of properties, but additional properties aren't allowed",
    },
    formatCase(
      "email",
      [
        "simple@example.com", "very.common@example.com", "FirstName.LastName@EasierReading.org", "x@example.com", "long.email-address-with-hyphens@and.subdomains.example.com",
        "user.name+tag+sorting@example.com", "name/surname@example.com", "admin@example", "example@s.example", String.raw`\" \"@example.org`, String.raw`\"john..doe\"@example.org`,
        "mailhost!username@example.org", String.raw`\"very.(),:;<>[]\\\".VERY.\\\"very@\\\\ \\\"very\\\".unusual\"@strange.example.com`, "user%example.com@example.org", "user-@example.org",
      ],
      ["abc.example.com", "a@b@c@example.com", String.raw`a"b(c)d,e:f;g<h>i[j\k]l@example.com`, 'just"not"right@example.com', String.raw`this is"not\allowed@example.com`, String.raw`this\ still\"not\\allowed@example.com`, "i.like.underscores@but_they_are_not_allowed_in_this_part"],
    ),
    formatCase("date", ["0000-01-01", "9999-12-31"], ["10-01-01", "2025-00-01", "2025-13-01", "2025-01-00", "2025-01-32"]),
    formatCase(
      "time",
      ["00:00:00Z", "23:59:60Z", "12:34:56Z", "12:34:56+07:08", "12:34:56-07:08", "12:34:56.7Z", "12:34:56.7+08:09", "12:34:56.7-08:09"],
      ["00:00:00", "23:59:60", "12:34:56.7", "12:34:56.7890", "24:00:00", "00:60:00", "00:00:61", "00:00:00.", "12:34:56+07:", "12:34:56-07:", "12:34:56.7+-08:09"],
    ),
    formatCase(
      "duration",
      ["P0Y", "P12M", "P345D", "P6789W", "P01234D", "PT9H", "PT87M", "PT654S", "P1Y23M456D", "P23M456D", "P1Y0M456D", "P1Y23M", "PT9H87M654S", "PT87M654S", "PT9H0M654S", "PT9H87M", "P1Y23M456DT9H87M654S"],
      ["P", "PD", "P1", "PT", "P1Y456D", "PT9H654S"],
    ),
    formatCase(
      "ipv6",
      [
        "0123:4567:890a:bced:fABC:DEF0:1234:5678", "::6666:6666:6666:6666:6666:6666", "::6666:6666:6666:6666:6666", "::6666:6666:6666:6666", "::6666:6666:6666", "::6666:6666", "::6666", "::",
        "8888:8888:8888:8888:8888:8888::", "8888:8888:8888:8888:8888::", "8888:8888:8888:8888::", "8888:8888:8888::", "8888:8888::", "8888::",
        "1111::2222", "1111:1111::2222", "1111::2222:2222", "1111:1111:1111::2222", "1111:1111::2222:2222", "1111::2222:2222:2222",
        "1111:1111:1111:1111::2222", "1111:1111:1111::2222:2222", "1111:1111::2222:2222:2222", "1111::2222:2222:2222:2222",
        "1111:1111:1111:1111:1111::2222", "1111:1111:1111:1111::2222:2222", "1111:1111:1111::2222:2222:2222", "1111:1111::2222:2222:2222:2222", "1111::2222:2222:2222:2222:2222",
        "1111:1111:1111:1111:1111:1111::2222", "1111:1111:1111:1111:1111::2222:2222", "1111:1111:1111:1111::2222:2222:2222", "1111:1111:1111::2222:2222:2222:2222",
        "1111:1111::2222:2222:2222:2222:2222", "1111::2222:2222:2222:2222:2222:2222",
        "2001:db8:3:4::192.0.2.33", "64:ff9b::192.0.2.33", "::ffff:0:255.255.255.255", "::111.111.222.222",
      ],
      [
        ":", ":::", "::5555:5555:5555:5555:5555:5555:5555:5555", "5555::5555:5555:5555:5555:5555:5555:5555", "5555:5555::5555:5555:5555:5555:5555:5555",
        "5555:5555:5555::5555:5555:5555:5555:5555", "5555:5555:5555:5555::5555:5555:5555:5555", "5555:5555:5555:5555:5555::5555:5555:5555",
        "5555:5555:5555:5555:5555:5555::5555:5555", "5555:5555:5555:5555:5555:5555:5555::5555", "5555:5555:5555:5555:5555:5555:5555:5555::",
      ],
    ),
    formatCase("ipv4", ["255.255.255.255"], ["00.00.00.00", "000.000.000.000", "1", "1.", "1.1", "1.1.", "1.1.1", "1.1.1.", "0001.0001.0001.0001", "256.256.256.256"], {
      kind: "stricter",
      peer: [q("00.00.00.00"), q("000.000.000.000")],
      why: "a dotted-quad octet has no leading zeros (RFC 2673; the JSON Schema test suite rejects them, as they read as octal elsewhere)",
    }),
    formatCase("hostname", [], [], {
      kind: "refused",
      error: { keyword: "format", path: "#/format" },
      why: "hostname needs IDNA tables for A-labels; refused rather than approximated (docs/json-schema.md)",
    }),
    formatCase(
      "uuid",
      ["00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "01234567-89AB-CDEF-abcd-ef0123456789"],
      [
        "-", "----", "AAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA", "BBBBBBBB-BBB-BBBB-BBBB-BBBBBBBBBBBB", "CCCCCCCC-CCCC-CCC-CCCC-CCCCCCCCCCCC", "DDDDDDDD-DDDD-DDDD-DDD-DDDDDDDDDDDD",
        "EEEEEEEE-EEEE-EEEE-EEEE-EEEEEEEEEEE", "AAAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA", "BBBBBBBB-BBBBB-BBBB-BBBB-BBBBBBBBBBBB", "CCCCCCCC-CCCC-CCCCC-CCCC-CCCCCCCCCCCC",
        "DDDDDDDD-DDDD-DDDD-DDDDD-DDDDDDDDDDDD", "EEEEEEEE-EEEE-EEEE-EEEE-EEEEEEEEEEEEE",
      ],
    ),
    formatCase(
      "uri",
      [
        "aaa:?azAZ09-._~%Ff!$&'()*+,;=:@#azAZ09-._~%Aa!$&'()*+,;=:@", "z+.-:", "abc:", "abc:a", "abc:/", "abc:/a", "abc://", "abc://///////", "abc://azAZ09-._~%Ff!$&'()*+,;=:@",
        "abc://:", "abc://:0123", "abc://azAZ09-._~%Ff!$&'()*+,;=", "xyz:/a", "xyz:/azAZ09-._~%Ff!$&'()*+,;=:@",
      ],
      ["aaa:?[#]", "abc://@@", "abc://::", "abc:/[]"],
    ),
    formatCase(
      "uri-reference",
      ["?azAZ09-._~%Ff!$&'()*+,;=:@#azAZ09-._~%Aa!$&'()*+,;=:@", "", "a", "/", "/a", "//", "/////////", "//azAZ09-._~%Ff!$&'()*+,;=:@", "//:", "//:0123", "//azAZ09-._~%Ff!$&'()*+,;=", "/azAZ09-._~%Ff!$&'()*+,;=:@"],
      ["?[#]", "//@@", "//::", "/[]", ":"],
    ),
    formatCase("uri-template", [], [], {
      kind: "refused",
      error: { keyword: "format", path: "#/format" },
      why: "uri-template is not enforced: refused rather than ignored (docs/json-schema.md)",
    }),
    formatCase("json-pointer", ["/", "//", "/a/bc/def/ghij", "/~0/~1/"], ["abc", "/~", "/~2"]),
    formatCase("relative-json-pointer", ["0/", "123/a/bc/def/ghij", "45/~0/~1/", "6789#"], ["#", "abc", "/", "9/~2"]),
    { name: "test_min_max_length", kind: "agree", schema: { type: "string", minLength: 1, maxLength: 10 }, accept: ['"abcdefghij"'], reject: ['"abcdefghijk"', '""'] },
    {
      name: "test_type_array",
      kind: "agree",
      schema: { type: ["integer", "string"], minLength: 1, maxLength: 10, minimum: 1, maximum: 10 },
      accept: ["1", '"1234567890"'],
      reject: ["11", '"12345678901"'],
    },
    {
      name: "test_type_array_empty",
      kind: "refused",
      schema: { type: [] },
      error: { keyword: "type", path: "#/type" },
      peerError: "(compiles to any JSON value)",
      why: "the metaschema requires a non-empty type list; validators that take it anyway allow no type, xgrammar allows every type, so tagmask names the keyword instead of guessing",
    },
    { name: "test_empty_array", kind: "agree", schema: { items: str, type: "array" }, accept: ["[]", '["a"]'] },
    { name: "test_empty_object", kind: "agree", schema: { properties: { name: str }, type: "object" }, accept: ["{}", '{"name": "test"}'] },
    { name: "test_primitive_type_string", kind: "agree", schema: str, accept: ['"test"'], reject: ["123"] },
    { name: "test_primitive_type_object", kind: "agree", schema: { type: "object" }, accept: ['{"name": "test"}'], reject: ['"test"'] },
    {
      name: "test_limited_whitespace_cnt",
      kind: "agree",
      schema: obj({ key: str }, ["key"]),
      options: { maxWhitespace: 2 },
      accept: ['{  "key"  :  "value"  }', '{"key":"value"}'],
      reject: ['{   "key"  :  "value"   }', '{    "key"  :  "value"    }'],
    },
    { name: "test_utf8_in_enum", kind: "agree", schema: { type: "string", enum: ["こんにちは", "😊", "你好", "hello", "\n"] }, accept: ['"こんにちは"', '"😊"', '"你好"', '"hello"', '"\\n"'], reject: ['"こんにちわ"'] },
    { name: "test_utf8_string_in_const", kind: "agree", schema: { const: "常数constじょうすう\n\r\t" }, accept: ['"常数constじょうすう\\n\\r\\t"'] },
    {
      name: "test_utf8_object_array_in_enum",
      kind: "stricter",
      schema: { type: "object", enum: [{ key: "こんにちは" }, { key: "😊" }, { key: "你好" }, { key: "hello" }, { key: "\n" }, [123, "こんにちは", "😊", "你好", "hello", "\n"]] },
      accept: ['{"key":"こんにちは"}', '{"key":"😊"}', '{"key":"你好"}', '{"key":"hello"}', '{"key":"\\n"}'],
      reject: ['[123,"こんにちは","😊","你好","hello","\\n"]'],
      peer: ['[123,"こんにちは","😊","你好","hello","\\n"]'],
      why: 'the array value is in the enum but not of "type": "object"; xgrammar reads enum alone and ignores type',
    },
    { name: "test_utf8_object_const", kind: "agree", schema: { type: "object", const: { key: "こんにちは常数constじょうすう\n\r\t" } }, accept: ['{"key":"こんにちは常数constじょうすう\\n\\r\\t"}'] },
    { name: "test_utf8_array_const", kind: "agree", schema: { type: "array", const: ["こんにちは", "😊", "你好", "hello", "\n"] }, accept: ['["こんにちは","😊","你好","hello","\\n"]'] },
  ],
};
