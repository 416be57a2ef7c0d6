// sequence, or, optional, plus, star, repeat and tag. Repeats stay inline IR repeats: the
// repetition pass unrolls small bounds and counts large ones (max -1 is unbounded in both).
import { GrammarError, pointerJoin } from '../errors.js';
import { beyondExpansionLimit, repeatStates } from '../expanded-size.js';
import { alt, type Expr, lit, opt, rep, seq, star } from '../ir.js';
import { MAX_AUTOMATON_STATES } from '../limits.js';
import type { LowerContext } from './lower-context.js';
import type { StNode, TagNode } from './types.js';

type Of<T extends StNode['type']> = Extract<StNode, { type: T }>;

export function lowerCombinator(lw: LowerContext, node: Of<'sequence' | 'or' | 'optional' | 'plus' | 'star' | 'repeat'>): Expr {
  switch (node.type) {
    case 'sequence':
      return seq(...node.elements.map((e) => lw.lower(e)));
    case 'or':
      return alt(...node.elements.map((e) => lw.lower(e)));
    case 'optional':
      return opt(lw.lower(node.content));
    case 'plus':
      return rep(lw.lower(node.content), 1, -1);
    case 'star':
      return star(lw.lower(node.content));
    case 'repeat': {
      const content = lw.lower(node.content);
      const states = repeatStates(content, node.min, node.max);
      const bound = node.max === -1 ? 'min' : 'max';
      if (states > MAX_AUTOMATON_STATES) throw GrammarError.at(pointerJoin(node.at, bound), `the repeat (${bound} ${node[bound]}) ${beyondExpansionLimit(states)}`);
      return rep(content, node.min, node.max);
    }
  }
}

export function tagBegin(tag: TagNode, skip = 0): Expr {
  return tag.begin.kind === 'string' ? lit(tag.begin.text.slice(skip)) : { kind: 'token', ids: [tag.begin.id] };
}

export function tagEnd(tag: TagNode): Expr {
  return tag.end.kind === 'strings' ? alt(...tag.end.texts.map(lit)) : { kind: 'token', ids: [tag.end.id] };
}

/** begin, content, end; `skip` drops that many characters of a string begin (already matched
 * as a trigger), `withBegin: false` drops a token begin (consumed by a token dispatch). */
export function lowerTag(lw: LowerContext, tag: TagNode, options: { skip?: number; withBegin?: boolean } = {}): Expr {
  const body = [lw.lower(tag.content), tagEnd(tag)];
  return options.withBegin === false ? seq(...body) : seq(tagBegin(tag, options.skip), ...body);
}
