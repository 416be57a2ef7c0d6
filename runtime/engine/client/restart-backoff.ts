// How long the server waits before starting a failed engine again: 1 s after a first failure,
// doubling up to 30 s while failures follow each other (a backend that dies at every start
// must not spin), and back to 1 s once an engine has served for a minute.
export interface BackoffOptions {
  firstMs: number;
  maxMs: number;
  /** Serving this long without failing forgets the failures before. */
  healthyMs: number;
}

export const ENGINE_RESTART_BACKOFF: BackoffOptions = { firstMs: 1000, maxMs: 30_000, healthyMs: 60_000 };

export class RestartBackoff {
  private failures = 0;
  private servingSince: number | undefined;

  constructor(
    private readonly options: BackoffOptions = ENGINE_RESTART_BACKOFF,
    private readonly now: () => number = Date.now,
  ) {}

  /** The engine is serving (again). */
  serving(): void {
    this.servingSince = this.now();
  }

  /** The engine failed (or failed to start): how long to wait before the next start. */
  failed(): number {
    if (this.servingSince !== undefined && this.now() - this.servingSince >= this.options.healthyMs) this.failures = 0;
    this.servingSince = undefined;
    const delay = Math.min(this.options.firstMs * 2 ** this.failures, this.options.maxMs);
    this.failures++;
    return delay;
  }
}
