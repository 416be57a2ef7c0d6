// JSON text of API values in which some objects keep their keys in the order given. A plain
// JavaScript object lists integer-like keys first, in numeric order ("4" before "5" whatever
// was added first), and the legacy `top_logprobs` maps must read most likely first, as
// OpenAI's and vLLM's do: clients take the first key as the best token.
import { randomUUID } from 'node:crypto';

/** A mark no text can hold by chance (clients never see it): where an OrderedObject goes. */
const MARK = `\u0000${randomUUID()}:`;
const QUOTED_MARK = JSON.stringify(MARK).slice(0, -1);

/** The OrderedObjects met by the jsonText call under way (JSON.stringify is synchronous). */
let held: OrderedObject[] | undefined;

/** An object whose keys JSON text writes in this order (jsonText), not JavaScript's. */
export class OrderedObject {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}

  /** Inside jsonText a mark for its own text; elsewhere (plain JSON.stringify) the plain object, in JavaScript's order. */
  toJSON(): unknown {
    return held ? `${MARK}${held.push(this) - 1}` : Object.fromEntries(this.entries);
  }
}

/** JSON.stringify, with each OrderedObject written in its own order (as fast as JSON.stringify where there is none). */
export function jsonText(value: unknown): string {
  const met: OrderedObject[] = [];
  held = met;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    held = undefined;
  }
  if (met.length === 0) return text;
  let out = '';
  let from = 0;
  for (let at = text.indexOf(QUOTED_MARK); at >= 0; at = text.indexOf(QUOTED_MARK, from)) {
    const end = text.indexOf('"', at + QUOTED_MARK.length);
    out += text.slice(from, at) + objectText(met[Number(text.slice(at + QUOTED_MARK.length, end))]!);
    from = end + 1;
  }
  return out + text.slice(from);
}

function objectText(object: OrderedObject): string {
  return `{${object.entries.map(([key, v]) => `${JSON.stringify(key)}:${jsonText(v)}`).join(',')}}`;
}
