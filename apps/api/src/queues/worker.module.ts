// BullMQ processors, registered only in the worker process.
import { Module } from '@nestjs/common';
import { IngestModule } from '../ingest/ingest.module';
import { IngestProcessor } from '../ingest/ingest.processor';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { MaintenanceProcessor } from '../maintenance/maintenance.processor';

@Module({ imports: [IngestModule, MaintenanceModule], providers: [IngestProcessor, MaintenanceProcessor] })
export class WorkerModule {}
