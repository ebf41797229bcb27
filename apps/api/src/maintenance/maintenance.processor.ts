// BullMQ processor of the maintenance queue; schedules its repeatable jobs when the worker starts.
import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { JOBS, QUEUES } from '../queues/queue-names';
import { MaintenanceService } from './maintenance.service';

@Processor(QUEUES.maintenance)
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
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
    for (const name of [JOBS.ensurePartitions, JOBS.retention, JOBS.reconcileChains, JOBS.compactHourly]) {
      await this.queue.upsertJobScheduler(
        name,
        { every },
        { name, opts: { removeOnComplete: true, removeOnFail: 100 } },
      );
    }
  }

  // Runs one maintenance job; errors propagate so BullMQ records the failure.
  async process(job: Job): Promise<unknown> {
    switch (job.name) {
      case JOBS.ensurePartitions:
        return { created: await this.maintenance.ensurePartitions() };
      case JOBS.retention:
        return { dropped: await this.maintenance.applyRetention() };
      case JOBS.reconcileChains:
        return { findings: await this.maintenance.reconcileChains() };
      case JOBS.compactHourly:
        return { merged: await this.maintenance.compactHourlyCounts() };
      default:
        throw new Error(`unknown maintenance job ${job.name}`);
    }
  }
}
