// A stored response's input items (GET /v1/responses/{id}/input_items): the items the response
// was generated from (the stored conversation before it and its own input), each with an id, as
// OpenAI lists them: newest first unless `order=asc`, `limit` at a time (1 to 100, default 20),
// the page after the item `after` names.
import { randomBytes } from 'node:crypto';
import { badRequest } from '../api-error.js';
import type { InputItem } from './responses-request.js';

const ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/**
 * The items as they are stored: each with an id (kept where it came with one: an earlier
 * response's output) and a message's text as content parts, as OpenAI's listing shows them.
 */
export function withItemIds(items: readonly InputItem[]): InputItem[] {
  return items.map((item) => {
    const type = item.type ?? 'message';
    const listed = { ...item, type } as InputItem & { id?: string; status?: string };
    if (typeof listed.id !== 'string') listed.id = `${ID_PREFIX[type] ?? 'item'}_${randomBytes(12).toString('hex')}`;
    if (type === 'message' && 'content' in listed && typeof listed.content === 'string') {
      const text = listed.content;
      (listed as { content: unknown }).content = [listed.role === 'assistant' ? { type: 'output_text', text, annotations: [] } : { type: 'input_text', text }];
    }
    if (type !== 'reasoning') listed.status ??= 'completed';
    return listed;
  });
}

const QUERY = ['after', 'limit', 'order'];

/** One page of `items` for the request's query; a 400 naming the query parameter that is wrong. */
export function inputItemsPage(items: readonly InputItem[], query: Record<string, string | string[]>): object {
  const unknown = Object.keys(query).find((key) => !QUERY.includes(key));
  if (unknown !== undefined) throw badRequest(`Unknown query parameter '${unknown}': input_items takes ${QUERY.join(', ')} (include adds nothing here: items are kept as they came).`, unknown);
  for (const key of QUERY) if (Array.isArray(query[key])) throw badRequest(`${key} is given more than once.`, key);
  const { after, limit = '20', order = 'desc' } = query as Record<string, string | undefined>;
  const count = Number(limit);
  if (!/^\d+$/.test(limit) || count < 1 || count > 100) throw badRequest(`limit must be a whole number from 1 to 100, got '${limit}'.`, 'limit');
  if (order !== 'asc' && order !== 'desc') throw badRequest(`order must be 'asc' or 'desc', got '${order}'.`, 'order');
  const ordered = order === 'asc' ? [...items] : [...items].reverse();
  let start = 0;
  if (after !== undefined) {
    const at = ordered.findIndex((item) => (item as { id?: string }).id === after);
    if (at < 0) throw badRequest(`after names no input item of this response: '${after}'.`, 'after');
    start = at + 1;
  }
  const data = ordered.slice(start, start + count);
  const idOf = (item: InputItem | undefined) => (item as { id?: string } | undefined)?.id ?? null;
  return { object: 'list', data, first_id: idOf(data[0]), last_id: idOf(data.at(-1)), has_more: start + count < ordered.length };
}
