// Remembers the nonces of signed agent requests for the replay window, per endpoint: SET NX EX in Redis (shared by
// every API instance), plus a bounded in-memory LRU that answers same-instance replays without a round trip and stands
// in alone when Redis is down or slower than NONCE_REDIS_DEADLINE_MS (a replay to another instance is then caught
// only once Redis is back; logged). The Redis checks of one event-loop turn go out as one script call (SET NX EX for
// each nonce), so the hot path pays a fraction of a round trip per request.
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { MAX_CLOCK_SKEW_SEC } from '@hookwarden/hook-core';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { BoundedCache } from '../common/bounded-cache';
import { redisOptions } from '../redis/redis-options';
import { RedisService } from '../redis/redis.module';

/** A nonce is remembered as long as a request carrying it can pass the clock-skew check: created ± the skew. */
export const NONCE_WINDOW_SEC = 2 * MAX_CLOCK_SKEW_SEC;
/** Redis answers slower than this fall back to the in-memory store. */
export const NONCE_REDIS_DEADLINE_MS = 250;
/** Most nonces remembered in memory per instance. */
const MAX_LOCAL_NONCES = 200_000;
/** Most nonces in one Redis script call. */
const MAX_BATCH = 500;
/** SET key 1 EX window NX for every key; 1 where it was set (first use), 0 where it existed (a replay). */
const SET_ALL_NX = `local r = {}
for i, k in ipairs(KEYS) do
  if redis.call('SET', k, '1', 'EX', ARGV[1], 'NX') then r[i] = 1 else r[i] = 0 end
end
return r`;

interface Pending {
  key: string;
  resolve: (first: boolean) => void;
}

@Injectable()
export class NonceStore implements OnModuleDestroy {
  private readonly logger = new Logger('NonceStore');
  private readonly local = new BoundedCache<string, true>({ max: MAX_LOCAL_NONCES, ttl: NONCE_WINDOW_SEC * 1000 });
  private readonly client: Redis;
  private readonly prefix: string;
  private warnedAt = 0;
  private batch: Pending[] = [];
  private scheduled = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig, redis: RedisService) {
    this.prefix = redis.key('nonce:');
    // Its own connection: fails fast when Redis is away (no offline queue). No auto-pipelining: flush() already sends
    // one call per event-loop turn, and ioredis's pipeline objects cost more than the write they would save.
    this.client = new Redis(
      redisOptions(config, 'nonce', {
        commandTimeout: NONCE_REDIS_DEADLINE_MS,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
      }),
    );
    this.client.on('error', () => undefined);
  }

  // True the first time a nonce is seen for an endpoint within the window; false for a replay.
  first(endpointId: string, nonce: string): Promise<boolean> {
    const key = `${endpointId}:${nonce}`;
    if (this.local.has(key)) return Promise.resolve(false);
    this.local.set(key, true);
    if (this.client.status !== 'ready') {
      this.degraded('Redis is not connected');
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      this.batch.push({ key: this.prefix + key, resolve });
      if (this.batch.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  // Sends the pending checks as one script call and answers each (all first uses when Redis fails: degraded).
  private flush(): void {
    this.scheduled = false;
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    const keys = batch.map((p) => p.key);
    this.client.eval(SET_ALL_NX, keys.length, ...keys, String(NONCE_WINDOW_SEC)).then(
      (result) => {
        const set = Array.isArray(result) ? result : [];
        batch.forEach((p, i) => p.resolve(set[i] !== 0));
      },
      (err: unknown) => {
        this.degraded((err as Error).message);
        for (const p of batch) p.resolve(true);
      },
    );
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
