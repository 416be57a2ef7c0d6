// Reads a JSON request body within a size limit. An oversized body is drained, not read
// into memory, so the client still receives the 413 answer.
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from './api-error.js';

export function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const tooLarge = () =>
    new ApiError(413, `The request body is larger than this server accepts (${limitBytes} bytes).`, 'invalid_request_error', null, 'request_too_large');
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > limitBytes) return reject(tooLarge());
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return reject(badRequest('The request body is empty; send a JSON object.', null, 'invalid_json'));
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(badRequest(`The request body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json'));
      }
    });
  });
}
