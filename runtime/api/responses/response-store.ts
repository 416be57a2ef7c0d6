// The responses this server keeps (Responses API `store`), in memory, for `previous_response_id`,
// GET /v1/responses/{id} and DELETE /v1/responses/{id}: each with the conversation it answered,
// so that a request naming it goes on from there. Bounded by size: past the budget the oldest go
// first, and a server restart loses them all (nothing is written to disk).
import type { InputItem } from './responses-request.js';

/** What a server keeps unless told otherwise: 64 MiB of JSON (hundreds of long conversations). */
export const DEFAULT_RESPONSES_STORE_BYTES = 64 * 1024 * 1024;

export interface StoredResponse {
  /** The response object as it was answered (its last event's, when streamed). */
  response: Record<string, unknown>;
  /** The conversation it answered: the earlier responses' turns and its own input (instructions aside: they are not carried over). */
  input: InputItem[];
}

export class ResponseStore {
  private readonly entries = new Map<string, { entry: StoredResponse; bytes: number }>();
  private bytes = 0;

  /** `budget`: the most bytes of JSON kept (0: nothing is stored). */
  constructor(readonly budget: number) {}

  get enabled(): boolean {
    return this.budget > 0;
  }

  /** Keeps `entry` as the newest; the oldest go while the store is over its budget (an entry larger than the whole budget is not kept). */
  put(id: string, entry: StoredResponse): void {
    this.delete(id);
    const bytes = Buffer.byteLength(JSON.stringify(entry));
    if (bytes > this.budget) return;
    this.entries.set(id, { entry, bytes });
    this.bytes += bytes;
    for (const [oldest, { bytes: size }] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(oldest);
      this.bytes -= size;
    }
  }

  get(id: string): StoredResponse | undefined {
    return this.entries.get(id)?.entry;
  }

  /** Whether it was there. */
  delete(id: string): boolean {
    const held = this.entries.get(id);
    if (!held) return false;
    this.entries.delete(id);
    this.bytes -= held.bytes;
    return true;
  }
}
