// What a client builds from streamed deltas, as OpenAI's stream accumulation does: content
// appended, each call's id, name and arguments appended by its index.

export interface StreamDelta {
  content?: string | null;
  tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[];
}

export function foldDeltas(deltas: readonly StreamDelta[]): { content: string; calls: { id: string; name: string; arguments: string }[] } {
  let content = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const delta of deltas) {
    content += delta.content ?? '';
    for (const call of delta.tool_calls ?? []) {
      const entry = (calls[call.index] ??= { id: '', name: '', arguments: '' });
      entry.id += call.id ?? '';
      entry.name += call.function.name ?? '';
      entry.arguments += call.function.arguments ?? '';
    }
  }
  return { content, calls };
}
