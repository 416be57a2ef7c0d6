// What a node family's validation (validate-*.ts) needs from the validator, and the helpers
// they share. A leaf module: validate.ts implements the interface and dispatches to those
// files, which only see this one, so the front end has no import cycle.
import { GrammarError } from '../errors.js';
import type { Json } from './node-reader.js';
import type { EnclosingEnd, StNode, StructuralTagOptions, TagNode } from './types.js';

export interface ValidateContext {
  readonly options: StructuralTagOptions;
  /** A validated node; `end` is what the nearest enclosing tag ends with. */
  node(value: Json, at: string, end: EnclosingEnd): StNode;
  /** A validated `tag` node (`expectTag`: its `type` must say so). */
  tag(value: Json, at: string, expectTag?: boolean): TagNode;
}

export function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/** The excludes of unlimited text inside a tag: its own plus the tag's end strings. */
export function withEnclosingEnd(own: string[], end: EnclosingEnd, at: string, kind: string): string[] {
  if (end.strings.includes('')) {
    if (own.length === 0) {
      throw GrammarError.at(end.at, `the tag's content (the ${kind} at ${at || '/'}) is unlimited text, so the tag needs a non-empty end: nothing could tell where the content stops`);
    }
  }
  return unique([...own, ...end.strings.filter((s) => s !== '')]);
}
