// Shared by the tool suites: the official client types calls as function-or-custom; ours are
// always function calls, which this checks before narrowing.
import type OpenAI from 'openai';
import * as assert from 'uvu/assert';

export function functionCalls(message: { tool_calls?: readonly { type: string }[] | null | undefined }): OpenAI.ChatCompletionMessageFunctionToolCall[] {
  const calls = message.tool_calls ?? [];
  for (const call of calls) assert.is(call.type, 'function');
  return calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
}
