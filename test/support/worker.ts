// Starts the BullMQ worker (the same module graph as apps/api/src/worker.ts) in-process for a test API's config.
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { AppModule } from '../../apps/api/src/app.module';
import type { AppConfig } from '../../apps/api/src/config/config.schema';
import { WorkerModule } from '../../apps/api/src/queues/worker.module';

// Boots a worker application context; close() stops its processors and connections.
export async function startTestWorker(config: AppConfig): Promise<INestApplicationContext> {
  const ctx = await NestFactory.createApplicationContext(AppModule.forRoot(config, [WorkerModule]), {
    logger: ['error'],
  });
  await ctx.init();
  return ctx;
}
