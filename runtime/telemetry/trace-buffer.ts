// Request tracing (--enable-tracing): timed events in Chrome's trace format, kept in a bounded
// ring so a long-running server holds only the most recent ones. Read at GET /debug/trace.
import { nowMicros } from '../engine/clock.js';
import type { TraceEntry } from '../engine/protocol.js';

interface ChromeEvent {
  name: string;
  ph: 'X' | 'i' | 'M';
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  s?: 't';
  args: Record<string, unknown>;
}

export class TraceBuffer {
  private readonly events: (ChromeEvent & { request: string })[] = [];
  /** Each request with events in the ring: its row, and how many events it has there (at none it leaves, so the map stays bounded too). */
  private readonly threads = new Map<string, { tid: number; events: number }>();
  private lastTid = 0;

  constructor(private readonly capacity = 100_000) {}

  private tid(request: string): number {
    let thread = this.threads.get(request);
    if (thread === undefined) {
      thread = { tid: ++this.lastTid, events: 0 };
      this.threads.set(request, thread);
      // Chrome shows each request as its own named row.
      this.push(request, { name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid: thread.tid, args: { name: request } });
    }
    return thread.tid;
  }

  private push(request: string, event: ChromeEvent): void {
    this.events.push({ ...event, request });
    const thread = this.threads.get(request);
    if (thread) thread.events++;
    if (this.events.length <= this.capacity) return;
    for (const evicted of this.events.splice(0, this.events.length - this.capacity)) {
      const owner = this.threads.get(evicted.request);
      if (owner && --owner.events === 0) this.threads.delete(evicted.request);
    }
  }

  /** Requests with events in the ring. */
  get requests(): number {
    return this.threads.size;
  }

  instant(request: string, name: string, args: Record<string, unknown>, ts = nowMicros()): void {
    this.push(request, { name, ph: 'i', s: 't', ts, pid: 1, tid: this.tid(request), args });
  }

  span(request: string, name: string, ts: number, dur: number, args: Record<string, unknown> = {}): void {
    this.push(request, { name, ph: 'X', ts, dur, pid: 1, tid: this.tid(request), args });
  }

  /** Events the engine worker recorded (prefill chunks, decode steps, queueing, first token). */
  addEngineEntries(entries: readonly TraceEntry[]): void {
    for (const entry of entries) {
      if (entry.dur === undefined) this.instant(entry.traceId, entry.name, entry.args ?? {}, entry.ts);
      else this.span(entry.traceId, entry.name, entry.ts, entry.dur, entry.args ?? {});
    }
  }

  toJSON(request?: string): { traceEvents: ChromeEvent[]; displayTimeUnit: 'ms' } {
    const selected = request === undefined ? this.events : this.events.filter((event) => event.request === request);
    return { traceEvents: selected.map(({ request: _request, ...event }) => event), displayTimeUnit: 'ms' };
  }
}
