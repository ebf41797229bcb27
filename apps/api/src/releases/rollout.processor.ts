// BullMQ processor of ring advances and gate checks (registered only in the worker module).
import { Logger } from '@nestjs/common';
import { HandlesJob, JobProcessor, JobsProcessor } from '../queues/job-handlers';
import type { JobPayload } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { ReleasesService } from './releases.service';

@JobsProcessor(QUEUES.rollout)
export class RolloutProcessor extends JobProcessor {
  private readonly logger = new Logger('RolloutProcessor');

  constructor(private readonly releases: ReleasesService) {
    super();
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
