// Jobs PostgreSQL says must exist are re-created by the worker when Redis lacks them (a write lost in a Redis
// failover, an emptied Redis): the ring advance of a rolling release and the maintenance schedules.
import type { INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../apps/api/src/queues/queue-names';
import { waitFor } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

let api: TestApi;
let worker: INestApplicationContext;
let rollout: Queue;
let maintenance: Queue;

beforeAll(async () => {
  api = await startTestApi({ JOB_RECONCILE_INTERVAL_SEC: '1' });
  worker = await startTestWorker(api.config);
  const opts = { connection: { url: api.config.REDIS_URL }, prefix: `${api.config.REDIS_PREFIX}:bull` };
  rollout = new Queue(QUEUES.rollout, opts);
  maintenance = new Queue(QUEUES.maintenance, opts);
});
afterAll(async () => {
  await Promise.all([rollout?.close(), maintenance?.close()]);
  await worker?.close();
  await api?.close();
});

describe('job reconciliation', () => {
  it('a staged rollout whose pending ring advance vanished from Redis still completes, advanced once per ring', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const v = await createVersion(api, policyId, requirementsToml('/opt/hw-rec', 'v1'), [
      { path: 'check.sh', content: '#!/bin/sh\n' },
    ]);
    const created = await call(api.baseUrl, 'POST', `/v1/groups/${groupId}/releases`, {
      token: api.adminToken,
      body: { policyVersionId: v.versionId, strategy: 'staged', rings: [50, 100], ringIntervalSec: 2 },
    });
    expect(created.status).toBe(201);
    const mine = async () =>
      (await rollout.getJobs(['delayed', 'waiting'])).filter(
        (j) => j?.name === 'advance-ring' && (j.data as { releaseId: string }).releaseId === created.body.id,
      );
    await waitFor(async () => (await mine()).length > 0, 10_000, 'the advance job');
    for (const job of await mine()) await job.remove();
    await waitFor(
      async () =>
        (await call(api.baseUrl, 'GET', `/v1/releases/${created.body.id}`, { token: api.adminToken })).body.status ===
        'completed',
      20_000,
      'the rollout to complete',
    );
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?targetId=${created.body.id}`, {
      token: api.adminToken,
    });
    const advances = (audit.body.items as Array<{ action: string }>).filter((e) => e.action === 'release.advance');
    expect(advances).toHaveLength(1);
  });

  it('a maintenance schedule removed from Redis is scheduled again', async () => {
    await waitFor(async () => !!(await maintenance.getJobScheduler('retention')), 10_000, 'the schedule');
    await maintenance.removeJobScheduler('retention');
    expect(await maintenance.getJobScheduler('retention')).toBeUndefined();
    await waitFor(async () => !!(await maintenance.getJobScheduler('retention')), 10_000, 'the schedule again');
  });
});
