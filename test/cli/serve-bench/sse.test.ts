import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readSseData } from '../../../cli/serve-bench/sse.js';

async function collect(pieces: string[]): Promise<string[]> {
  const encoder = new TextEncoder();
  async function* body() {
    for (const piece of pieces) yield encoder.encode(piece);
  }
  const out: string[] = [];
  for await (const data of readSseData(body())) out.push(data);
  return out;
}

test('events split anywhere across network reads come out whole', async () => {
  const stream = 'data: {"a":1}\n\ndata: {"b":"é"}\n\ndata: [DONE]\n\n';
  const expected = ['{"a":1}', '{"b":"é"}', '[DONE]'];
  assert.equal(await collect([stream]), expected);
  const bytes = new TextEncoder().encode(stream);
  // Byte-wise, so the two-byte "é" is split too.
  const out: string[] = [];
  async function* oneByteAtATime() {
    for (const byte of bytes) yield Uint8Array.of(byte);
  }
  for await (const data of readSseData(oneByteAtATime())) out.push(data);
  assert.equal(out, expected);
});

test('CRLF lines, comments, other fields and multi-line data', async () => {
  assert.equal(await collect([': keep-alive\r\n\r\nevent: x\r\ndata: one\r\ndata: two\r\n\r\nid: 3\r\n\r\ndata:tight\n\n']), ['one\ntwo', 'tight']);
});

test('a last event without its blank line is still delivered', async () => {
  assert.equal(await collect(['data: 1\n\ndata: [DONE]']), ['1', '[DONE]']);
});

test.run();
