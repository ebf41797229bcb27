// The job table: a worker whose handlers do not cover every job exactly once refuses to start (a real boot against
// PostgreSQL and Redis), payloads are validated before a handler runs, and a real job still round-trips.
import { getQueueToken } from '@nestjs/bullmq';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { Job, type Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../src/app.module';
import { IngestProcessor } from '../../src/ingest/ingest.processor';
import { MaintenanceProcessor } from '../../src/maintenance/maintenance.processor';
import { JobHandlersCheck, JobHandlersMismatch } from '../../src/queues/job-handlers.check';
import { checkJobHandlers, HandlesJob, JobProcessor, JobsProcessor } from '../../src/queues/job-handlers';
import { addJob, JOB_NAMES, JOB_TABLE } from '../../src/queues/jobs';
import { QUEUES } from '../../src/queues/queue-names';
import { WorkerModule } from '../../src/queues/worker.module';
import { ReleasesModule } from '../../src/releases/releases.module';
import { RolloutProcessor } from '../../src/releases/rollout.processor';
import { startTestApi, type TestApi } from '../../../../test/support/api';
import { startTestWorker } from '../../../../test/support/worker';

/** A second handler of check-gate (the doubled case). */
@JobsProcessor(QUEUES.rollout)
class SecondGateProcessor extends JobProcessor {
  // Would run gate checks a second time.
  @HandlesJob('check-gate')
  checkGate(): Promise<string> {
    return Promise.resolve('second');
  }
}

/** A handler on a processor of the wrong queue. */
@JobsProcessor(QUEUES.ingest)
class MisplacedProcessor extends JobProcessor {
  // Handles a rollout job from the ingest queue's processor.
  @HandlesJob('advance-ring')
  advance(): Promise<string> {
    return Promise.resolve('misplaced');
  }
}

@Module({ providers: [SecondGateProcessor] })
class DoubledModule {}

@Module({
  imports: [ReleasesModule, DiscoveryModule],
  providers: [RolloutProcessor, JobHandlersCheck],
})
class RolloutOnlyWorkerModule {}

const WORKER = [RolloutProcessor, IngestProcessor, MaintenanceProcessor];

describe('checkJobHandlers (the start-up rule)', () => {
  it('accepts the worker’s processors: every job of the table exactly once, on its queue', () => {
    expect(checkJobHandlers(WORKER)).toEqual([]);
    expect(Object.keys(JOB_TABLE).sort()).toEqual([...JOB_NAMES].sort());
  });

  it('names a job without a handler, with two, or handled from another queue', () => {
    expect(checkJobHandlers([RolloutProcessor, IngestProcessor])).toEqual(
      ['ensure-partitions', 'retention', 'reconcile-chains', 'compact-hourly-counts'].map(
        (n) => `job "${n}" (queue maintenance) has no handler`,
      ),
    );
    expect(checkJobHandlers([...WORKER, SecondGateProcessor])).toEqual([
      'job "check-gate" has 2 handlers: RolloutProcessor.checkGate, SecondGateProcessor.checkGate',
    ]);
    expect(checkJobHandlers([...WORKER, MisplacedProcessor])).toEqual([
      'MisplacedProcessor.advance handles job "advance-ring" of queue rollout but processes hook-run-ingest',
      'job "advance-ring" has 2 handlers: RolloutProcessor.advanceRing, MisplacedProcessor.advance',
    ]);
  });
});

describe('the worker', () => {
  let api: TestApi;
  let worker: INestApplicationContext | undefined;
  let queue: Queue;
  let events: QueueEvents;

  beforeAll(async () => {
    api = await startTestApi();
    queue = api.app.get<Queue>(getQueueToken(QUEUES.rollout));
    events = new QueueEvents(QUEUES.rollout, {
      connection: { url: api.config.REDIS_URL },
      prefix: `${api.config.REDIS_PREFIX}:bull`,
    });
    await events.waitUntilReady();
  });

  afterAll(async () => {
    await events?.close();
    await worker?.close();
    await api?.close();
  });

  // Boots a worker context with these extra modules; the error it refuses with (null when it started, then closed).
  async function bootError(extra: NonNullable<Parameters<typeof AppModule.forRoot>[1]>): Promise<Error | null> {
    try {
      const ctx = await NestFactory.createApplicationContext(AppModule.forRoot(api.config, extra), {
        logger: false,
        abortOnError: false,
      });
      await ctx.close();
      return null;
    } catch (err) {
      return err as Error;
    }
  }

  it('refuses to start with a doubled handler, naming the job and both handlers', async () => {
    const err = await bootError([WorkerModule, DoubledModule]);
    expect(err).toBeInstanceOf(JobHandlersMismatch);
    expect(err!.message).toBe(
      "the worker's job handlers do not match the job table: " +
        'job "check-gate" has 2 handlers: RolloutProcessor.checkGate, SecondGateProcessor.checkGate',
    );
  });

  it('refuses to start with a missing handler, naming every job without one', async () => {
    const err = await bootError([RolloutOnlyWorkerModule]);
    expect(err).toBeInstanceOf(JobHandlersMismatch);
    expect(err!.message).toMatch(/job "ingest-batch" \(queue hook-run-ingest\) has no handler/);
    expect(err!.message).toMatch(/job "compact-hourly-counts" \(queue maintenance\) has no handler/);
  });

  it('runs a real job end to end, and fails a job whose payload breaks the table without retrying it', async () => {
    // The worker schedules the table's repeatable jobs at start: each maintenance job runs through its one handler.
    const maintenance = new QueueEvents(QUEUES.maintenance, {
      connection: { url: api.config.REDIS_URL },
      prefix: `${api.config.REDIS_PREFIX}:bull`,
    });
    await maintenance.waitUntilReady();
    const ran = new Map<string, unknown>();
    const allRan = new Promise<void>((resolve) => {
      maintenance.on('completed', ({ jobId, returnvalue }) => {
        ran.set(jobId, returnvalue);
        if (ran.size >= 4) resolve();
      });
    });
    worker = await startTestWorker(api.config);
    const deadline = new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`ran only ${[...ran.keys()].join(', ')}`)), 30_000),
    );
    await Promise.race([allRan, deadline]);
    await maintenance.close();
    expect(Object.values(JOB_TABLE).filter((j) => j.queue === QUEUES.maintenance)).toHaveLength(4);
    expect([...ran.values()].map((v) => Object.keys(v as object)[0]).sort()).toEqual([
      'created',
      'dropped',
      'findings',
      'merged',
    ]);
    const groupId = '00000000-0000-4000-8000-000000000000';
    const job = await addJob(queue, 'check-gate', { groupId }, { jobId: 'gate-roundtrip' });
    expect(job.opts).toMatchObject({ attempts: 3, removeOnComplete: true, removeOnFail: 100 });
    expect(await job.waitUntilFinished(events, 20_000)).toBe('skipped');

    const bad = await queue.add('check-gate', { groupId: 42 }, { jobId: 'gate-bad', attempts: 3 });
    await expect(bad.waitUntilFinished(events, 20_000)).rejects.toThrow(
      /job "check-gate" gate-bad: invalid payload at \$\.groupId: /,
    );
    const failed = await Job.fromId(queue, 'gate-bad');
    expect(failed?.attemptsMade).toBe(1);
    expect(await failed?.isFailed()).toBe(true);
    await expect(addJob(queue, 'ingest-batch', { uploadId: 'u' })).rejects.toThrow(
      /job ingest-batch belongs on queue hook-run-ingest, not rollout/,
    );
  });
});
