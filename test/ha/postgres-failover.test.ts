// Fault 2 of issue 23: the PostgreSQL primary (Patroni leader) is killed outright — Patroni and every PostgreSQL
// process of the node, kill -9, a machine gone — during a 10,000-record ingest from real hookwarden-agent processes
// and a staged rollout to them. The synchronous replica is promoted; afterwards every record is stored exactly once
// (count and ids checked), the rollout went on from the ring it was in, the admin audit-log chain verifies, the API
// answered 503 with Retry-After (never a 500) while there was no primary, and the agents' spools held what could not
// be accepted meanwhile. The outage seen by the probes (first failed request to first success) is reported and bounded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { listClosedSegments, readSpoolState, SpoolSink } from '@hookwarden/hook-core';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { guardPool, PgPools } from '../../apps/api/src/database/pg-pools';
import { type AgentProcess, runAgent, spawnAgent, stopAgent, waitFor } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, runRecord } from '../support/audit-factories';
import { describeHaPostgres, haTestDatabase, type PgHa, startPgHa } from '../support/ha/postgres';
import { call } from '../support/http';
import { appRoutes, concretePath } from '../support/routes';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

const MANAGED = '/opt/hw-hooks';
const AGENTS = 5;
const PER_AGENT = 2000; // 5 × 2,000 = 10,000 records
const PHASES = 4; // written in four phases: two before the kill, one during the outage, one after
const TOTAL = AGENTS * PER_AGENT;
/** The bound the outage must stay within (generous: Patroni's ttl is 10 s; this is no speed assertion). */
const OUTAGE_BOUND_MS = 90_000;

let ha: PgHa;
let api: TestApi;
let worker: INestApplicationContext;
let db: pg.Pool;
let tmp: string;
let auditor: string;
const procs: AgentProcess[] = [];
/** Every HTTP status the API answered during the test (from the server's side). */
const answered: number[] = [];

interface Agent {
  name: string;
  root: string;
  stateDir: string;
  endpointId: string;
  ids: string[];
  proc?: AgentProcess;
}

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

