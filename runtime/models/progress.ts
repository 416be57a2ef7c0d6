// Download progress on stderr: a redrawn bar on a terminal, a few plain lines otherwise
// (CI logs should not fill with carriage returns).

export interface Progress {
  /** Called with the running byte count. */
  update(bytes: number): void;
  done(): void;
  /** Ends a half-drawn bar so the next message starts on its own line. */
  abort(): void;
}

export interface ProgressOptions {
  label: string;
  /** Expected bytes, when known. */
  total?: number;
  /** Where to draw; null draws nothing. Default process.stderr. */
  stream?: NodeJS.WritableStream | null;
  /** Bytes done before this bar starts (a later part of one file): counted, but not in the rate. */
  startBytes?: number;
}

const MB = 1024 * 1024;
const BAR_WIDTH = 28;
const REDRAW_MS = 100;

export function createProgress({ label, total, stream = process.stderr, startBytes = 0 }: ProgressOptions): Progress {
  if (stream === null) return { update() {}, done() {}, abort() {} };
  const tty = (stream as { isTTY?: boolean }).isTTY === true;
  const start = Date.now();
  let last = 0;
  let bytes = startBytes;
  let nextMark = 0; // plain mode: next quarter (or every 32 MB without a total) to report
  let printed = -1; // plain mode: byte count of the last line written

  const line = (): string => {
    const seconds = Math.max((Date.now() - start) / 1000, 0.001);
    const rate = `${((bytes - startBytes) / MB / seconds).toFixed(1)} MB/s`;
    if (!total) return `${label} ${(bytes / MB).toFixed(1)} MB ${rate}`;
    const frac = Math.min(bytes / total, 1);
    const filled = Math.round(frac * BAR_WIDTH);
    const bar = tty ? ` [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]` : '';
    return `${label}${bar} ${Math.floor(frac * 100)}% ${(bytes / MB).toFixed(1)}/${(total / MB).toFixed(1)} MB ${rate}`;
  };

  const step = total ? total / 4 : 32 * MB;
  // A continuation reports from the next mark on: the mark it starts at was reported already.
  if (startBytes > 0) while (nextMark <= startBytes) nextMark += step;
  const plainDue = (): boolean => {
    if (bytes < nextMark) return false;
    while (nextMark <= bytes) nextMark += step;
    return true;
  };

  return {
    update(n) {
      bytes = n;
      if (tty) {
        const now = Date.now();
        if (now - last < REDRAW_MS) return;
        last = now;
        stream.write(`\r${line()}\x1b[K`);
      } else if (plainDue()) {
        printed = bytes;
        stream.write(`${line()}\n`);
      }
    },
    done() {
      if (tty) stream.write(`\r${line()}\x1b[K\n`);
      else if (printed !== bytes) stream.write(`${line()}\n`);
    },
    abort() {
      if (tty && last > 0) stream.write('\n');
    },
  };
}
