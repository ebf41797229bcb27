// Counts authentication failures per client address in Redis (shared by all instances) and blocks after the limit.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { MetricsService } from '../metrics/metrics.service';
import { RedisService } from '../redis/redis.module';

/** Redis calls that take longer than this are abandoned (fail open). */
const REDIS_DEADLINE_MS = 250;
const LOCAL_MAX = 100_000;

@Injectable()
export class AuthRateLimitService {
  private readonly logger = new Logger('AuthRateLimit');
  /** Clients this instance has seen exceed the limit, with the time their block ends (ms). */
  private readonly blocked = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisService,
    private readonly metrics: MetricsService,
  ) {}

  // Seconds left on a known block of this client, or 0 (an in-memory lookup: no Redis round trip).
  blockedFor(client: string, now = Date.now()): number {
    const until = this.blocked.get(client);
    if (until === undefined) return 0;
    if (until <= now) {
      this.blocked.delete(client);
      return 0;
    }
    this.metrics.limiterBlocks.inc();
    return Math.ceil((until - now) / 1000);
  }

  // Records one failure; returns the seconds to wait when the client is now over the limit, else 0. Fails open.
  async recordFailure(client: string): Promise<number> {
    this.metrics.authFailures.inc();
    const key = this.redis.key(`authfail:${client}`);
    const windowSec = this.config.AUTH_FAILURE_WINDOW_SEC;
    try {
      const result = await withDeadline(
        this.redis.client.multi().incr(key).expire(key, windowSec, 'NX').pttl(key).exec(),
      );
      const count = Number(result?.[0]?.[1] ?? 0);
      const pttl = Number(result?.[2]?.[1] ?? -1);
      if (count <= this.config.AUTH_FAILURE_LIMIT) return 0;
      const waitMs = pttl > 0 ? pttl : windowSec * 1000;
      if (this.blocked.size >= LOCAL_MAX) this.blocked.clear();
      this.blocked.set(client, Date.now() + waitMs);
      this.metrics.limiterBlocks.inc();
      return Math.max(1, Math.ceil(waitMs / 1000));
    } catch (err) {
      this.logger.warn(`auth failure counter unavailable, not rate limiting: ${(err as Error).message}`);
      return 0;
    }
  }
}

// Rejects when the promise does not settle in time.
async function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Redis did not answer within ${REDIS_DEADLINE_MS} ms`)),
          REDIS_DEADLINE_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
