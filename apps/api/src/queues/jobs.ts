// The job table: every BullMQ job with its queue, payload schema and options, checked by the compiler. Producers
// enqueue through addJob (typed payload, the table's options); processors validate payloads against it (jobs/
// handlers in job-handlers.ts), and the worker refuses to start unless every job has exactly one handler.
import type { Job, JobsOptions, Queue } from 'bullmq';
import { z } from 'zod';
import { QUEUES, type QueueName } from './queue-names';

/** Every job name. */
export const JOB_NAMES = [
  'advance-ring',
  'check-gate',
  'ingest-batch',
  'ensure-partitions',
  'retention',
  'reconcile-chains',
  'compact-hourly-counts',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** One row of the job table. */
export interface JobSpec {
  queue: QueueName;
  /** What the job's data must be (checked before its handler runs). */
  payload: z.ZodType;
  /** BullMQ options of every job of this name (a producer adds only its delay and job id). */
  options: JobsOptions;
  /** Repeats on the maintenance interval (the worker upserts its scheduler at start). */
  repeat?: true;
}

const id = z.string().min(1).max(200);
/** Scheduled jobs carry no data. */
const noPayload = z.union([z.undefined(), z.object({}).strict()]);
const retried = (attempts: number) => ({ attempts, backoff: { type: 'exponential', delay: 1000 } });
const maintenance = {
  queue: QUEUES.maintenance,
  payload: noPayload,
  options: { removeOnComplete: true, removeOnFail: 100 },
  repeat: true,
} as const satisfies JobSpec;

export const JOB_TABLE = {
  /** Moves a staged release past `ring` (delayed by its ring interval; gated first). Retried for about 8.5 minutes
   *  (10 attempts, 1 s doubling): a ring advance due during a database failover or outage happens once the database
   *  is back instead of leaving the rollout stuck in its ring. */
  'advance-ring': {
    queue: QUEUES.rollout,
    payload: z.object({ releaseId: id, ring: z.number().int().min(0).max(100) }).strict(),
    options: { removeOnComplete: true, removeOnFail: 100, ...retried(10) },
  },
  /** Runs the gate of a group's rolling release after hook runs arrived. */
  'check-gate': {
    queue: QUEUES.rollout,
    payload: z.object({ groupId: id }).strict(),
    options: { removeOnComplete: true, removeOnFail: 100, ...retried(3) },
  },
  /** Wakes the worker for one staged upload (the staged row is the data; retries only re-wake). */
  'ingest-batch': {
    queue: QUEUES.ingest,
    payload: z.object({ uploadId: id }).strict(),
    options: { removeOnComplete: true, removeOnFail: { age: 24 * 3600 }, ...retried(5) },
  },
  'ensure-partitions': maintenance,
  retention: maintenance,
  'reconcile-chains': maintenance,
  'compact-hourly-counts': maintenance,
} as const satisfies Record<JobName, JobSpec>;

/** The data of a job, as its table row's schema defines it. */
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_TABLE)[N]['payload']>;

/** The names of the jobs on one queue. */
export type JobOf<Q extends QueueName> = {
  [N in JobName]: (typeof JOB_TABLE)[N]['queue'] extends Q ? N : never;
}[JobName];

// True when `name` is a job of the table.
export function isJobName(name: string): name is JobName {
  return (JOB_NAMES as readonly string[]).includes(name);
}

// Enqueues a job on its queue with the table's options (plus this job's delay and id); refuses another queue.
export async function addJob<N extends JobName>(
  queue: Queue,
  name: N,
  data: JobPayload<N>,
  extra: Pick<JobsOptions, 'delay' | 'jobId'> = {},
): Promise<Job> {
  if (queue.name !== JOB_TABLE[name].queue) {
    throw new Error(`job ${name} belongs on queue ${JOB_TABLE[name].queue}, not ${queue.name}`);
  }
  return queue.add(name, data, { ...JOB_TABLE[name].options, ...extra });
}
