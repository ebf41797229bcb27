// Fault 3 of the HA suite: the Redis master is killed (SIGKILL) under load, behind HAProxy with 3 API instances and
// 2 workers connected through 3 Sentinels. Sentinel promotes the replica; every connection follows it. Nothing queued
// is lost: every spooled record is stored exactly once, a staged rollout whose ring advances were due across the
// failover completes, and the maintenance schedule (retention) runs after it, even with the jobs and schedules a
// lost write would take away removed from the new master. Long-poll wake-ups resume. Reports the outage it saw.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePartition, listPartitions, monthStart, partitionName } from '../../apps/api/src/database/partitions';
import { JOB_NAMES, JOB_TABLE } from '../../apps/api/src/queues/jobs';
import { QUEUES } from '../../apps/api/src/queues/queue-names';
import { waitFor } from '../support/agent';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { call } from '../support/http';
import { type Cluster, haMissing, startCluster } from '../support/ha/cluster';
import {
  allStoredOnce,
  appliedToml,
  enrollFleet,
  type FleetAgent,
  HA_MANAGED_DIR,
  OutageProbe,
  spoolRecords,
  startFleetAgent,
  stopFleet,
  storedOf,
} from '../support/ha/fleet';
import { type SentinelRedis, startSentinelRedis } from '../support/ha/sentinel';
import { RUN_PREFIX } from '../support/run';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';

const missing = haMissing();
const skip = missing.length > 0 && process.env.CI !== 'true';
if (skip) console.warn(`test/ha/redis-failover skipped: missing ${missing.join(', ')}`);

const AGENTS = 3;
const PER_AGENT = 400;
/** The agents' long-poll wait: the longest there is, so a delivery faster than it comes from a wake-up. */
const POLL_WAIT_SEC = 60;
/** Generous bounds of what the test sees (the measured figures are printed). */
const MAX_REDIS_OUTAGE_SEC = 30;
const MAX_HTTP_OUTAGE_SEC = 10;

