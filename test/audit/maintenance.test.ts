// Partition maintenance: months created ahead, expired months dropped and recorded in the admin audit log.
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MaintenanceService } from '../../apps/api/src/maintenance/maintenance.service';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoints, startWorker } from '../support/audit-factories';

let api: TestApi;
let worker: INestApplicationContext;
let db: pg.Pool;

beforeAll(async () => {
  api = await startTestApi({ HOOK_RUN_PARTITIONS_AHEAD: '3', HOOK_RUN_RETENTION_DAYS: '90' });
  worker = await startWorker(api.config);
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
  const dropped = await service.applyRetention(new Date('2027-03-15T00:00:00Z')); // cutoff 2026-12-15
  expect(dropped).toEqual(['hook_runs_p202611']);
  expect(await partitions()).not.toContain('hook_runs_p202611');
  expect(await partitions()).toContain('hook_runs_p202612');
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
