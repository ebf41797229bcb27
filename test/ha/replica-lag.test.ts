// Fault 4 of issue 23: the replica lags by seconds (WAL replay paused with pg_wal_replay_pause(); it still receives
// and flushes WAL, so synchronous commits go on). Auditors' queries (hook runs, findings, the audit log and its
// verification: the read pool, DATABASE_READ_URL at HAProxy's replica port) are served all along, from the lagging
// copy; admins' reads of what they just wrote (a version then the version list, a release then its rollout) come from
// the primary and never show stale data. Once replay resumes the auditors see everything. No request fails.
import { gzipSync } from 'node:zlib';
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiClient } from '../../apps/agent-sync/src/client/api-client';
import { guardPool } from '../../apps/api/src/database/pg-pools';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, chainedLines, createEndpoints, eventually } from '../support/audit-factories';
import { describeHaPostgres, haTestDatabase, type PgHa, type PgNode, startPgHa } from '../support/ha/postgres';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

/** The replay lag the test builds up before checking (seconds behind the primary's last commit). */
const LAG_SEC = 3;

let ha: PgHa;
let api: TestApi;
let worker: INestApplicationContext;
let primary: pg.Pool;
let replicaDb: pg.Pool;
let replica: PgNode;
let auditor: string;

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });
const audit = (p: string) => call(api.baseUrl, 'GET', p, { token: auditor });

// Seconds the replica's replayed state is behind the primary's newest commit.
async function lagSeconds(): Promise<number> {
  const r = await replicaDb.query<{ s: number }>(
    'SELECT extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS s',
  );
  return r.rows[0]!.s;
}

// The newest audit-log entry on a pool (seq).
async function auditHead(pool: pg.Pool): Promise<number> {
  return (await pool.query<{ s: number }>('SELECT coalesce(max(seq), 0)::int AS s FROM audit_log')).rows[0]!.s;
}