let db: TestDatabase;
let sentinel: SentinelRedis;
let cluster: Cluster;
let pool: pg.Pool;
let tmp: string;
let agents: FleetAgent[] = [];
const prefix = `${RUN_PREFIX}:ha${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  if (skip) return;
  expect(missing, 'the HA suite needs these (apt-get install haproxy redis-sentinel; npm run build)').toEqual([]);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-ha-redis-'));
  [db, sentinel] = await Promise.all([createTestDatabase(), startSentinelRedis()]);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  cluster = await startCluster(db.url, {
    ...sentinel.env,
    REDIS_PREFIX: prefix,
    HOOK_RUN_DRAIN_INTERVAL_SEC: '1',
    JOB_RECONCILE_INTERVAL_SEC: '1',
    HOOK_RUN_MAINTENANCE_INTERVAL_SEC: '2',
    HOOK_RUN_GAP_GRACE_SEC: '0',
  });
}, 200_000);

afterAll(async () => {
  await stopFleet(agents);
  await cluster?.stop();
  await sentinel?.stop();
  await pool?.end();
  await db?.drop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// An admin request through HAProxy that must succeed.
async function admin(method: string, p: string, body?: unknown): Promise<any> {
  const res = await call(cluster.url, method, p, { token: cluster.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

// Long polls held by every API instance together (their own /metrics).
async function heldPolls(): Promise<number> {
  let sum = 0;
  for (const url of cluster.apiUrls) {
    const res = await call(url, 'GET', '/metrics', { token: cluster.adminToken });
    sum += Number(/^hookwarden_long_polls_held (\d+)/m.exec(String(res.body))?.[1] ?? 0);
  }
  return sum;
}

// A BullMQ queue on the current master (through the sentinels), as the API names it.
function queue(name: string): Queue {
  return new Queue(name, {
    connection: {
      sentinels: sentinel.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
      name: sentinel.env.REDIS_SENTINEL_NAME,
      maxRetriesPerRequest: null,
    },
    prefix: `${prefix}:bull`,
  });
}

describe.skipIf(skip)('HA: the Redis master killed', () => {
  it('Sentinel promotes the replica; no queued job lost; wake-ups resume', async () => {
    const target = { baseUrl: cluster.url, adminToken: cluster.adminToken };
    const fleet = await createGroupWithPolicy(target);
    const rollout = await createGroupWithPolicy(target);
    const files = [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n' }];
    const v1 = await createVersion(target, fleet.policyId, requirementsToml(HA_MANAGED_DIR, 'v1'), files);
    await admin('POST', `/v1/groups/${fleet.groupId}/releases`, { policyVersionId: v1.versionId });
    agents = await enrollFleet(cluster.url, cluster.adminToken, fleet.groupId, AGENTS, tmp);
    for (const a of agents) startFleetAgent(a, POLL_WAIT_SEC);
    await waitFor(
      async () => (await Promise.all(agents.map(appliedToml))).every((t) => t === v1.toml),
      30_000,
      'every agent to apply v1',
    );
    await waitFor(async () => (await heldPolls()) >= AGENTS, 15_000, 'every agent to hold a long poll');

    // Before the fault: records flowing, a staged rollout whose two ring advances fall due across the failover.
    await Promise.all(agents.map((a) => spoolRecords(a, PER_AGENT)));
    const r1 = await createVersion(target, rollout.policyId, requirementsToml(HA_MANAGED_DIR, 'r1'), files);
    const staged = await admin('POST', `/v1/groups/${rollout.groupId}/releases`, {
      policyVersionId: r1.versionId,
      strategy: 'staged',
      rings: [10, 50, 100],
      ringIntervalSec: 3,
    });
    expect(staged).toMatchObject({ status: 'rolling', currentRing: 0 });

    const http = new OutageProbe(async () => {
      const res = await fetch(`${cluster.url}/v1/groups`, {
        headers: { authorization: `Bearer ${cluster.adminToken}` },
        signal: AbortSignal.timeout(2000),
      });
      await res.body?.cancel();
      return res.status === 200;
    }).start();
    const readiness = new OutageProbe(async () => {
      const res = await fetch(`${cluster.apiUrls[0]}/readyz`, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      return res.status === 200;
    }).start();

    // The fault, while more records are spooled.
    const killedAt = Date.now();
    const oldMaster = await sentinel.killMaster();
    await Promise.all(agents.map((a) => spoolRecords(a, PER_AGENT)));
    await sentinel.waitForFailover(oldMaster);
    const promotedSec = (Date.now() - killedAt) / 1000;
    await waitFor(() => readiness.recovered !== null || readiness.firstFailure === null, 60_000, 'readiness back');

    // What a write lost with the old master takes away: the pending ring advance, the maintenance schedules.
    const rolloutQueue = queue(QUEUES.rollout);
    const maintenanceQueue = queue(QUEUES.maintenance);
    try {
      for (const job of await rolloutQueue.getJobs(['delayed', 'waiting'])) {
        if (job?.name === 'advance-ring') await job.remove();
      }
      for (const name of JOB_NAMES) {
        if (JOB_TABLE[name].queue === QUEUES.maintenance) await maintenanceQueue.removeJobScheduler(name);
      }
      // A partition past retention, made after the schedules were removed: only a re-created schedule drops it.
      const old = monthStart(new Date(Date.now() - 800 * 86_400_000));
      await ensurePartition(pool, old);
      await Promise.all(agents.map((a) => spoolRecords(a, PER_AGENT)));

      // Every record stored exactly once.
      await waitFor(() => allStoredOnce(pool, agents), 90_000, 'every record stored once').catch(async (err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify([...(await storedOf(pool, agents))])}\n${cluster.diagnose()}`,
        );
      });
      // The rollout finished (both ring advances ran, one of them re-created by a worker).
      await waitFor(
        async () => (await admin('GET', `/v1/releases/${staged.id}`)).status === 'completed',
        60_000,
        'the staged rollout to complete',
      );
      expect(await admin('GET', `/v1/releases/${staged.id}`)).toMatchObject({ status: 'completed', currentRing: 2 });
      // Retention ran after the failover.
      await waitFor(
        async () => !(await listPartitions(pool)).some((p) => p.name === partitionName(old)),
        30_000,
        'retention to drop the old partition',
      );
      expect(await maintenanceQueue.getJobScheduler('retention')).toBeTruthy();
      // …re-created by a worker from PostgreSQL's state, not by chance.
      const logs = cluster.workers.map((w) => w?.output.join('') ?? '').join('\n');
      expect(logs).toMatch(/re-created \d+ missing ring advances/);
      expect(logs).toMatch(/re-created \d+ missing maintenance schedules/);
    } finally {
      await Promise.all([rolloutQueue.close(), maintenanceQueue.close()]);
    }

    // Wake-ups resume: a release after the failover reaches every agent sooner than its 60 s poll ends (only the
    // pub/sub wake-up does that; the fallback is the poll wait plus the 30 s cache, docs/operations.md).
    await waitFor(async () => (await heldPolls()) >= AGENTS, 60_000, 'every agent to hold a long poll again').catch(
      async (err: Error) => {
        const agentLogs = agents.map((a) => `--- ${a.name}:\n${a.proc?.stderr().slice(-1500) ?? ''}`).join('\n');
        throw new Error(`${err.message}: ${await heldPolls()} held\n${agentLogs}\n${cluster.diagnose()}`);
      },
    );
    const v2 = await createVersion(target, fleet.policyId, requirementsToml(HA_MANAGED_DIR, 'v2'), files);
    await admin('POST', `/v1/groups/${fleet.groupId}/releases`, { policyVersionId: v2.versionId });
    await waitFor(
      async () => (await Promise.all(agents.map(appliedToml))).every((t) => t === v2.toml),
      POLL_WAIT_SEC * 1000 - 15_000,
      'every agent to apply v2 through a wake-up',
    ).catch(async (err: Error) => {
      const per = await Promise.all(
        cluster.apiUrls.map(async (url) => {
          const res = await call(url, 'GET', '/metrics', { token: cluster.adminToken });
          return Number(/^hookwarden_long_polls_held (\d+)/m.exec(String(res.body))?.[1] ?? 0);
        }),
      );
      const applied = await Promise.all(agents.map(async (a) => `${a.name}: ${(await appliedToml(a))?.slice(-12)}`));
      throw new Error(
        `${err.message}: held per instance ${per.join('/')}; ${applied.join('; ')}\n${cluster.diagnose()}`,
      );
    });

    await Promise.all([http.stop(), readiness.stop()]);
    console.log(
      `[ha] redis master killed: sentinel promoted the replica after ${promotedSec.toFixed(1)} s; ` +
        `API readiness outage ${readiness.outageSec.toFixed(1)} s (${readiness.failures} failed probes); ` +
        `admin requests through HAProxy: ${http.failures} failed, outage ${http.outageSec.toFixed(1)} s; ` +
        `${AGENTS * PER_AGENT * 3} records stored once`,
    );
    expect(readiness.outageSec).toBeLessThan(MAX_REDIS_OUTAGE_SEC);
    expect(http.outageSec).toBeLessThan(MAX_HTTP_OUTAGE_SEC);
    expect(cluster.apis.every((p) => p?.alive()) && cluster.workers.every((p) => p?.alive()), cluster.diagnose()).toBe(
      true,
    );
  }, 240_000);
});
