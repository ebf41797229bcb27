// BullMQ processor of ring advances and gate checks (registered only in the worker module); re-creates the ring
// advance of every rolling release that Redis lacks (after a failover or an empty Redis), from start on.
import { Inject, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { HandlesJob, JobProcessor, JobsProcessor } from '../queues/job-handlers';
import type { JobPayload } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { reconcileLoop, type ReconcileLoop } from '../queues/reconcile-loop';
import { ReleasesService } from './releases.service';

@JobsProcessor(QUEUES.rollout)
export class RolloutProcessor extends JobProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RolloutProcessor');
  private loop: ReconcileLoop | null = null;

  constructor(
    private readonly releases: ReleasesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  // Starts re-creating missing ring advances every JOB_RECONCILE_INTERVAL_SEC.
  onApplicationBootstrap(): void {
    this.loop = reconcileLoop('ring advances', this.config.JOB_RECONCILE_INTERVAL_SEC, this.logger, () =>
      this.releases.ensureAdvances(),
    );
  }

  // Stops the reconciliation loop.
  async onApplicationShutdown(): Promise<void> {
    await this.loop?.stop();
  }

  // Gates, then advances the release past the job's ring; errors are rethrown so BullMQ retries and records them.
  @HandlesJob('advance-ring')
  async advanceRing(data: JobPayload<'advance-ring'>): Promise<string> {
    try {
      const outcome = await this.releases.advanceFromJob(data);
      this.logger.log({ ...data, outcome }, 'ring advance job');
      return outcome;
    } catch (err) {
      this.logger.error({ err, job: 'advance-ring', ...data }, 'rollout job failed');
      throw err;
    }
  }

  // Runs the gate of the group's rolling release after hook runs arrived.
  @HandlesJob('check-gate')
  async checkGate(data: JobPayload<'check-gate'>): Promise<string> {
    try {
      return await this.releases.checkGateAfterHookRuns(data.groupId);
    } catch (err) {
      this.logger.error({ err, job: 'check-gate', ...data }, 'rollout job failed');
      throw err;
    }
  }
}
