// Every BullMQ queue name, in one place (the jobs on each are in jobs.ts).
export const QUEUES = {
  /** Staged rollout ring advances (delayed jobs) and gate checks after hook runs arrive. */
  rollout: 'rollout',
  /** Hook-run batches uploaded by agents, written to PostgreSQL in bulk. */
  ingest: 'hook-run-ingest',
  /** Partition creation, retention, chain reconciliation and rollup compaction (repeatable jobs). */
  maintenance: 'maintenance',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
