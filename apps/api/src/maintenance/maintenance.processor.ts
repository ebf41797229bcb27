// BullMQ processor of the maintenance queue; schedules its repeatable jobs (the job table's `repeat` rows) at start.
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { HandlesJob, JobProcessor, JobsProcessor } from '../queues/job-handlers';
import { JOB_NAMES, JOB_TABLE } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { MaintenanceService } from './maintenance.service';

@JobsProcessor(QUEUES.maintenance)
export class MaintenanceProcessor extends JobProcessor implements OnApplicationBootstrap {
  constructor(
    private readonly maintenance: MaintenanceService,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  // Upserts the repeatable schedules (idempotent across worker restarts and instances).
  async onApplicationBootstrap(): Promise<void> {
    const every = this.config.HOOK_RUN_MAINTENANCE_INTERVAL_SEC * 1000;
    for (const name of JOB_NAMES) {
      const spec = JOB_TABLE[name];
      if (spec.queue !== QUEUES.maintenance || !('repeat' in spec)) continue;
      await this.queue.upsertJobScheduler(name, { every }, { name, opts: spec.options });
    }
  }

  // Creates the current and coming months' hook-run partitions.
  @HandlesJob('ensure-partitions')
  async ensurePartitions(): Promise<unknown> {
    return { created: await this.maintenance.ensurePartitions() };
  }

  // Drops partitions entirely older than the retention period.
  @HandlesJob('retention')
  async retention(): Promise<unknown> {
    return { dropped: await this.maintenance.applyRetention() };
  }

  // Turns sequence gaps whose grace period has passed into findings.
  @HandlesJob('reconcile-chains')
  async reconcileChains(): Promise<unknown> {
    return { findings: await this.maintenance.reconcileChains() };
  }

  // Merges the hourly rollup's appended rows of closed hours.
  @HandlesJob('compact-hourly-counts')
  async compactHourly(): Promise<unknown> {
    return { merged: await this.maintenance.compactHourlyCounts() };
  }
}
