// JSON text of API values in which some objects keep their keys in the order given. A plain
// JavaScript object lists integer-like keys first, in numeric order ("4" before "5" whatever
// was added first), and the legacy `top_logprobs` maps must read most likely first, as
// OpenAI's and vLLM's do: clients take the first key as the best token.
import { randomUUID } from 'node:crypto';

/** An object whose keys JSON text writes in this order (jsonText), not JavaScript's. */
export class OrderedObject {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}

  /** The value of a key, as on a plain object (the first entry with it). */
  get(key: string): unknown {
    return this.entries.find(([k]) => k === key)?.[1];
  }
}

/** JSON.stringify, with each OrderedObject written in its own order. */
export function jsonText(value: unknown): string {
  const held: OrderedObject[] = [];
  // A mark no text can hold by chance, replaced by each object's own JSON once stringified.
  const mark = `\u0000${randomUUID()}:`;
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof OrderedObject ? `${mark}${held.push(v) - 1}` : v));
  if (held.length === 0) return text;
  const quoted = JSON.stringify(mark).slice(0, -1);
  let out = '';
  let from = 0;
  for (let at = text.indexOf(quoted); at >= 0; at = text.indexOf(quoted, from)) {
    const end = text.indexOf('"', at + quoted.length);
    out += text.slice(from, at) + objectText(held[Number(text.slice(at + quoted.length, end))]!);
    from = end + 1;
  }
  return out + text.slice(from);
}

function objectText(object: OrderedObject): string {
  return `{${object.entries.map(([key, v]) => `${JSON.stringify(key)}:${jsonText(v)}`).join(',')}}`;
}
