// The structural-tag tree after validation: defaults filled in, token strings resolved to ids,
// the deprecated `qwen_xml_parameter` turned into `json_schema`, and every node carrying the
// JSON pointer it came from (so later errors, e.g. from an embedded EBNF grammar, can name it).
import type { JsonSchemaStyle } from '../json-schema/options.js';

export interface StructuralTagOptions {
  /** Id of the token whose text is exactly `text`, or undefined. Needed for tokens given as strings. */
  resolveToken?: (text: string) => number | undefined;
  /** When given, integer token ids must be below it. */
  vocabSize?: number;
  /**
   * The vocabulary's end-of-generation tokens, when known: a format cannot ask for one as
   * output (a token node, a tag's begin or end, a trigger), since it ends the output instead.
   */
  stopTokens?: ReadonlySet<number>;
  /** `max_whitespace_cnt` of the json_schema nodes that set neither it nor `max_whitespace`. */
  maxWhitespaceCount?: number;
}

export const NODE_KINDS = [
  'const_string', 'json_schema', 'any_text', 'token', 'exclude_token', 'any_tokens', 'grammar', 'regex',
  'qwen_xml_parameter', 'sequence', 'or', 'tag', 'triggered_tags', 'token_triggered_tags',
  'tags_with_separator', 'optional', 'plus', 'star', 'repeat', 'dispatch', 'token_dispatch',
] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

interface At {
  /** JSON pointer of the node in the input. */
  at: string;
}

export interface TagNode extends At {
  type: 'tag';
  begin: { kind: 'string'; text: string } | { kind: 'token'; id: number };
  content: StNode;
  /** Any one of `texts` closes the tag; or one token. */
  end: { kind: 'strings'; texts: string[] } | { kind: 'token'; id: number };
}

export type StNode = At &
  (
    | { type: 'const_string'; value: string }
    | { type: 'json_schema'; schema: unknown; style: JsonSchemaStyle; anyOrder: boolean; maxWhitespace: number | null | undefined; maxWhitespaceCount: number | undefined; insideTag: boolean }
    | { type: 'any_text'; excludes: string[] }
    | { type: 'token'; token: number }
    | { type: 'exclude_token' | 'any_tokens'; excludeTokens: number[] }
    | { type: 'grammar'; grammar: string }
    | { type: 'regex'; pattern: string }
    | { type: 'sequence' | 'or'; elements: StNode[] }
    | Omit<TagNode, 'at'>
    | { type: 'triggered_tags'; triggers: string[]; tags: TagNode[]; atLeastOne: boolean; stopAfterFirst: boolean; excludes: string[] }
    | { type: 'token_triggered_tags'; triggerTokens: number[]; tags: TagNode[]; excludeTokens: number[]; atLeastOne: boolean; stopAfterFirst: boolean }
    | { type: 'tags_with_separator'; tags: TagNode[]; separator: string; atLeastOne: boolean; stopAfterFirst: boolean }
    | { type: 'optional' | 'plus' | 'star'; content: StNode }
    | { type: 'repeat'; min: number; max: number; content: StNode }
    | { type: 'dispatch'; rules: { pattern: string; format: StNode }[]; loop: boolean; excludes: string[] }
    | { type: 'token_dispatch'; rules: { token: number; format: StNode }[]; loop: boolean; excludeTokens: number[] }
  );

/** What the nearest enclosing `tag` ends with: excluded from unlimited content inside it. */
export interface EnclosingEnd {
  strings: string[];
  token: number | null;
  /** Pointer of that tag's `end`, for errors. */
  at: string;
}

export const NO_END: EnclosingEnd = { strings: [], token: null, at: '' };
