// BullMQ processors, registered only in the worker process.
import { Module } from '@nestjs/common';
import { IngestModule } from '../ingest/ingest.module';
import { IngestProcessor } from '../ingest/ingest.processor';
import { MaintenanceModule } from '../maintenance/maintenance.module';
import { MaintenanceProcessor } from '../maintenance/maintenance.processor';
import { ReleasesModule } from '../releases/releases.module';
import { RolloutProcessor } from '../releases/rollout.processor';

@Module({
  imports: [ReleasesModule, IngestModule, MaintenanceModule],
  providers: [RolloutProcessor, IngestProcessor, MaintenanceProcessor],
})
export class WorkerModule {}
