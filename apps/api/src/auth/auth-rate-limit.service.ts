// Counts failed authentications per client address (rate-limiter-flexible on Redis, shared by every instance, with an
// in-memory insurance limiter when Redis is down or slow) and answers 429 past the limit. Only failures are counted:
// callers check a presented credential first, so a valid credential is never refused because of others' failures.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts } from 'rate-limiter-flexible';
import { ApiError } from '../common/api-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { MetricsService } from '../metrics/metrics.service';
import { RedisService } from '../redis/redis.module';

/** Redis calls slower than this fall back to the in-memory limiter. */
const REDIS_DEADLINE_MS = 250;

@Injectable()
export class AuthRateLimitService {
  private readonly logger = new Logger('AuthRateLimit');
  private readonly limiter: RLWrapperTimeouts;
  private warnedAt = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    redis: RedisService,
    private readonly metrics: MetricsService,
  ) {
    const points = config.AUTH_FAILURE_LIMIT;
    const duration = config.AUTH_FAILURE_WINDOW_SEC;
    const keyPrefix = redis.key('authfail');
    const insurance = new RateLimiterMemory({ keyPrefix, points, duration });
    const shared = new RateLimiterRedis({
      storeClient: redis.client,
      keyPrefix,
      points,
      duration,
      rejectIfRedisNotReady: true,
      // Addresses already over the limit are answered from memory (no Redis round trip) until the window ends.
      inMemoryBlockOnConsumed: points + 1,
      inMemoryBlockDuration: duration,
    });
    this.limiter = new RLWrapperTimeouts({
      limiter: shared,
      timeoutMs: REDIS_DEADLINE_MS,
      insuranceLimiter: insurance,
    });
  }

  // Records one failed authentication of `client`; returns the seconds to wait when it is now over the limit, else 0.
  async recordFailure(client: string): Promise<number> {
    this.metrics.authFailures.inc();
    try {
      await this.limiter.consume(client, 1);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        this.metrics.limiterBlocks.inc();
        return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      }
      // Both stores failed (should not happen: the memory limiter does not fail): do not limit.
      const now = Date.now();
      if (now - this.warnedAt > 60_000) {
        this.warnedAt = now;
        this.logger.warn(`auth failure counter unavailable, not rate limiting: ${(err as Error).message}`);
      }
      return 0;
    }
  }

  // Records a failure and returns the error to answer: 429 with Retry-After once over the limit, else `failure`.
  async refuse(client: string, failure: ApiError): Promise<ApiError> {
    const wait = await this.recordFailure(client);
    return wait > 0 ? tooManyFailures(wait) : failure;
  }
}

// The 429 answer to a client over the authentication-failure limit.
export function tooManyFailures(retryAfterSec: number): ApiError {
  return new ApiError(
    'rate_limited',
    `Too many failed authentication attempts from this address; retry in ${retryAfterSec} s`,
    { retryAfterSec },
    { 'retry-after': String(retryAfterSec) },
  );
}
