// BullMQ processor of ring advances (registered only in the worker module).
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JOBS, QUEUES } from '../queues/queue-names';
import { type AdvanceJob, ReleasesService } from './releases.service';

@Processor(QUEUES.rollout)
export class RolloutProcessor extends WorkerHost {
  private readonly logger = new Logger('RolloutProcessor');

  constructor(private readonly releases: ReleasesService) {
    super();
  }

  // Runs one advance job; errors are rethrown so BullMQ retries and records them.
  async process(job: Job<AdvanceJob>): Promise<string> {
    if (job.name !== JOBS.advanceRing) throw new Error(`unknown job ${job.name} on ${QUEUES.rollout}`);
    try {
      const outcome = await this.releases.advanceFromJob(job.data);
      this.logger.log({ ...job.data, outcome }, 'ring advance job');
      return outcome;
    } catch (err) {
      this.logger.error({ err, ...job.data }, 'ring advance failed');
      throw err;
    }
  }
}
