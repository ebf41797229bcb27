// The ioredis options of every Redis connection of the API and the worker (commands, pub/sub, nonce store, BullMQ
// queues and workers): straight to REDIS_URL, or through the Sentinels of REDIS_SENTINELS to the current master.
import type { RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/config.schema';

/** Longest pause between two reconnection attempts (to a master or to the sentinels). */
export const REDIS_MAX_BACKOFF_MS = 2000;

/** The configuration a Redis connection is made from. */
export type RedisConnectionConfig = Pick<
  AppConfig,
  'REDIS_URL' | 'REDIS_SENTINELS' | 'REDIS_SENTINEL_NAME' | 'REDIS_SENTINEL_PASSWORD'
>;

/** ioredis options with the one reconnection rule (never null, so BullMQ takes them too). */
export type ConnectionOptions = Omit<RedisOptions, 'retryStrategy'> & { retryStrategy: (times: number) => number };

// Reconnects with a backoff growing by 200 ms an attempt up to REDIS_MAX_BACKOFF_MS, forever.
export function redisBackoff(times: number): number {
  return Math.min(times * 200, REDIS_MAX_BACKOFF_MS);
}

// A command refused by a replica (READONLY: the master this connection knew was demoted) reconnects and is sent
// again to the master the sentinels name now (2 = reconnect and resend).
export function reconnectOnReadonly(err: Error): boolean | 1 | 2 {
  return err.message.startsWith('READONLY') ? 2 : false;
}

// The credentials, database and TLS of REDIS_URL (its host and port too unless sentinels are configured).
function fromUrl(url: URL, withAddress: boolean): RedisOptions {
  const db = /^\/(\d+)$/.exec(url.pathname)?.[1];
  return {
    ...(withAddress ? { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 6379) } : {}),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

// The options of one named connection; `extra` adds the connection's own (timeouts, offline queue…).
export function redisOptions(
  config: RedisConnectionConfig,
  name: string,
  extra: Omit<RedisOptions, 'retryStrategy'> = {},
): ConnectionOptions {
  const url = new URL(config.REDIS_URL);
  const common: ConnectionOptions = {
    connectionName: `hookwarden:${name}`,
    retryStrategy: redisBackoff,
    reconnectOnError: reconnectOnReadonly,
    ...extra,
  };
  if (!config.REDIS_SENTINELS) return { ...fromUrl(url, true), ...common };
  return {
    ...fromUrl(url, false),
    sentinels: config.REDIS_SENTINELS.map((s) => ({ host: s.host, port: s.port })),
    name: config.REDIS_SENTINEL_NAME,
    role: 'master',
    ...(config.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: config.REDIS_SENTINEL_PASSWORD } : {}),
    ...(url.protocol === 'rediss:' ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    // Asks the sentinels again after every lost connection (the first one answering names the master).
    sentinelRetryStrategy: redisBackoff,
    // No +switch-master subscription (ioredis' failoverDetector): when its message arrives while the connection is
    // already reconnecting after the master died, ioredis ends the connection for good ("Connection is closed." on
    // every command; seen in 3 of 4 runs of test/ha/redis-failover, and redis/ioredis#1683). A demoted master that stays
    // alive is covered without it: Sentinel kills the clients of the instances it reconfigures (they reconnect and ask
    // again), and a command answered READONLY reconnects (reconnectOnReadonly).
    failoverDetector: false,
    ...common,
  };
}
