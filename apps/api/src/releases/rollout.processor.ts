// BullMQ processor of ring advances and gate checks (registered only in the worker module).
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JOBS, QUEUES } from '../queues/queue-names';
import { type AdvanceJob, type GateCheckJob, ReleasesService } from './releases.service';

@Processor(QUEUES.rollout)
export class RolloutProcessor extends WorkerHost {
  private readonly logger = new Logger('RolloutProcessor');

  constructor(private readonly releases: ReleasesService) {
    super();
  }

  // Runs one advance or gate-check job; errors are rethrown so BullMQ retries and records them.
  async process(job: Job<AdvanceJob | GateCheckJob>): Promise<string> {
    try {
      if (job.name === JOBS.advanceRing) {
        const data = job.data as AdvanceJob;
        const outcome = await this.releases.advanceFromJob(data);
        this.logger.log({ ...data, outcome }, 'ring advance job');
        return outcome;
      }
      if (job.name === JOBS.checkGate)
        return await this.releases.checkGateAfterHookRuns((job.data as GateCheckJob).groupId);
    } catch (err) {
      this.logger.error({ err, job: job.name, ...job.data }, 'rollout job failed');
      throw err;
    }
    throw new Error(`unknown job ${job.name} on ${QUEUES.rollout}`);
  }
}
