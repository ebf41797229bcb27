// Exponential backoff with full jitter, capped; a server's Retry-After takes precedence.
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
