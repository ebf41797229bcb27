// Partition maintenance: months created ahead, expired months dropped and recorded in the admin audit log.
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MaintenanceService } from '../../apps/api/src/maintenance/maintenance.service';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoints } from '../support/audit-factories';
import { startTestWorker } from '../support/worker';

let api: TestApi;
let worker: INestApplicationContext;
let db: pg.Pool;

beforeAll(async () => {
  api = await startTestApi({ HOOK_RUN_PARTITIONS_AHEAD: '3', HOOK_RUN_RETENTION_DAYS: '90' });
  worker = await startTestWorker(api.config);
  db = new pg.Pool({ connectionString: api.db.url, max: 2 });
});

afterAll(async () => {
  await db?.end();
  await worker?.close();
  await api?.close();
});

// The names of the existing hook_runs partitions.
async function partitions(): Promise<string[]> {
  const res = await db.query<{ relname: string }>(
    `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'hook_runs'::regclass ORDER BY 1`,
  );
  return res.rows.map((r) => r.relname);
}

it('creates the current and next months ahead, idempotently', async () => {
  const service = worker.get(MaintenanceService);
  const now = new Date('2027-03-15T00:00:00Z');
  const created = await service.ensurePartitions(now);
  expect(created).toEqual(['hook_runs_p202703', 'hook_runs_p202704', 'hook_runs_p202705', 'hook_runs_p202706']);
  expect(await service.ensurePartitions(now)).toEqual([]);
  expect(await partitions()).toEqual(expect.arrayContaining(created));
});

it('drops partitions older than the retention and audits each drop', async () => {
  const service = worker.get(MaintenanceService);
  const [ep] = await createEndpoints(api.db.url, 1);
  // A record in November 2026 (the migration's partition), then "now" is far enough for it to expire.
  await db.query(
    `INSERT INTO hook_runs (id, started_at, endpoint_id, group_id, seq, record_hash, event, hook_key, status, record)
     VALUES (gen_random_uuid(), '2026-11-05T00:00:00Z', $1, $2, 1, 'h', 'Stop', 'k', 'ran', '{}')`,
    [ep!.id, ep!.groupId],
  );
  // Hourly counts of the expiring month and of the next one.
  await db.query(
    `INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, n)
     VALUES ('2026-11-05T00:00:00Z', $1, 'Stop', '', 'ran', 1), ('2026-12-01T00:00:00Z', $1, 'Stop', '', 'ran', 4)`,
    [ep!.groupId],
  );
  // And the per-endpoint counts (the rollout gate's) of both months.
  await db.query(
    `INSERT INTO hook_run_endpoint_counts (endpoint_id, group_id, policy_revision, hour, ran, failed)
     VALUES ($1, $2, 1, '2026-11-05T00:00:00Z', 1, 0), ($1, $2, 1, '2026-12-01T00:00:00Z', 4, 1)`,
    [ep!.id, ep!.groupId],
  );
  const dropped = await service.applyRetention(new Date('2027-03-15T00:00:00Z')); // cutoff 2026-12-15
  expect(dropped).toEqual(['hook_runs_p202611']);
  expect(await partitions()).not.toContain('hook_runs_p202611');
  expect(await partitions()).toContain('hook_runs_p202612');
  const left = await db.query<{ hour: Date; n: number }>(
    'SELECT hour, n::int AS n FROM hook_run_hourly WHERE group_id = $1',
    [ep!.groupId],
  );
  expect(left.rows).toEqual([{ hour: new Date('2026-12-01T00:00:00Z'), n: 4 }]);
  const counts = await db.query('SELECT hour, ran::int AS ran FROM hook_run_endpoint_counts WHERE endpoint_id = $1', [
    ep!.id,
  ]);
  expect(counts.rows).toEqual([{ hour: new Date('2026-12-01T00:00:00Z'), ran: 4 }]);
  const audit = await db.query<{ action: string; target_id: string; details: { rows: number; retentionDays: number } }>(
    `SELECT action, target_id, details FROM audit_log WHERE action = 'hook_runs.partition.drop'`,
  );
  expect(audit.rows).toEqual([
    expect.objectContaining({
      target_id: 'hook_runs_p202611',
      details: expect.objectContaining({ rows: 1, retentionDays: 90 }),
    }),
  ]);
});

it('merges the hourly counts appended for one key and hour into one row, keeping every sum', async () => {
  const service = worker.get(MaintenanceService);
  const [ep] = await createEndpoints(api.db.url, 1);
  const g = ep!.groupId;
  // Three ingest batches' worth of rows in one closed hour, two in another, one in the still-open hour.
  await db.query(
    `INSERT INTO hook_run_hourly (hour, group_id, event, decision, status, policy_revision, n) VALUES
       ('2027-01-10T09:00:00Z', $1, 'PreToolUse', 'deny', 'ran', '3', 2),
       ('2027-01-10T09:00:00Z', $1, 'PreToolUse', 'deny', 'ran', '3', 3),
       ('2027-01-10T09:00:00Z', $1, 'PreToolUse', 'deny', 'ran', '4', 9),
       ('2027-01-10T09:00:00Z', $1, 'PreToolUse', '', 'failed', '3', 1),
       ('2027-01-10T09:00:00Z', $1, 'PreToolUse', '', 'failed', '3', 1),
       ('2027-01-10T10:00:00Z', $1, 'Stop', '', 'ran', '3', 5),
       ('2027-01-10T11:00:00Z', $1, 'Stop', '', 'ran', '3', 7),
       ('2027-01-10T11:00:00Z', $1, 'Stop', '', 'ran', '3', 1)`,
    [g],
  );
  const rows = async () =>
    (
      await db.query<{ hour: string; decision: string; status: string; rev: string; n: number }>(
        `SELECT to_char(hour AT TIME ZONE 'UTC', 'HH24') AS hour, decision, status, policy_revision AS rev, n::int AS n
           FROM hook_run_hourly WHERE group_id = $1 ORDER BY 1, 2, 3, 4, 5`,
        [g],
      )
    ).rows;
  expect(await service.compactHourlyCounts(new Date('2027-01-10T11:30:00Z'))).toBe(2);
  expect(await rows()).toEqual([
    { hour: '09', decision: '', status: 'failed', rev: '3', n: 2 },
    { hour: '09', decision: 'deny', status: 'ran', rev: '3', n: 5 },
    { hour: '09', decision: 'deny', status: 'ran', rev: '4', n: 9 },
    { hour: '10', decision: '', status: 'ran', rev: '3', n: 5 },
    { hour: '11', decision: '', status: 'ran', rev: '3', n: 1 },
    { hour: '11', decision: '', status: 'ran', rev: '3', n: 7 },
  ]);
  expect(await service.compactHourlyCounts(new Date('2027-01-10T11:30:00Z'))).toBe(0);
});
