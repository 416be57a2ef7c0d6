// OpenAI-shaped messages into the shape chat templates expect: text parts joined, tool-call
// arguments as objects (templates apply `tojson` to them), null content as empty text; and
// consecutive tool results as one message, for templates that demand alternating roles. Tools
// get an empty description where the request left it out (OpenAI makes it optional; gpt-oss's
// template concatenates it and fails on a missing one, while "" reads as absent in any test).

/** A message as chat templates read it. */
export interface TemplateMessage {
  role: string;
  content: string;
  name?: string;
  tool_calls?: { id?: string; type: 'function'; function: { name: string; arguments: Record<string, unknown> | string } }[];
  tool_call_id?: string;
}

export interface IncomingMessage {
  role: string;
  /** Text parts; an assistant's refusal parts are its text too; a tool message's objects without `type` are structured data. */
  content?: string | ({ type: 'text'; text: string } | { type: 'refusal'; refusal: string } | { type?: undefined; [field: string]: unknown })[] | null;
  name?: string;
  tool_calls?: { id?: string; type?: 'function'; function: { name: string; arguments: string | Record<string, unknown> } }[] | null;
  tool_call_id?: string;
  /** An OpenAI reply's refusal: the text of a message without content. */
  refusal?: string | null;
}

export interface IncomingTool {
  type?: string;
  function: { name: string; description?: string; parameters?: unknown };
}

export function toTemplateTools(tools: readonly IncomingTool[]): IncomingTool[] {
  return tools.map((tool) => (tool.function.description === undefined ? { ...tool, function: { ...tool.function, description: '' } } : tool));
}

export function toTemplateMessages(messages: readonly IncomingMessage[]): TemplateMessage[] {
  return messages.map((message, index) => {
    const content = typeof message.content === 'string' ? message.content : message.content ? partsText(message.content) : (message.refusal ?? '');
    // OpenAI's developer messages are the system instructions; chat templates know only 'system'.
    const out: TemplateMessage = { role: message.role === 'developer' ? 'system' : message.role, content };
    if (message.name !== undefined) out.name = message.name;
    if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id;
    if (message.tool_calls) {
      out.tool_calls = message.tool_calls.map((call, k) => ({
        id: call.id ?? `call_${index}_${k}`,
        type: 'function',
        function: { name: call.function.name, arguments: parseArguments(call.function.arguments) },
      }));
    }
    return out;
  });
}

/** Parts as one text: text parts joined as written; with structured data among them, each part on a line of its own, an object as its JSON. */
function partsText(parts: NonNullable<Exclude<IncomingMessage['content'], string>>): string {
  const texts = parts.map((part) => (part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : JSON.stringify(part)));
  return texts.join(parts.some((part) => part.type === undefined) ? '\n' : '');
}

function parseArguments(value: string | Record<string, unknown>): Record<string, unknown> | string {
  if (typeof value !== 'string') return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : value;
  } catch {
    return value; // a template that wants text gets the text the client sent
  }
}

/**
 * Each run of consecutive `tool` messages as one: the results of one round of calls, their
 * texts joined by line breaks, under the first one's call id. Templates that demand alternating
 * roles refuse a second tool message in a row, though the results answer one assistant turn.
 */
export function mergeToolRuns(messages: readonly TemplateMessage[]): TemplateMessage[] {
  const out: TemplateMessage[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (message.role === 'tool' && last?.role === 'tool') out[out.length - 1] = { ...last, content: `${last.content}\n${message.content}` };
    else out.push(message);
  }
  return out;
}
