// A Responses request as the chat request it means, so that it runs through the chat pipeline
// (chat-generation.ts): instructions as a first system message, input items as messages (a run
// of function_call items as one assistant message's tool_calls, each output as a tool message),
// flat function tools nested as chat's, text.format as response_format.
import type { ChatMessage, ChatRequest, ChatTool } from '../chat-completions/chat-request.js';
import { LOGPROBS_INCLUDE, type InputItem, type ResponsesRequest, type TextFormat, type TextPart } from './responses-request.js';

export function toChatRequest(request: ResponsesRequest): ChatRequest {
  const logprobs = request.include?.includes(LOGPROBS_INCLUDE) === true;
  const tools = request.tools?.length ? request.tools.map(toChatTool) : undefined;
  const responseFormat = toResponseFormat(request.text?.format);
  return {
    model: request.model,
    messages: [...(request.instructions != null ? [{ role: 'system' as const, content: request.instructions }] : []), ...toMessages(request.input)],
    ...(request.max_output_tokens != null ? { max_completion_tokens: request.max_output_tokens } : {}),
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
    ...(request.top_p != null ? { top_p: request.top_p } : {}),
    ...(logprobs ? { logprobs: true, top_logprobs: request.top_logprobs ?? 0 } : {}),
    ...(request.user != null ? { user: request.user } : {}),
    ...(request.stream != null ? { stream: request.stream } : {}),
    ...(tools ? { tools, ...toolChoiceOf(request), ...(request.parallel_tool_calls != null ? { parallel_tool_calls: request.parallel_tool_calls } : {}) } : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
  };
}

function toChatTool(tool: NonNullable<ResponsesRequest['tools']>[number]): ChatTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description != null ? { description: tool.description } : {}),
      ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
      ...(tool.strict != null ? { strict: tool.strict } : {}),
    },
  };
}

function toolChoiceOf(request: ResponsesRequest): Pick<ChatRequest, 'tool_choice'> {
  const choice = request.tool_choice;
  if (choice == null) return {};
  if (typeof choice === 'string') return { tool_choice: choice };
  const named = (name: string) => ({ type: 'function' as const, function: { name } });
  if (choice.type === 'function') return { tool_choice: named(choice.name) };
  return { tool_choice: { type: 'allowed_tools', allowed_tools: { mode: choice.mode, tools: choice.tools.map((tool) => named(tool.name)) } } };
}

/** OpenAI's flat json_schema format in chat's nested shape; undefined for plain text. */
function toResponseFormat(format: TextFormat | undefined): ChatRequest['response_format'] {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { type, ...jsonSchema } = format;
  return { type, json_schema: jsonSchema };
}

const partsText = (parts: string | TextPart[]) => (typeof parts === 'string' ? parts : parts.map((part) => (part.type === 'refusal' ? part.refusal : part.text)).join(''));

function toMessages(input: ResponsesRequest['input']): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: ChatMessage[] = [];
  for (const item of input as InputItem[]) {
    if (item.type === 'reasoning') continue; // earlier turns' thinking: templates leave it out
    if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      // A reply's text and its calls (or several calls in a row) are one assistant turn.
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: partsText(item.output) });
    } else {
      messages.push({ role: item.role, content: partsText(item.content) });
    }
  }
  return messages;
}
