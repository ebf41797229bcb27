// BullMQ processor of the ingest queue: a job wakes the worker for one staged upload (hook_run_uploads), stored in
// bulk; a periodic drain stores staged uploads no job woke it for (Redis lost, enqueue failed), from start on.
import { OnWorkerEvent } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Job } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { MetricsService } from '../metrics/metrics.service';
import { HandlesJob, JobProcessor, JobsProcessor } from '../queues/job-handlers';
import type { JobPayload } from '../queues/jobs';
import { QUEUES } from '../queues/queue-names';
import { ReleasesService } from '../releases/releases.service';
import type { IngestWakeData } from './ingest.job';
import { IngestRepository, type IngestResult } from './ingest.repository';

/** Staged uploads fetched per drain step. */
const DRAIN_STEP = 50;

@JobsProcessor(QUEUES.ingest)
export class IngestProcessor extends JobProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IngestProcessor');
  private drainTimer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private stopped = false;
  /** Set after the first complete drain. */
  private drained = false;

  constructor(
    private readonly repository: IngestRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly releases: ReleasesService,
    private readonly metrics: MetricsService,
  ) {
    super();
  }

  // Applies the configured concurrency once the worker exists, drains what is staged, then keeps draining.
  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.HOOK_RUN_INGEST_CONCURRENCY;
    const tick = (): void => {
      if (this.stopped) return;
      this.draining ??= this.drain().finally(() => {
        this.draining = null;
        if (!this.stopped) this.drainTimer = setTimeout(tick, this.config.HOOK_RUN_DRAIN_INTERVAL_SEC * 1000);
      });
    };
    tick();
  }

  // Stops the drain loop and waits for the current step.
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    await this.draining;
  }

  // Stores the staged upload the job names (any error propagates so BullMQ retries; the drain retries as well).
  @HandlesJob('ingest-batch')
  async ingestBatch(data: JobPayload<'ingest-batch'>): Promise<IngestResult | null> {
    const result = await this.repository.ingestUpload(data.uploadId);
    if (result) this.afterStore(result, data.uploadId);
    if (result) {
      await this.metrics.addFleet('hook_run_batches_ingested');
      await this.metrics.addFleet('hook_runs_ingested', result.inserted);
    }
    return result;
  }

  // Stores every due staged upload, oldest first; errors leave the upload staged for a later attempt. The first drain
  // takes everything; later ones leave uploads younger than two intervals to their queue jobs.
  async drain(): Promise<void> {
    const minAge = this.drained ? 2 * this.config.HOOK_RUN_DRAIN_INTERVAL_SEC : 0;
    try {
      for (;;) {
        if (this.stopped) return;
        const ids = await this.repository.dueUploads(DRAIN_STEP, minAge);
        let progressed = 0;
        for (const id of ids) {
          if (this.stopped) return;
          try {
            const result = await this.repository.ingestUpload(id);
            if (result) {
              progressed++;
              this.afterStore(result, id);
            }
          } catch (err) {
            this.logger.warn(`staged upload ${id} not stored yet: ${(err as Error).message}`);
          }
        }
        if (ids.length < DRAIN_STEP || progressed === 0) break;
      }
      this.drained = true;
    } catch (err) {
      this.logger.warn(`drain of staged uploads failed (retrying later): ${(err as Error).message}`);
    }
  }

  // Queues the group's rollout gate check so a rollout whose hooks fail pauses without waiting for its next ring (not
  // awaited: without Redis it waits for the connection, and storing must not).
  private afterStore(result: IngestResult & { groupId: string }, uploadId: string): void {
    if (result.quarantined > 0) this.logger.warn(`upload ${uploadId}: ${result.quarantined} record(s) quarantined`);
    if (result.inserted === 0) return;
    const groupId = result.groupId;
    void this.releases.scheduleGateCheck(groupId).catch((err: unknown) => {
      // The batch is stored; the ring advance job still gates before it moves on.
      this.logger.warn(`could not queue the gate check of group ${groupId}: ${(err as Error).message}`);
    });
  }

  // Logs wake-ups that failed an attempt (the upload stays staged; BullMQ and the drain retry).
  @OnWorkerEvent('failed')
  onFailed(job: Job<IngestWakeData> | undefined, err: Error): void {
    void this.metrics.addFleet('hook_run_batches_failed');
    this.logger.warn(`ingest job ${job?.id} failed (attempt ${job?.attemptsMade}): ${err.message}`);
  }
}
