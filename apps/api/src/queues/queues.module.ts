// Registers the BullMQ connection and queues; processors are added by the worker entry point only. The connection
// goes through the Sentinels when REDIS_SENTINELS is set (queues and workers reconnect to the promoted master; a
// worker's blocking fetch resumes there).
import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { redisOptions } from '../redis/redis-options';
import { QUEUES } from './queue-names';

@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        connection: redisOptions(config, 'bullmq', { maxRetriesPerRequest: null, enableOfflineQueue: true }),
        prefix: `${config.REDIS_PREFIX}:bull`,
      }),
    }),
    ...Object.values(QUEUES).map((name) => BullModule.registerQueue({ name })),
  ],
  exports: [BullModule],
})
export class QueuesModule {}
