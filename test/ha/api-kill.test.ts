// Fault 1 of the HA suite: kill -9 of the API instance holding a third of the long polls of real agents, behind
// HAProxy (3 API instances, 2 workers), while the agents upload hook-run records. The agents it held reconnect through
// HAProxy to the other instances and get the next release through a wake-up; every record accepted (202) before the
// kill, and every one after, is stored exactly once. Reports the outage it saw.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { RUN_PREFIX, TEST_REDIS_URL } from '../support/run';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';

const missing = haMissing();
const skip = missing.length > 0 && process.env.CI !== 'true';
if (skip) console.warn(`test/ha/api-kill skipped: missing ${missing.join(', ')}`);

const AGENTS = 6;
const PER_AGENT = 300;
/** The agents' long-poll wait: the longest there is, so a delivery faster than it comes from a wake-up. */
const POLL_WAIT_SEC = 60;
/** Generous bounds of what the test sees (the measured figures are printed). */
const MAX_HTTP_OUTAGE_SEC = 10;
const MAX_RECONNECT_SEC = 30;

let db: TestDatabase;
let cluster: Cluster;
let pool: pg.Pool;
let tmp: string;
let agents: FleetAgent[] = [];

beforeAll(async () => {
  if (skip) return;
  expect(missing, 'the HA suite needs these (apt-get install haproxy redis-sentinel; npm run build)').toEqual([]);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'hw-ha-kill-'));
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  cluster = await startCluster(db.url, {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `${RUN_PREFIX}:ha${randomBytes(3).toString('hex')}`,
    HOOK_RUN_DRAIN_INTERVAL_SEC: '1',
    HOOK_RUN_GAP_GRACE_SEC: '0',
  });
}, 200_000);

afterAll(async () => {
  await stopFleet(agents);
  await cluster?.stop();
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

// Long polls each live API instance holds (its own /metrics; a dead instance holds none).
async function heldPerInstance(): Promise<number[]> {
  return Promise.all(
    cluster.apiUrls.map(async (url, i) => {
      if (!cluster.apis[i]?.alive()) return 0;
      const res = await call(url, 'GET', '/metrics', { token: cluster.adminToken }).catch(() => null);
      return Number(/^hookwarden_long_polls_held (\d+)/m.exec(String(res?.body ?? ''))?.[1] ?? 0);
    }),
  );
}
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe.skipIf(skip)('HA: an API instance killed', () => {
  it('its agents reconnect through HAProxy and get the next release; no accepted record lost', async () => {
    const target = { baseUrl: cluster.url, adminToken: cluster.adminToken };
    const { groupId, policyId } = await createGroupWithPolicy(target);
    const files = [{ path: 'check.sh', content: '#!/bin/sh\nexit 0\n' }];
    const v1 = await createVersion(target, policyId, requirementsToml(HA_MANAGED_DIR, 'v1'), files);
    await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId });
    agents = await enrollFleet(cluster.url, cluster.adminToken, groupId, AGENTS, tmp);
    for (const a of agents) startFleetAgent(a, POLL_WAIT_SEC);
    await waitFor(
      async () => (await Promise.all(agents.map(appliedToml))).every((t) => t === v1.toml),
      30_000,
      'every agent to apply v1',
    );
    // HAProxy spreads the long polls (least connections): each instance holds about a third.
    const held = (await waitFor(
      async (): Promise<number[] | false> => {
        const h = await heldPerInstance();
        return sum(h) >= AGENTS && h.every((n) => n > 0) ? h : false;
      },
      20_000,
      'every agent to hold a long poll, on every instance',
    )) as number[];
    const victim = held.indexOf(Math.max(...held));

    // Records accepted before the kill, and more spooled while it happens.
    await Promise.all(agents.map((a) => spoolRecords(a, PER_AGENT)));
    await waitFor(
      async () => [...(await storedOf(pool, agents)).values()].some((s) => s.n > 0),
      30_000,
      'uploads to be accepted',
    );
    const http = new OutageProbe(async () => {
      const res = await fetch(`${cluster.url}/v1/groups`, {
        headers: { authorization: `Bearer ${cluster.adminToken}` },
        signal: AbortSignal.timeout(2000),
      });
      await res.body?.cancel();
      return res.status === 200;
    }).start();
    const spooling = Promise.all(agents.map((a) => spoolRecords(a, PER_AGENT)));
    const killedAt = Date.now();
    await cluster.killApi(victim);
    await spooling;

    // The agents it held poll the other instances again.
    await waitFor(async () => sum(await heldPerInstance()) >= AGENTS, MAX_RECONNECT_SEC * 1000, 'polls held again');
    const reconnectedSec = (Date.now() - killedAt) / 1000;

    // The next release reaches every agent sooner than a 60 s poll ends: through the wake-up of the poll it holds now.
    const v2 = await createVersion(target, policyId, requirementsToml(HA_MANAGED_DIR, 'v2'), files);
    await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v2.versionId });
    await waitFor(
      async () => (await Promise.all(agents.map(appliedToml))).every((t) => t === v2.toml),
      POLL_WAIT_SEC * 1000 - 15_000,
      'every agent to apply v2',
    );

    // Every record (accepted before the kill, in flight during it, sent after) stored exactly once.
    await Promise.all(agents.map((a) => spoolRecords(a, PER_AGENT)));
    await waitFor(() => allStoredOnce(pool, agents), 90_000, 'every record stored once').catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify([...(await storedOf(pool, agents))])}\n${cluster.diagnose()}`);
    });
    await http.stop();
    console.log(
      `[ha] API instance ${victim} killed holding ${held[victim]} of ${sum(held)} long polls (${held.join('/')}): ` +
        `every poll held again after ${reconnectedSec.toFixed(1)} s; admin requests through HAProxy: ` +
        `${http.failures} failed, outage ${http.outageSec.toFixed(1)} s; ${AGENTS * PER_AGENT * 3} records stored once`,
    );
    expect(http.outageSec).toBeLessThan(MAX_HTTP_OUTAGE_SEC);
    expect(cluster.workers.every((p) => p?.alive()) && cluster.haproxy.alive(), cluster.diagnose()).toBe(true);
  }, 240_000);
});
