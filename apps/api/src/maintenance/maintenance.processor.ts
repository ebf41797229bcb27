// BullMQ processor of the maintenance queue; schedules its repeatable jobs (the job table's `repeat` rows) at start
// and schedules again any that Redis lost (a failover, an empty Redis) every JOB_RECONCILE_INTERVAL_SEC.
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { HandlesJob, JobProcessor, JobsProcessor } from '../queues/job-handlers';
import { JOB_NAMES, JOB_TABLE, type JobOf, type JobPayload } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { reconcileLoop, type ReconcileLoop } from '../queues/reconcile-loop';
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
export class MaintenanceProcessor extends JobProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MaintenanceProcessor');
  private loop: ReconcileLoop | null = null;

  constructor(
    private readonly maintenance: MaintenanceService,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  // Upserts the repeatable schedules (idempotent across worker restarts and instances), then keeps checking them.
  async onApplicationBootstrap(): Promise<void> {
    await this.schedule(true);
    this.loop = reconcileLoop('maintenance schedules', this.config.JOB_RECONCILE_INTERVAL_SEC, this.logger, () =>
      this.schedule(false),
    );
  }

  // Stops the schedule check.
  async onApplicationShutdown(): Promise<void> {
    await this.loop?.stop();
  }

  // Upserts every repeatable schedule (`all`), or only those Redis lacks; returns how many were upserted.
  private async schedule(all: boolean): Promise<number> {
    const every = this.config.HOOK_RUN_MAINTENANCE_INTERVAL_SEC * 1000;
    let made = 0;
    for (const name of JOB_NAMES) {
      const spec = JOB_TABLE[name];
      if (spec.queue !== QUEUES.maintenance || !('repeat' in spec)) continue;
      if (!all && (await this.queue.getJobScheduler(name))) continue;
      await this.queue.upsertJobScheduler(name, { every }, { name, opts: spec.options });
      made++;
    }
    return all ? 0 : made;
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
