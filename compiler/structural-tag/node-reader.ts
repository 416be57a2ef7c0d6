// Typed access to the fields of one structural-tag node, with errors that carry a JSON pointer
// to the offending field: unknown fields, missing required ones, wrong types, and token ids
// (integers, or strings resolved against the vocabulary).
import { GrammarError, pointerJoin } from '../errors.js';
import type { StructuralTagOptions } from './types.js';

export type Json = unknown;

export function describe(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return `${typeof value} ${String(value)}`;
}

export function isPlainObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class NodeReader {
  constructor(
    readonly obj: Record<string, Json>,
    readonly at: string,
    readonly kind: string,
    allowed: readonly string[],
  ) {
    for (const key of Object.keys(obj)) {
      if (key !== 'type' && !allowed.includes(key)) {
        throw GrammarError.at(pointerJoin(at, key), `unknown field '${key}' in ${aNode(kind)} (its fields: ${allowed.join(', ') || 'none'})`);
      }
    }
  }

  ptr(...segments: (string | number)[]): string {
    return pointerJoin(this.at, ...segments);
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined;
  }

  /** The raw value of a required field. */
  required(name: string): Json {
    if (!this.has(name)) throw GrammarError.at(this.at, `${aNode(this.kind)} needs the field '${name}'`);
    return this.obj[name];
  }

  wrongType(name: string, expected: string, at = this.ptr(name), value: Json = this.obj[name]): GrammarError {
    return GrammarError.at(at, `'${name}' of ${aNode(this.kind)} must be ${expected}, not ${describe(value)}`);
  }

  string(name: string, fallback?: string): string {
    const value = fallback !== undefined && !this.has(name) ? fallback : this.required(name);
    if (typeof value !== 'string') throw this.wrongType(name, 'a string');
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    if (!this.has(name)) return fallback;
    const value = this.obj[name];
    if (typeof value !== 'boolean') throw this.wrongType(name, 'true or false');
    return value;
  }

  integer(name: string): number {
    const value = this.required(name);
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw this.wrongType(name, 'an integer');
    return value;
  }

  /** A list field; `fallback` makes it optional. */
  list(name: string, fallback?: Json[]): Json[] {
    const value = fallback !== undefined && !this.has(name) ? fallback : this.required(name);
    if (!Array.isArray(value)) throw this.wrongType(name, 'a list');
    return value;
  }

  /** A list of strings; with `nonEmpty`, each string must have at least one character. */
  strings(name: string, options: { fallback?: string[]; nonEmpty?: string } = {}): string[] {
    const list = this.list(name, options.fallback);
    return list.map((item, i) => {
      if (typeof item !== 'string') throw GrammarError.at(this.ptr(name, i), `items of '${name}' must be strings, not ${describe(item)}`);
      if (options.nonEmpty && item === '') throw GrammarError.at(this.ptr(name, i), `an empty string cannot be ${options.nonEmpty}`);
      return item;
    });
  }
}

/**
 * Resolves a token given by id or by its exact text; `what` names the node for messages. A token
 * the output is to contain (`emitted`, all but exclusion lists) is never an end-of-generation
 * token: the engine ends the output there, where the format may end, so a format that asks for
 * one mid-way could never be followed.
 */
export function tokenId(value: Json, at: string, what: string, options: StructuralTagOptions, emitted = true): number {
  const id = resolvedTokenId(value, at, what, options);
  if (emitted && options.stopTokens?.has(id)) {
    throw GrammarError.at(at, `${what}: the token ${JSON.stringify(value)} ends generation (an end-of-generation token of the model), so the output cannot contain it; the output ends with it where the format may end`);
  }
  return id;
}

function resolvedTokenId(value: Json, at: string, what: string, options: StructuralTagOptions): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw GrammarError.at(at, `${what}: a token id must be a non-negative integer, not ${value}`);
    if (options.vocabSize !== undefined && value >= options.vocabSize) {
      throw GrammarError.at(at, `${what}: token id ${value} is outside the vocabulary (${options.vocabSize} tokens)`);
    }
    return value;
  }
  if (typeof value === 'string') {
    if (!options.resolveToken) {
      throw GrammarError.at(at, `${what}: the token ${JSON.stringify(value)} is given as text, which needs a vocabulary (compile with a tokenizer, or give its id)`);
    }
    const id = options.resolveToken(value);
    if (id === undefined) throw GrammarError.at(at, `${what}: no token of the vocabulary is exactly ${JSON.stringify(value)}`);
    return id;
  }
  throw GrammarError.at(at, `${what}: a token must be an integer id or a string, not ${describe(value)}`);
}

/** Whether a list's tokens are output the format asks for, or tokens it keeps out. */
export type TokenListUse = 'output' | 'excluded';

export function tokenIds(reader: NodeReader, name: string, use: TokenListUse, options: StructuralTagOptions, fallback?: Json[]): number[] {
  // Only exclusion lists may name an end-of-generation token: they keep it out.
  const emitted = use === 'output';
  return reader.list(name, fallback).map((item, i) => tokenId(item, reader.ptr(name, i), `'${name}' of ${aNode(reader.kind)}`, options, emitted));
}

/** "a const_string node", "an optional node": a node named by its type in a message. */
export function aNode(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} node`;
}
