// Redis connection settings: REDIS_URL alone, or REDIS_SENTINELS + REDIS_SENTINEL_NAME (parsed once by the schema).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../apps/api/src/config/config.schema';
import { reconnectOnReadonly, redisOptions } from '../../apps/api/src/redis/redis-options';

// The problems loadConfig names for an environment.
function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.join('\n');
    throw err;
  }
  return '';
}

describe('Redis connection options', () => {
  it('without sentinels: the address, credentials and database of REDIS_URL', () => {
    const o = redisOptions(loadConfig({ REDIS_URL: 'redis://app:p%40ss@redis.internal:6380/3' }), 'cmd', {
      maxRetriesPerRequest: 2,
    });
    expect(o).toMatchObject({
      host: 'redis.internal',
      port: 6380,
      username: 'app',
      password: 'p@ss',
      db: 3,
      connectionName: 'hookwarden:cmd',
      maxRetriesPerRequest: 2,
    });
    expect(o.sentinels).toBeUndefined();
    expect(o.retryStrategy(1)).toBe(200);
    expect(o.retryStrategy(100)).toBe(2000);
  });

  it('with sentinels: every sentinel, the master name, their password; REDIS_URL only for credentials and TLS', () => {
    const config = loadConfig({
      REDIS_URL: 'rediss://:master-pass@ignored:1/2',
      REDIS_SENTINELS: '10.0.0.1:26379, sentinel-b.internal:26380,[::1]:26381',
      REDIS_SENTINEL_NAME: 'hw-redis',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pass',
    });
    const o = redisOptions(config, 'sub');
    expect(o).toMatchObject({
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'sentinel-b.internal', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      name: 'hw-redis',
      role: 'master',
      sentinelPassword: 'sentinel-pass',
      password: 'master-pass',
      db: 2,
      tls: {},
      enableTLSForSentinelMode: true,
      failoverDetector: false,
    });
    expect(o.host).toBeUndefined();
    expect(o.port).toBeUndefined();
  });

  it('the master name defaults to mymaster; a command refused as READONLY reconnects and is sent again', () => {
    expect(redisOptions(loadConfig({ REDIS_SENTINELS: 'h:1' }), 'x').name).toBe('mymaster');
    expect(reconnectOnReadonly(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(reconnectOnReadonly(new Error('ERR unknown command'))).toBe(false);
  });

  it('names a bad sentinel list and master name; never echoes the sentinel password', () => {
    expect(problems({ REDIS_SENTINELS: 'h:26379,nocolon' })).toMatch(/REDIS_SENTINELS.*: each entry must be host:port/);
    expect(problems({ REDIS_SENTINELS: 'h:70000' })).toMatch(/REDIS_SENTINELS.*port must be 1-65535/);
    expect(problems({ REDIS_SENTINELS: ' , ' })).toMatch(/REDIS_SENTINELS.*at least one sentinel/);
    expect(problems({ REDIS_SENTINEL_NAME: 'bad name' })).toMatch(/REDIS_SENTINEL_NAME: must be the master name/);
    const hidden = problems({ REDIS_SENTINEL_PASSWORD: 'x'.repeat(600) });
    expect(hidden).toContain('REDIS_SENTINEL_PASSWORD');
    expect(hidden).not.toContain('xxxx');
  });
});
