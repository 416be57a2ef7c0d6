// Reads a JSON request body within a size limit and a nesting limit. An oversized body is
// drained, not read into memory, so the client still receives the 413 answer. Too deep a
// body is refused here, before any recursive code (validation, schema compilers) sees it.
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from '../api/api-error.js';
import { REQUEST_LIMITS } from '../api/request-limits.js';

// JSON text is UTF-8 (RFC 8259): invalid bytes are an error, not silently replaced.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

interface DepthEntry {
  value: unknown;
  depth: number;
  key: string | number;
  parent: DepthEntry | undefined;
}

/**
 * The path (OpenAI parameter style) to the first value nested deeper than `limit` objects and
 * arrays, or undefined. Iterative, so no depth overflows it.
 */
export function pathDeeperThan(value: unknown, limit: number): string | undefined {
  const stack: DepthEntry[] = [{ value, depth: 0, key: '', parent: undefined }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const node = entry.value;
    if (typeof node !== 'object' || node === null) continue;
    // The path is spelled out only for the answer, not for every value of a large body.
    if (entry.depth + 1 > limit) return pathOf(entry);
    const depth = entry.depth + 1;
    if (Array.isArray(node)) node.forEach((item, key) => stack.push({ value: item, depth, key, parent: entry }));
    else for (const [key, item] of Object.entries(node)) stack.push({ value: item, depth, key, parent: entry });
  }
  return undefined;
}

function pathOf(entry: DepthEntry | undefined): string {
  let path = '';
  for (; entry?.parent; entry = entry.parent) path = typeof entry.key === 'number' ? `[${entry.key}]${path}` : `.${entry.key}${path}`;
  return path.startsWith('.') ? path.slice(1) : path;
}

/** `messages[0].content`: the top-level field and, for an array, the entry. */
function fieldOf(path: string): string {
  return /^[^.[]*(\[\d+\])?/.exec(path)![0];
}

/**
 * A body over the size limit. Up to DRAIN_BEYOND_LIMIT more bytes are read and thrown away
 * before answering, because most clients send the whole body before they read a response:
 * answering early and closing makes them report a broken connection instead of this 413.
 */
export class BodyTooLargeError extends ApiError {
  constructor(limitBytes: number, /** False when the client is still sending: close the connection. */ readonly drained: boolean) {
    super(413, `The request body is larger than this server accepts (${limitBytes} bytes).`, 'invalid_request_error', null, 'request_too_large');
  }
}

const DRAIN_BEYOND_LIMIT = 64 * 2 ** 20;

/** The client's connection failed before its body was whole (it closed, it reset): no one to answer, nothing of ours went wrong. */
export class BodyAbortedError extends Error {
  override name = 'BodyAbortedError';
}

export function readJsonBody(req: IncomingMessage, limitBytes: number, depthLimit: number = REQUEST_LIMITS.bodyDepth): Promise<unknown> {
  const drainLimit = limitBytes + DRAIN_BEYOND_LIMIT;
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > drainLimit) {
      req.resume();
      reject(new BodyTooLargeError(limitBytes, false));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else if (size > drainLimit) reject(new BodyTooLargeError(limitBytes, false));
    });
    req.on('error', (error) => reject(new BodyAbortedError(`the client's connection failed while it sent its body: ${error.message}`)));
    req.on('end', () => {
      if (size > limitBytes) return reject(new BodyTooLargeError(limitBytes, true));
      // A compressed body read as it is would be bytes that are not JSON, or worse, a plain body
      // under a false label accepted: any coding but identity is refused by name (RFC 9110 §15.5.16).
      const coding = req.headers['content-encoding']?.trim().toLowerCase();
      if (coding && coding !== 'identity') {
        return reject(new ApiError(415, `The request body's Content-Encoding is '${coding}'; this server reads bodies uncompressed: send the JSON without a Content-Encoding.`, 'invalid_request_error', null, 'unsupported_content_encoding'));
      }
      let text: string;
      try {
        text = strictUtf8.decode(Buffer.concat(chunks));
      } catch {
        return reject(badRequest('The request body is not valid UTF-8, which JSON requires.', null, 'invalid_json'));
      }
      if (text.trim() === '') return reject(badRequest('The request body is empty; send a JSON object.', null, 'invalid_json'));
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return reject(badRequest(`The request body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json'));
      }
      const deep = pathDeeperThan(value, depthLimit);
      if (deep !== undefined) {
        const shown = deep.length > 80 ? `${deep.slice(0, 80)}…` : deep;
        return reject(badRequest(`The request body nests objects and arrays more than ${depthLimit} levels deep (at ${shown}).`, fieldOf(deep) || null, 'nesting_too_deep'));
      }
      resolve(value);
    });
  });
}
