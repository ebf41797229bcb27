// Hook-run upload (HTTP side) and bulk ingest (worker side).
import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { registerNdjsonParser } from './ingest.body';
import { IngestController } from './ingest.controller';
import { IngestRepository } from './ingest.repository';
import { IngestService } from './ingest.service';

@Module({
  controllers: [IngestController],
  providers: [IngestService, IngestRepository],
  exports: [IngestRepository],
})
export class IngestModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Adds the NDJSON/gzip body parser to the HTTP server (absent in the worker process).
  onModuleInit(): void {
    const instance = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (instance && typeof instance.addContentTypeParser === 'function') {
      registerNdjsonParser(instance, this.config.HOOK_RUN_UPLOAD_MAX_BYTES);
    }
  }
}
