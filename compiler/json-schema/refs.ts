// Local references: `#/...` JSON pointers into the root schema.
import { GrammarError } from '../errors.js';
import { isObject, type Schema } from './lowering.js';

/** The pointer a `#...` reference names. */
export function targetPointer(refText: string): string {
  return refText.slice(1).split('/').map((s) => decodeURIComponent(s)).join('/');
}

/** The schema at `pointer`; `at` names the reference for an error. */
export function lookup(root: Schema, pointer: string, at: string): Schema {
  let cur: unknown = root;
  if (pointer !== '') {
    for (const raw of pointer.split('/').slice(1)) {
      const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      cur = isObject(cur) || Array.isArray(cur) ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  if (cur === undefined || (typeof cur !== 'boolean' && !isObject(cur))) {
    throw GrammarError.at(at, `the reference '#${pointer}' does not resolve to a schema`);
  }
  return cur as Schema;
}

/** A `$ref` resolver over `root`: the schema a reference names and its pointer (`at`: the
 * reference, for an error). */
export function refResolver(root: Schema): (refText: string, at: string) => { schema: Schema; pointer: string } {
  return (refText, at) => {
    const pointer = targetPointer(refText);
    return { schema: lookup(root, pointer, at), pointer };
  };
}

export function ruleNameOf(pointer: string): string {
  const last = pointer.split('/').at(-1) ?? '';
  return last === '' ? 'root_ref' : `def_${last.replace(/[^A-Za-z0-9_]/g, '_')}`;
}
