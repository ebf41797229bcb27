// BullMQ processor of the maintenance queue; schedules its repeatable jobs (the job table's `repeat` rows) at start.
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { HandlesJob, JobProcessor, JobsProcessor } from '../queues/job-handlers';
import { JOB_NAMES, JOB_TABLE, type JobOf, type JobPayload } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { MaintenanceService } from './maintenance.service';

type MaintenanceJob = JobOf<typeof QUEUES.maintenance>;

/** What each maintenance job runs, and the name its result (created or dropped partitions, counts) is returned under. */
const MAINTENANCE_RUNS = {
  'ensure-partitions': ['created', (m) => m.ensurePartitions()],
  retention: ['dropped', (m) => m.applyRetention()],
  'reconcile-chains': ['findings', (m) => m.reconcileChains()],
  'compact-hourly-counts': ['merged', (m) => m.compactHourlyCounts()],
} as const satisfies Record<MaintenanceJob, readonly [string, (m: MaintenanceService) => Promise<unknown>]>;

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

  // Runs one maintenance job (its row of MAINTENANCE_RUNS); errors propagate so BullMQ records the failure.
  @HandlesJob('ensure-partitions')
  @HandlesJob('retention')
  @HandlesJob('reconcile-chains')
  @HandlesJob('compact-hourly-counts')
  async run(_data: JobPayload<MaintenanceJob>, job: Job): Promise<Record<string, unknown>> {
    const [key, run] = MAINTENANCE_RUNS[job.name as MaintenanceJob];
    return { [key]: await run(this.maintenance) };
  }
}
