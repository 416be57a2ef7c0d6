// The built-in JSON grammars (RFC 8259: whitespace is space, tab, LF and CR, also around the
// top-level value). grammars/json.ebnf and grammars/json-object.ebnf hold the same text as
// data for CI; a test keeps them equal.

const COMMON = String.raw`value ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws "}" | "{" ws member (ws "," ws member)* ws "}"
member ::= string ws ":" ws value
array ::= "[" ws "]" | "[" ws value (ws "," ws value)* ws "]"
string ::= "\"" ([^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}))* "\""
number ::= "-"? ("0" | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [+-]? [0-9]+)?
ws ::= [ \t\n\r]*
`;

/** Any JSON value. */
export const JSON_GRAMMAR = `# Any JSON value (RFC 8259).\nroot ::= ws value ws\n${COMMON}`;

/** Any JSON object: the grammar of JSON mode. */
export const JSON_OBJECT_GRAMMAR = `# Any JSON object (JSON mode).\nroot ::= ws object ws\n${COMMON}`;