// Enrolls a machine with the real agent CLI.
async function enroll(secret: string, name: string): Promise<Agent> {
  const root = path.join(tmp, name, 'root');
  const stateDir = path.join(tmp, name, 'state');
  await fs.mkdir(path.join(root, 'etc'), { recursive: true });
  await fs.writeFile(path.join(root, 'etc/machine-id'), `${name}-${randomUUID()}\n`);
  const r = await runAgent([
    'enroll',
    '--server',
    api.baseUrl,
    '--secret',
    secret,
    '--state-dir',
    stateDir,
    '--root',
    root,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const creds = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8')) as {
    endpointId: string;
  };
  return { name, root, stateDir, endpointId: creds.endpointId, ids: [] };
}

// Appends `n` run records to an agent's spool with hook-core's spool writer (what the engine does per hook run).
async function spool(a: Agent, n: number, phase: number): Promise<void> {
  const sink = new SpoolSink(path.join(a.stateDir, 'spool'), { maxSegmentBytes: 256 * 1024 });
  for (let k = 0; k < n; k += 250) {
    const drafts = Array.from({ length: Math.min(250, n - k) }, () => {
      const { seq: _s, prevHash: _p, ...draft } = runRecord({ seq: 1, sessionId: `s-${a.name}-${phase}` });
      a.ids.push(draft.id);
      return draft;
    });
    await sink.write(drafts);
  }
}

// Records still on an agent's spool (closed and open segments): not yet accepted by the API.
async function spooled(a: Agent): Promise<number> {
  const dir = path.join(a.stateDir, 'spool');
  const state = await readSpoolState(dir);
  let n = (await listClosedSegments(dir)).reduce((s, seg) => s + (seg.lastSeq - seg.firstSeq + 1), 0);
  if (state.open) n += state.open.lastSeq - state.open.firstSeq + 1;
  return n;
}

interface Probe {
  at: number;
  status: number;
  retryAfter: string | null;
  code: string | null;
}

// Calls `send` every 100 ms until stopped, keeping each answer (status 0: no answer at all).
function prober(send: () => Promise<Response>): { probes: Probe[]; stop: () => Promise<void> } {
  const probes: Probe[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now();
      try {
        const res = await send();
        const text = await res.text();
        let code: string | null = null;
        try {
          code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
        } catch {
          /* not JSON */
        }
        probes.push({ at, status: res.status, retryAfter: res.headers.get('retry-after'), code });
      } catch {
        probes.push({ at, status: 0, retryAfter: null, code: null });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    probes,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

// The outage a probe series saw: first failed probe to the first success after it (ms), or null when none failed.
function outageOf(probes: Probe[], ok: (p: Probe) => boolean): { from: number; to: number; ms: number } | null {
  const first = probes.findIndex((p) => !ok(p));
  if (first === -1) return null;
  const back = probes.slice(first).find(ok);
  if (!back) throw new Error('the probes never succeeded again');
  return { from: probes[first]!.at, to: back.at, ms: back.at - probes[first]!.at };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

describeHaPostgres('PostgreSQL failover (Patroni + etcd + HAProxy)', () => {
  beforeAll(async () => {
    ha = await startPgHa();
    api = await startTestApi(
      {
        DATABASE_URL: ha.primaryUrl(),
        DATABASE_READ_URL: ha.replicaUrl(),
        HOOK_RUN_DRAIN_INTERVAL_SEC: '1',
        DATABASE_POOL_MAX: '6',
        AUTH_FAILURE_LIMIT: '100000',
        LOG_LEVEL: process.env.HW_HA_LOG_LEVEL ?? 'silent',
      },
      { db: haTestDatabase(ha) },
    );
    api.app
      .getHttpServer()
      .on('request', (_req: IncomingMessage, res: ServerResponse) =>
        res.once('finish', () => answered.push(res.statusCode)),
      );
    worker = await startTestWorker(api.config);
    db = guardPool(new pg.Pool({ connectionString: ha.primaryUrl(), max: 2, connectionTimeoutMillis: 3000 }));
    auditor = await auditorToken(api);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-ha-pg-'));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map(stopAgent));
    await worker?.close();
    await api?.close();
    await db?.end();
    await ha?.stop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  }, 150_000);

  it('the primary killed during a 10,000-record agent ingest and a staged rollout: nothing lost, rollout resumes', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'ha' })).body
      .secret as string;
    const agents = await Promise.all(Array.from({ length: AGENTS }, (_, i) => enroll(secret, `agent-${i}`)));
    const f1 = [{ path: 'check.sh', content: '#!/bin/sh\necho one\n' }];
    const f2 = [{ path: 'check.sh', content: '#!/bin/sh\necho two\n' }];
    const v1 = await createVersion(api, policyId, requirementsToml(MANAGED, 'one'), f1);
    const v2 = await createVersion(api, policyId, requirementsToml(MANAGED, 'two'), f2);
    const r1 = (await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId })).body;
    for (const a of agents) {
      a.proc = spawnAgent([
        'run',
        '--state-dir',
        a.stateDir,
        '--root',
        a.root,
        '--poll-wait',
        '5',
        '--max-backoff',
        '2000',
      ]);
      procs.push(a.proc);
    }
    const appliedAll = async (revision: number): Promise<boolean> =>
      (
        await Promise.all(
          agents.map(
            async (a) => (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body.appliedRevision === revision,
          ),
        )
      ).every(Boolean);
    await waitFor(() => appliedAll(r1.revision), 60_000, 'every agent on v1');

    // Ingest phases 1 and 2 and the staged rollout start together; the kill comes once the rollout is in ring 1
    // and records are flowing.
    const perPhase = PER_AGENT / PHASES;
    await Promise.all(agents.map((a) => spool(a, perPhase, 1)));
    const staged = (
      await admin('POST', `/v1/groups/${groupId}/releases`, {
        policyVersionId: v2.versionId,
        strategy: 'staged',
        rings: [10, 40, 70, 100],
        ringIntervalSec: 4,
      })
    ).body;
    expect(staged.status).toBe('rolling');
    await Promise.all(agents.map((a) => spool(a, perPhase, 2)));

    const probeGroup = `/v1/groups/${groupId}`;
    let n = 0;
    const writes = prober(() =>
      fetch(api.baseUrl + probeGroup, {
        method: 'PATCH',
        headers: bearer(api.adminToken),
        body: JSON.stringify({ description: `probe ${++n}` }),
      }),
    );
    const reads = prober(() =>
      fetch(`${api.baseUrl}/v1/releases/${staged.id}/rollout`, { headers: bearer(api.adminToken) }),
    );
    const ready = prober(() => fetch(`${api.baseUrl}/readyz`));
    const stored = async (): Promise<number> =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hook_runs WHERE group_id = $1', [groupId]))
        .rows[0]!.n;
    await waitFor(
      async () => (await admin('GET', `/v1/releases/${staged.id}`)).body.currentRing === 1 && (await stored()) > 0,
      60_000,
      'the rollout in ring 1 and records stored',
    );
    const before = { stored: await stored(), ring: (await admin('GET', `/v1/releases/${staged.id}`)).body.currentRing };
    expect(before.stored).toBeLessThan(TOTAL);

    const old = (await ha.leader())!;
    const killedAt = Date.now();
    const pids = await ha.killNode(old);
    expect(pids.length).toBeGreaterThan(1);

    // No primary: what the agents hand in now stays on their spools.
    await Promise.all(agents.map((a) => spool(a, perPhase, 3)));
    const carried = (await Promise.all(agents.map(spooled))).reduce((s, x) => s + x, 0);
    const stillDown = (await fetch(`${api.baseUrl}/readyz`)).status === 503;
    expect(stillDown, 'the outage ended before the spools could be checked').toBe(true);
    expect(carried).toBeGreaterThanOrEqual(AGENTS * perPhase);

    // Every GET route, and every route on a resource id, while no primary exists: 503 with Retry-After, never 500.
    const sweep: Array<{ route: string; status: number }> = [];
    for (const r of appRoutes(api.app)) {
      if (r.method !== 'GET' && !r.path.includes(':')) continue; // no state-changing call without a target
      const p = concretePath(r.path).replace('00000000-0000-4000-8000-000000000001', randomUUID());
      const res = await fetch(api.baseUrl + p, {
        method: r.method,
        headers: bearer(api.adminToken),
        body: ['POST', 'PUT', 'PATCH'].includes(r.method) ? '{}' : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await res.json().catch(() => null)) as { error?: { code?: string; requestId?: string } } | null;
      sweep.push({ route: `${r.method} ${r.path}`, status: res.status });
      expect(res.status, `${r.method} ${r.path}`).not.toBe(500);
      if (res.status >= 500) {
        expect(res.status, `${r.method} ${r.path}`).toBe(503);
        expect(res.headers.get('retry-after'), `${r.method} ${r.path}`).toMatch(/^[1-9]\d*$/);
        expect(body?.error, `${r.method} ${r.path}`).toMatchObject({
          code: 'unavailable',
          requestId: expect.any(String),
        });
      }
    }
    // The sweep ran inside the outage (on a slow machine it may outlast it: what matters is that nothing was a 500).
    expect(sweep.filter((s) => s.status === 503).length).toBeGreaterThanOrEqual(10);

    const promoted = await ha.waitForPrimary(OUTAGE_BOUND_MS, old);
    expect(promoted).not.toBe(old);
    await Promise.all(agents.map((a) => spool(a, perPhase, 4)));

    // Everything arrives: each endpoint's records exactly once, ids as written.
    await waitFor(async () => (await stored()) >= TOTAL, 180_000, `all ${TOTAL} records stored`).catch(
      async (err: Error) => {
        throw new Error(`${err.message}: ${await stored()} stored\n${ha.logs()}`);
      },
    );
    const rows = await db.query<{ endpoint_id: string; n: number; d: number; lo: number; hi: number }>(
      `SELECT endpoint_id, count(*)::int AS n, count(DISTINCT seq)::int AS d, min(seq)::int AS lo, max(seq)::int AS hi
         FROM hook_runs WHERE group_id = $1 GROUP BY endpoint_id`,
      [groupId],
    );
    expect(rows.rows).toHaveLength(AGENTS);
    for (const r of rows.rows) expect(r).toMatchObject({ n: PER_AGENT, d: PER_AGENT, lo: 1, hi: PER_AGENT });
    for (const a of agents) {
      const ids = await db.query<{ id: string }>('SELECT id::text FROM hook_runs WHERE endpoint_id = $1', [
        a.endpointId,
      ]);
      expect(new Set(ids.rows.map((r) => r.id))).toEqual(new Set(a.ids));
    }
    const findings = await call(api.baseUrl, 'GET', `/v1/findings?groupId=${groupId}`, { token: auditor });
    expect(findings.status).toBe(200);

    // The rollout went on from the ring it was in: each ring advanced once, in order, to completion on every agent.
    await waitFor(
      async () => (await admin('GET', `/v1/releases/${staged.id}`)).body.status === 'completed',
      120_000,
      'the rollout completed',
    );
    await waitFor(() => appliedAll(staged.revision), 60_000, 'every agent on v2');
    const advances = await db.query<{ from: number; to: number }>(
      `SELECT (details->>'fromRing')::int AS from, (details->>'toRing')::int AS to FROM audit_log
        WHERE action = 'release.advance' AND target_id = $1 ORDER BY seq`,
      [staged.id],
    );
    expect(advances.rows).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
    ]);
    expect(before.ring).toBe(1);

    // The audit-log chain verifies (writes were in flight when the primary died).
    const verify = await call(api.baseUrl, 'GET', '/v1/audit-log/verify', { token: auditor });
    expect(verify.status).toBe(200);
    expect(verify.body.ok).toBe(true);

    // The old primary comes back as a replica of the new one (rewound if needed).
    ha.restartNode(old);
    await ha.waitForSyncReplica(old, 120_000);

    await Promise.all([writes.stop(), reads.stop(), ready.stop()]);
    // No connection was lost to the transactions the kill cut: every client of the API's pools comes back.
    const pools = api.app.get(PgPools);
    await waitFor(
      () => [pools.write, pools.read].every((p) => p.idleCount === p.totalCount && p.waitingCount === 0),
      20_000,
      "every connection of the API's pools idle",
    );
    const ok = (p: Probe): boolean => p.status >= 200 && p.status < 300;
    const writeOutage = outageOf(writes.probes, ok);
    const readOutage = outageOf(reads.probes, ok);
    const readyOutage = outageOf(ready.probes, ok);
    // Every failed probe was a 503 with Retry-After and the error envelope.
    for (const p of [...writes.probes, ...reads.probes, ...ready.probes].filter((x) => !ok(x))) {
      expect(p).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^[1-9]\d*$/), code: 'unavailable' });
    }
    expect(answered.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    const agentLogs = agents.map((a) => a.proc!.stderr()).join('');
    // No acknowledged admin change was lost: each PATCH answered 200 left its audit-log entry (a PATCH answered 503 may
    // or may not have committed: the client retries it).
    const acked = writes.probes.filter(ok).length;
    const updates = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'group.update' AND target_id = $1`,
      [groupId],
    );
    expect(updates.rows[0]!.n).toBeGreaterThanOrEqual(acked);
    expect(updates.rows[0]!.n).toBeLessThanOrEqual(writes.probes.length);
    // The agents met the outage as 503s (their log lines read "<METHOD> <path>: <status> <message>"), never a 500.
    expect(agentLogs).toMatch(/: 503 /);
    expect(agentLogs).not.toMatch(/: (HTTP )?500\b/);
    expect(writeOutage).not.toBeNull();
    const s = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(1);
    console.log(
      `fault 2 (primary killed): outage ${s(writeOutage?.ms)} s for admin writes, ${s(readOutage?.ms)} s for ` +
        `admin reads, /readyz not ready ${s(readyOutage?.ms)} s; kill to first successful write ` +
        `${s(writeOutage!.to - killedAt)} s; ${before.stored}/${TOTAL} records stored before the kill, ` +
        `${carried} on the agents' spools during the outage; ${sweep.length} routes swept, ` +
        `${sweep.filter((x) => x.status === 503).length} answered 503; promoted ${promoted.name}, ${old.name} rejoined`,
    );
    expect(writeOutage!.ms).toBeLessThan(OUTAGE_BOUND_MS);
    expect(readOutage?.ms ?? 0).toBeLessThan(OUTAGE_BOUND_MS);
  }, 420_000);
});
