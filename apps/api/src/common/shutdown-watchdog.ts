// Logs the shutdown and forces the process out if closing takes longer than SHUTDOWN_TIMEOUT_MS.
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

@Injectable()
export class ShutdownWatchdog implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  // Starts the grace-period timer when a signal asks the process to stop.
  beforeApplicationShutdown(signal?: string): void {
    if (!signal) return;
    this.logger.log(`received ${signal}: closing HTTP, queues, Prisma and Redis`);
    setTimeout(() => {
      this.logger.error(`shutdown did not finish within ${this.config.SHUTDOWN_TIMEOUT_MS} ms: exiting`);
      process.exit(1);
    }, this.config.SHUTDOWN_TIMEOUT_MS).unref();
  }

  // Confirms a clean stop.
  onApplicationShutdown(signal?: string): void {
    if (signal) this.logger.log(`stopped cleanly after ${signal}`);
  }
}
