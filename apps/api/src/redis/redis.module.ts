// Shared ioredis connections: one for commands, one for pub/sub subscriptions; both quit on shutdown. Both connect
// through the Sentinels when REDIS_SENTINELS is set (redis-options.ts) and follow a failover; ioredis subscribes
// again after a reconnect (BundleEventsService then treats every group as changed).
import { Global, Inject, Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { redisOptions } from './redis-options';

// Creates a Redis client that reconnects forever with capped backoff.
export function createRedis(config: AppConfig, name: string): Redis {
  return new Redis(redisOptions(config, name, { maxRetriesPerRequest: 2, enableReadyCheck: true, lazyConnect: false }));
}

@Injectable()
export class RedisService implements OnModuleDestroy {
  readonly client: Redis;
  readonly subscriber: Redis;
  readonly prefix: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = createRedis(config, 'cmd');
    this.subscriber = createRedis(config, 'sub');
    this.prefix = config.REDIS_PREFIX;
    // Errors are surfaced through readiness checks and command failures, not as unhandled events.
    this.client.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
  }

  // Prefixes a key or channel name with the deployment prefix.
  key(name: string): string {
    return `${this.prefix}:${name}`;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([this.client.quit(), this.subscriber.quit()]);
    this.client.disconnect();
    this.subscriber.disconnect();
  }
}

@Global()
@Module({ providers: [RedisService], exports: [RedisService] })
export class RedisModule {}
