// The size and nesting limits of a structural tag (limits.ts), checked before validation,
// which (like lowering) recurses once per node level. Embedded JSON schemas get their own
// limits checked here too, since the lowering keys shared nodes by their JSON text.
import { GrammarError, pointerJoin } from '../errors.js';
import { checkSchemaSize } from '../json-schema/check-size.js';
import { MAX_NESTING, MAX_NODES } from '../limits.js';
import { isPlainObject } from './node-reader.js';

export function checkTagSize(input: unknown): void {
  const top = isPlainObject(input) && (input.type === 'structural_tag' || (input.type === undefined && 'format' in input));
  const queue: [unknown, string, number][] = [top ? [(input as Record<string, unknown>).format, '/format', 1] : [input, '', 1]];
  for (let i = 0; i < queue.length; i++) {
    const [node, at, level] = queue[i]!;
    if (!isPlainObject(node)) continue; // validation names it
    if (i >= MAX_NODES) throw GrammarError.at(at, `the structural tag has more than ${MAX_NODES} format nodes (the limit)`);
    if (level > MAX_NESTING) throw GrammarError.at(at, `format nodes nest more than ${MAX_NESTING} levels deep here (the limit)`);
    const push = (child: unknown, ...path: (string | number)[]): void => {
      if (queue.length <= MAX_NODES) queue.push([child, pointerJoin(at, ...path), level + 1]);
    };
    if ('content' in node) push(node.content, 'content');
    for (const key of ['elements', 'tags']) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((child, k) => push(child, key, k));
    }
    if (Array.isArray(node.rules)) node.rules.forEach((rule, k) => isPlainObject(rule) && push(rule.format, 'rules', k, 'format'));
    if ('json_schema' in node) {
      try {
        checkSchemaSize(node.json_schema);
      } catch (error) {
        if (!(error instanceof GrammarError) || error.location.kind !== 'pointer') throw error;
        const inner = error.location.pointer;
        throw GrammarError.at(pointerJoin(at, 'json_schema') + inner, error.message.slice(`${inner || '/'}: `.length));
      }
    }
  }
}
