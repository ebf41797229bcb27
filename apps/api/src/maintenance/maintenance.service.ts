// Hook-run housekeeping: partitions ahead, retention, chain reconciliation (run by repeatable BullMQ jobs).
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { IngestRepository } from '../ingest/ingest.repository';
import { MaintenanceRepository } from './maintenance.repository';

@Injectable()
export class MaintenanceService {
  constructor(
    private readonly repository: MaintenanceRepository,
    private readonly ingest: IngestRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Creates the current month's and the next N months' partitions.
  ensurePartitions(now = new Date()): Promise<string[]> {
    return this.repository.ensurePartitions(now, this.config.HOOK_RUN_PARTITIONS_AHEAD);
  }

  // Drops partitions entirely older than the retention period.
  applyRetention(now = new Date()): Promise<string[]> {
    const days = this.config.HOOK_RUN_RETENTION_DAYS;
    return this.repository.dropPartitionsBefore(new Date(now.getTime() - days * 86_400_000), days);
  }

  // Merges the hourly rollup's appended rows of the past week's closed hours (one row per key and hour).
  compactHourlyCounts(now = new Date()): Promise<number> {
    const hour = 3_600_000;
    const closed = new Date(Math.floor(now.getTime() / hour) * hour);
    return this.repository.compactHourlyCounts(new Date(closed.getTime() - 7 * 24 * hour), closed);
  }

  // Turns sequence gaps whose grace period has passed into findings.
  reconcileChains(): Promise<number> {
    return this.ingest.reconcileChains();
  }
}
