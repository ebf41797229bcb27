// Worker entry point: the same modules as the API plus the BullMQ processors, no HTTP listener.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { ConfigError, loadConfig } from './config/config.schema';
import { JobHandlersMismatch } from './queues/job-handlers.check';
import { WorkerModule } from './queues/worker.module';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, [WorkerModule]), {
    bufferLogs: true,
    // A start-up refusal (e.g. job handlers that do not match the job table) reaches the handler below, not abort().
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.init();
  app.get(Logger).log('hookwarden worker started');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  if (err instanceof JobHandlersMismatch) {
    process.stderr.write(`hookwarden-worker refuses to start: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `hookwarden-worker failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
