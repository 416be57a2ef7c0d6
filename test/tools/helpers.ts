// Shared by the tool suites: the official client types calls as function-or-custom; ours are
// always function calls, which this checks before narrowing. And a request that must make one
// valid call.
import type OpenAI from 'openai';
import * as assert from 'uvu/assert';

export function functionCalls(message: { tool_calls?: readonly { type: string }[] | null | undefined }): OpenAI.ChatCompletionMessageFunctionToolCall[] {
  const calls = message.tool_calls ?? [];
  for (const call of calls) assert.is(call.type, 'function');
  return calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
}

/** A request for one required call (`parallel_tool_calls: false`): it makes exactly one, ends
 * with `tool_calls`, and `valid` takes its arguments, which are returned. */
export async function oneValidCall(client: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming, valid: (args: unknown) => boolean): Promise<unknown> {
  const choice = (await client.chat.completions.create(body)).choices[0]!;
  const calls = functionCalls(choice.message);
  const label = `seed ${body.seed}`;
  assert.is(calls.length, 1, `${label}: ${JSON.stringify(choice.message)}`);
  assert.is(choice.finish_reason, 'tool_calls', label);
  const args = calls[0]!.function.arguments as unknown;
  assert.ok(valid(args), `${label}: ${JSON.stringify(args)}`);
  return args;
}
