// BullMQ processor of the ingest queue: one job = one uploaded batch, written in bulk; failures rethrow (retried).
import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { MetricsService } from '../metrics/metrics.service';
import { QUEUES } from '../queues/queue-names';
import { ReleasesService } from '../releases/releases.service';
import type { IngestJobData } from './ingest.job';
import { IngestRepository, type IngestResult } from './ingest.repository';

@Processor(QUEUES.ingest)
export class IngestProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('IngestProcessor');

  constructor(
    private readonly repository: IngestRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly releases: ReleasesService,
    private readonly metrics: MetricsService,
  ) {
    super();
  }

  // Applies the configured concurrency once the worker exists.
  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.HOOK_RUN_INGEST_CONCURRENCY;
  }

  // Writes the batch (any error propagates so BullMQ retries with backoff), then queues the group's rollout gate
  // check so a rollout whose hooks fail pauses without waiting for its next ring advance.
  async process(job: Job<IngestJobData>): Promise<IngestResult> {
    const result = await this.repository.ingestBatch(job.data);
    await this.metrics.addFleet('hook_run_batches_ingested');
    await this.metrics.addFleet('hook_runs_ingested', result.inserted);
    if (result.inserted > 0) {
      await this.releases.scheduleGateCheck(job.data.groupId).catch((err: unknown) => {
        // The batch is stored; the ring advance job still gates before it moves on.
        this.logger.warn(`could not queue the gate check of group ${job.data.groupId}: ${(err as Error).message}`);
      });
    }
    return result;
  }

  // Logs batches that failed an attempt (they are retried until attempts run out).
  @OnWorkerEvent('failed')
  onFailed(job: Job<IngestJobData> | undefined, err: Error): void {
    void this.metrics.addFleet('hook_run_batches_failed');
    this.logger.warn(`ingest job ${job?.id} failed (attempt ${job?.attemptsMade}): ${err.message}`);
  }
}
