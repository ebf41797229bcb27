// Hook-run partition maintenance, retention and chain reconciliation.
import { Module } from '@nestjs/common';
import { IngestModule } from '../ingest/ingest.module';
import { MaintenanceRepository } from './maintenance.repository';
import { MaintenanceService } from './maintenance.service';

@Module({
  imports: [IngestModule],
  providers: [MaintenanceService, MaintenanceRepository],
  exports: [MaintenanceService],
})
export class MaintenanceModule {}
