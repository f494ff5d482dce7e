/**
 * Cases of xgrammar's tests/python/test_grammar_matcher_ebnf.py: EBNF grammars (xgrammar's
 * dialect, read as written) and the outputs its test accepts and rejects.
 */
import type { EbnfCase } from "./cases.js";

const JSON_EBNF = String.raw`
root ::= basic_array | basic_object
basic_any ::= basic_number | basic_string | basic_boolean | basic_null | basic_array | basic_object
basic_integer ::= ("0" | "-"? [1-9] [0-9]*) ".0"?
basic_number ::= ("0" | "-"? [1-9] [0-9]*) ("." [0-9]+)? ([eE] [+-]? [0-9]+)?
basic_string ::= (([\"] basic_string_1 [\"]))
basic_string_1 ::= "" | [^"\\\x00-\x1F] basic_string_1 | "\\" escape basic_string_1
escape ::= ["\\/bfnrt] | "u" [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9]
basic_boolean ::= "true" | "false"
basic_null ::= "null"
basic_array ::= "[" ("" | ws basic_any (ws "," ws basic_any)*) ws "]"
basic_object ::= "{" ("" | ws basic_string ws ":" ws basic_any ( ws "," ws basic_string ws ":" ws basic_any)*) ws "}"
ws ::= [ \n\t]*
`;

const SIMPLE_JSON_EBNF = String.raw`
root ::= basic_object
basic_any ::= basic_string | basic_object
basic_string ::= (([\"] basic_string_1 [\"]))
basic_string_1 ::= "" | [^"\\\r\n] basic_string_1 | "\\" escape basic_string_1
escape ::= ["\\/bfnrt] | "u" [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9]
basic_object ::= "{" ("" | ws basic_string ws ":" ws basic_any ( ws "," ws basic_string ws ":" ws basic_any)*) ws "}"
ws ::= [ \n\t]*
`;

const LOREM = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. Integer nec odio. Praesent libero. Sed cursus ante dapibus diam. ".repeat(8);
const WEB_APP = `{
    "web-app": {
    "servlet": [
        {
        "servlet-name": "cofaxCDS",
        "init-param": {
            "configGlossary:installationAt": "Philadelphia, PA",
            "useJSP": false,
            "cachePackageTagsTrack": 200,
            "dataStoreTestQuery": "SET NOCOUNT ON;select test='test';",
            "maxUrlLength": 500
        }
        },
        {
        "servlet-name": "cofaxAdmin",
        "servlet-class": "org.cofax.cds.AdminServlet"
        }
    ],
    "servlet-mapping": {
        "cofaxCDS": "/",
        "cofaxEmail": "/cofaxutil/aemail/*"
    },
    "taglib": {
        "taglib-uri": "cofax.tld",
        "taglib-location": "/WEB-INF/tlds/cofax.tld"
    }
    }
}`;

export const MATCHER_EBNF_CASES: EbnfCase[] = [
  { name: "test_simple", grammar: 'root ::= rule1 rule2\nrule1 ::= (rule2 | rule3) "a"\nrule2 ::= "b"\nrule3 ::= "c"\n', accepted: ["bab", "cab"], rejected: ["abb"] },
  {
    name: "test_repetition",
    grammar: '\n        root ::= rule {2, 3}\n        rule ::= ("a" | [bc] {4,})\n    ',
    accepted: ["aaa", "abcbc", "bcbcbcbcbc", "bcbcbcbcbcbcbcb"],
    rejected: ["d", "aaaa"],
  },
  { name: "test_utf8", grammar: "root ::= [，]+", accepted: ["，", "，，，", "，".repeat(22)], rejected: [] },
  { name: "test_custom_root_rule", grammar: SIMPLE_JSON_EBNF, root: "basic_string", accepted: [String.raw`"abc\r\n"`], rejected: ['{"name": "John" }'] },
  {
    name: "test_json_accept / test_json_refuse / test_json_pressure",
    grammar: JSON_EBNF,
    accepted: [
      '{"name": "John"}', '{ "name" : "John" }', "{}", "[]", '{"name": "Alice", "age": 30, "city": "New York"}',
      '{"name": "Mike", "hobbies": ["reading", "cycling", "hiking"]}', '{"name": "Emma", "address": {"street": "Maple Street", "city": "Boston"}}',
      '[{"name": "David"}, {"name": "Sophia"}]', '{"name": "William", "age": null, "married": true, "children": ["Liam", "Olivia"], "hasPets": false}',
      '{"name": "Olivia", "contact": {"email": "olivia@example.com", "address": {"city": "Chicago", "zipcode": "60601"}}}',
      '{"name": "Liam", "skills": ["Java", "Python"], "experience": [{"company": "CompanyA", "years": 5}, {"company": "CompanyB", "years": 3}]}',
      `["${LOREM}"]`, WEB_APP,
    ],
    rejected: [
      String.raw`{ name: "John" }`, String.raw`{ "name": "John" } `, String.raw`{ "name": "John", "age": 30, }`,
      String.raw`{ "name": "John", "address": { "street": "123 Main St", "city": "New York" }`,
      String.raw`{ "name": "John", "age": 30, "hobbies": ["reading", "traveling",], }`, String.raw`{ "name": "John", "age": 30.5.7 }`,
      String.raw`{ "name": "John, "age": 30, "hobbies": ["reading", "traveling"] }`,
      String.raw`{ "name": "John", "age": 30, "hobbies": ["reading", { "type": "outdoor", "list": ["hiking", "swimming",]}] }`,
      String.raw`{ "name": "John", "age": 30, "status": "\P\J" }`,
      String.raw`{ "name": "John", "age": 30, "hobbies": ["reading", "traveling"], "address": { "street": "123 Main St", "city": "New York", "coordinates": { "latitude": 40.7128, "longitude": -74.0060 }}}, "work": { "company": "Acme", "position": "developer" }}`,
    ],
  },
];
