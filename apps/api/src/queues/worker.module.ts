// BullMQ processors, registered only in the worker process; the worker refuses to start unless they handle every job
// of the job table exactly once.
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { IngestModule } from '../ingest/ingest.module';
import { IngestProcessor } from '../ingest/ingest.processor';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { MaintenanceProcessor } from '../maintenance/maintenance.processor';
import { ReleasesModule } from '../releases/releases.module';
import { RolloutProcessor } from '../releases/rollout.processor';
import { StreamingWorkerModule } from '../streaming/streaming.module';
import { JobHandlersCheck } from './job-handlers.check';

@Module({
  imports: [ReleasesModule, IngestModule, MaintenanceModule, StreamingWorkerModule, DiscoveryModule],
  providers: [RolloutProcessor, IngestProcessor, MaintenanceProcessor, JobHandlersCheck],
})
export class WorkerModule {}
