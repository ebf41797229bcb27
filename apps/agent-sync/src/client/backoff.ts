// Exponential backoff with full jitter, capped; a server's Retry-After takes precedence. Plus an abortable sleep.
export class Backoff {
  private failures = 0;

  constructor(
    private readonly baseMs = 1000,
    private readonly capMs = 60_000,
    private readonly random: () => number = Math.random,
  ) {}

  // The delay before the next attempt after one more failure.
  next(retryAfterMs?: number | null): number {
    this.failures++;
    if (retryAfterMs !== undefined && retryAfterMs !== null) return Math.min(retryAfterMs, this.capMs * 5);
    const ceiling = Math.min(this.capMs, this.baseMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.floor(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  // Forget failures after a success.
  reset(): void {
    this.failures = 0;
  }

  get attempts(): number {
    return this.failures;
  }
}

// Waits `ms` or until `signal` aborts; the abort listener is removed either way (no listener piles up per retry).
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
