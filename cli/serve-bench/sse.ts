// A minimal Server-Sent Events reader for streamed chat completions: yields the `data` of
// each event as soon as its closing blank line arrives, so the caller can time it.

/** Yields each event's data (multi-line data joined by "\n"); comments and other fields are skipped. */
export async function* readSseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  for await (const bytes of body) {
    buffered += decoder.decode(bytes, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
    }
  }
  buffered += decoder.decode();
  const last = buffered.replace(/\r$/, '');
  if (last.startsWith('data:')) data.push(last.slice(last[5] === ' ' ? 6 : 5));
  // A stream that ends without the final blank line still delivers its last event.
  if (data.length > 0) yield data.join('\n');
}
