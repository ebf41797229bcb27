// Remembers the nonces of signed agent requests for the replay window, per endpoint: SET NX EX in Redis (shared by
// every API instance), plus a bounded in-memory LRU that answers same-instance replays without a round trip and stands
// in alone when Redis is down or slower than NONCE_REDIS_DEADLINE_MS (a replay to another instance is then caught
// only once Redis is back; logged).
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { MAX_CLOCK_SKEW_SEC } from '@hookwarden/hook-core';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { RedisService } from '../redis/redis.module';

/** A nonce is remembered as long as a request carrying it can pass the clock-skew check: created ± the skew. */
export const NONCE_WINDOW_SEC = 2 * MAX_CLOCK_SKEW_SEC;
/** Redis answers slower than this fall back to the in-memory store. */
export const NONCE_REDIS_DEADLINE_MS = 250;
/** Most nonces remembered in memory per instance. */
const MAX_LOCAL_NONCES = 200_000;

@Injectable()
export class NonceStore implements OnModuleDestroy {
  private readonly logger = new Logger('NonceStore');
  private readonly local = new LRUCache<string, true>({
    max: MAX_LOCAL_NONCES,
    ttl: NONCE_WINDOW_SEC * 1000,
    ttlAutopurge: false,
  });
  private readonly client: Redis;
  private readonly prefix: string;
  private warnedAt = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig, redis: RedisService) {
    this.prefix = redis.key('nonce:');
    // Its own connection: fails fast when Redis is away (no offline queue) and pipelines the hot path's SETs.
    this.client = new Redis(config.REDIS_URL, {
      connectionName: 'hookwarden:nonce',
      commandTimeout: NONCE_REDIS_DEADLINE_MS,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.client.on('error', () => undefined);
  }

  // True the first time a nonce is seen for an endpoint within the window; false for a replay.
  async first(endpointId: string, nonce: string): Promise<boolean> {
    const key = `${endpointId}:${nonce}`;
    if (this.local.has(key)) return false;
    this.local.set(key, true);
    if (this.client.status !== 'ready') {
      this.degraded('Redis is not connected');
      return true;
    }
    try {
      return (await this.client.set(this.prefix + key, '1', 'EX', NONCE_WINDOW_SEC, 'NX')) === 'OK';
    } catch (err) {
      this.degraded((err as Error).message);
      return true;
    }
  }

  // Logs (at most once a minute) that replays are only caught per instance for now.
  private degraded(why: string): void {
    const now = Date.now();
    if (now - this.warnedAt < 60_000) return;
    this.warnedAt = now;
    this.logger.warn(`nonce store degraded to this instance's memory (${why}): cross-instance replays not caught`);
  }

  async onModuleDestroy(): Promise<void> {
    await this.client.quit().catch(() => undefined);
    this.client.disconnect();
  }
}
