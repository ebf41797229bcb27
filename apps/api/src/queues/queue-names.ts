// Every BullMQ queue and job name, in one place.
export const QUEUES = {
  /** Staged rollout ring advances (delayed jobs) and gate checks after hook runs arrive. */
  rollout: 'rollout',
  /** Hook-run batches uploaded by agents, written to PostgreSQL in bulk. */
  ingest: 'hook-run-ingest',
  /** Partition creation, retention, chain reconciliation and rollup compaction (repeatable jobs). */
  maintenance: 'maintenance',
} as const;

export const JOBS = {
  advanceRing: 'advance-ring',
  checkGate: 'check-gate',
  ingestBatch: 'ingest-batch',
  ensurePartitions: 'ensure-partitions',
  retention: 'retention',
  reconcileChains: 'reconcile-chains',
  compactHourly: 'compact-hourly-counts',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