describeHaPostgres('a lagging PostgreSQL replica', () => {
  beforeAll(async () => {
    ha = await startPgHa();
    api = await startTestApi(
      { DATABASE_URL: ha.primaryUrl(), DATABASE_READ_URL: ha.replicaUrl(), HOOK_RUN_DRAIN_INTERVAL_SEC: '1' },
      { db: haTestDatabase(ha) },
    );
    worker = await startTestWorker(api.config);
    auditor = await auditorToken(api);
    primary = guardPool(new pg.Pool({ connectionString: ha.primaryUrl(), max: 2 }));
    const leader = (await ha.leader())!;
    replica = ha.nodes.find((n) => n !== leader)!;
    replicaDb = guardPool(new pg.Pool({ connectionString: replica.url(), max: 2 }));
  }, 180_000);

  afterAll(async () => {
    if (replica) await ha?.resumeReplay(replica).catch(() => undefined);
    await worker?.close();
    await api?.close();
    await primary?.end();
    await replicaDb?.end();
    await ha?.stop();
  }, 120_000);

  it("auditors are served from the lagging replica; admins' read-your-writes hold; nothing fails", async () => {
    const statuses: Array<{ what: string; status: number }> = [];
    const note = <T extends { status: number }>(what: string, res: T): T => {
      statuses.push({ what, status: res.status });
      return res;
    };
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const [ep] = await createEndpoints(ha.primaryUrl(), 1, groupId);
    const agent = new ApiClient({ baseUrl: api.baseUrl, credential: ep!.credential, timeoutMs: 10_000 });
    const upload = async (lines: string[]) =>
      agent.send('POST', '/v1/agent/hook-runs', {
        body: gzipSync(lines.join('\n') + '\n'),
        headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      });
    const first = chainedLines(50, 1);
    await upload(first.lines);
    await eventually(
      async () => (await audit(`/v1/hook-runs?endpointId=${ep!.id}&limit=200`)).body.items?.length === 50,
      30_000,
    );

    await ha.pauseReplay(replica);
    const pausedAt = Date.now();
    // Writes go on while replay is paused (the standby still confirms flushes): the lag builds up.
    let marker = 0;
    await eventually(async () => {
      note('write', await admin('PATCH', `/v1/groups/${groupId}`, { description: `lag ${++marker}` }));
      return (await lagSeconds()) >= LAG_SEC;
    }, 60_000);

    // Admins: a version, then the version list; a release, then its rollout — each at once, never stale.
    for (let i = 1; i <= 5; i++) {
      const v = await createVersion(api, policyId, requirementsToml('/opt/lag', `v${i}`), [
        { path: 'check.sh', content: `#!/bin/sh\necho ${i}\n` },
      ]);
      const list = note('versions', await admin('GET', `/v1/policies/${policyId}/versions`));
      expect(list.status).toBe(200);
      expect((list.body.items as Array<{ number: number }>).map((x) => x.number)).toContain(v.number);
      const one = note('version', await admin('GET', `/v1/policies/${policyId}/versions/${v.number}`));
      expect(one.status).toBe(200);
      const rel = note(
        'release',
        await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v.versionId }),
      );
      expect(rel.status).toBe(201);
      const rollout = note('rollout', await admin('GET', `/v1/releases/${rel.body.id}/rollout`));
      expect(rollout.status).toBe(200);
      expect(rollout.body.release).toMatchObject({ id: rel.body.id, revision: rel.body.revision });
      const releases = note('releases', await admin('GET', `/v1/groups/${groupId}/releases`));
      expect((releases.body.items as Array<{ id: string }>).map((r) => r.id)).toContain(rel.body.id);
      const group = note('group', await admin('GET', `/v1/groups/${groupId}`));
      expect(group.body.description).toBe(`lag ${marker}`);
    }

    // New evidence arrives (stored on the primary by the worker) while the replica is still paused.
    const second = chainedLines(30, 51, {}, first.lastHash);
    await upload(second.lines);
    await eventually(
      async () =>
        (
          await primary.query<{ n: number }>('SELECT count(*)::int AS n FROM hook_runs WHERE endpoint_id = $1', [
            ep!.id,
          ])
        ).rows[0]!.n === 80,
      30_000,
    );

    // Auditors: served (200) from the lagging copy, which does not have the newest writes yet.
    const lag = await lagSeconds();
    expect(lag).toBeGreaterThanOrEqual(LAG_SEC);
    expect(await auditHead(replicaDb)).toBeLessThan(await auditHead(primary));
    const runs = note('hook-runs', await audit(`/v1/hook-runs?endpointId=${ep!.id}&limit=200`));
    expect(runs.status).toBe(200);
    expect(runs.body.items).toHaveLength(50); // the 30 newest are not replayed yet
    for (const p of [
      `/v1/findings?endpointId=${ep!.id}`,
      `/v1/hook-runs/stats?groupId=${groupId}`,
      '/v1/audit-log?limit=20',
    ]) {
      expect(note(p, await audit(p)).status, p).toBe(200);
    }
    const exported = note(
      'export',
      await fetch(`${api.baseUrl}/v1/hook-runs/export?format=ndjson&endpointId=${ep!.id}`, {
        headers: { authorization: `Bearer ${auditor}` },
      }),
    );
    expect(exported.status).toBe(200);
    expect((await exported.text()).trim().split('\n')).toHaveLength(50);
    const verify = note('verify', await audit('/v1/audit-log/verify'));
    expect(verify.status).toBe(200);
    expect(verify.body.ok).toBe(true);
    expect(note('readyz', await call(api.baseUrl, 'GET', '/readyz')).status).toBe(200);

    // Replay resumes: the auditors see everything, and the chain still verifies.
    await ha.resumeReplay(replica);
    const caughtUp = await eventually(async () => {
      const r = await audit(`/v1/hook-runs?endpointId=${ep!.id}&limit=200`);
      return r.body.items?.length === 80 ? Date.now() : null;
    }, 30_000);
    expect(await auditHead(replicaDb)).toBeGreaterThanOrEqual(await auditHead(primary).then((h) => h - 1));
    const after = note('verify', await audit('/v1/audit-log/verify'));
    expect(after.body.ok).toBe(true);

    const failed = statuses.filter((s) => s.status >= 400);
    expect(failed).toEqual([]);
    console.log(
      `fault 4 (replica lagging): outage 0.0 s (${statuses.length} admin and auditor requests, none failed); ` +
        `replica ${lag.toFixed(1)} s behind when the auditors were served, replay paused ` +
        `${((caughtUp - pausedAt) / 1000).toFixed(1)} s in all; admins' reads came from the primary`,
    );
  }, 240_000);
});
