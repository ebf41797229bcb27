// Rollout gate on hook runs: failures recorded by endpoints on a staged release's revision pause it by themselves.
import { canonicalJson, sha256Hex } from '@hookwarden/hook-core';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { eventually, runRecord } from '../support/audit-factories';
import { call } from '../support/http';
import { enrollAgent, type SignedAgent } from '../support/identity';
import { createGroupWithPolicy, createVersion, query, requirementsToml } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

let api: TestApi;
let worker: INestApplicationContext;

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config);
});
afterAll(async () => {
  await worker?.close();
  await api?.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  call(api.baseUrl, method, path, { token: api.adminToken, body });

type RunStatus = 'ran' | 'skipped' | 'failed' | 'timed_out';

/** Each endpoint's spool position (its record chain continues across uploads). */
const chains = new Map<string, { seq: number; prev: string | null }>();

// Uploads hook runs of one endpoint stamped with a policy revision, as the agent does (NDJSON, chained).
async function uploadRuns(credential: SignedAgent, revision: number, statuses: RunStatus[]): Promise<void> {
  const chain = chains.get(credential.endpointId) ?? { seq: 1, prev: null };
  const lines: string[] = [];
  for (const status of statuses) {
    const line = canonicalJson(
      runRecord({
        seq: chain.seq++,
        prevHash: chain.prev,
        status,
        skipReason: status === 'skipped' ? 'untrusted' : null,
        policyRevision: String(revision),
      }),
    );
    chain.prev = sha256Hex(line);
    lines.push(line);
  }
  chains.set(credential.endpointId, chain);
  const res = await credential.call('POST', '/v1/agent/hook-runs', {
    body: lines.join('\n') + '\n',
    headers: { 'content-type': 'application/x-ndjson' },
  });
  expect(res.status).toBe(202);
}

// A group with 16 enrolled endpoints, revision 1 released to all and revision 2 rolling out to half of them.
async function stagedRollout(gate: { maxHookFailureRate: number; minHookRuns: number }) {
  const { groupId, policyId } = await createGroupWithPolicy(api);
  const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'gate' })).body.secret;
  const credentials: SignedAgent[] = [];
  for (let i = 0; i < 16; i++) {
    const machineId = `machine-gate-${groupId.slice(0, 8)}-${i}-abcdef`;
    credentials.push(await enrollAgent(api.baseUrl, secret, { machineId, hostname: `h${i}` }));
  }
  const v1 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v1'), []);
  expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId })).status).toBe(201);
  const v2 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v2'), []);
  const staged = await admin('POST', `/v1/groups/${groupId}/releases`, {
    policyVersionId: v2.versionId,
    strategy: 'staged',
    rings: [50, 100],
    ringIntervalSec: 3600, // no ring advance (and its gate) during the test: only ingested runs can pause it
    ...gate,
  });
  expect(staged.status).toBe(201);
  expect(staged.body).toMatchObject({ revision: 2, status: 'rolling', ...gate });
  const onNew: SignedAgent[] = [];
  const onOld: SignedAgent[] = [];
  for (const c of credentials) {
    const got = await c.call('GET', '/v1/agent/bundle');
    (got.body.revision === 2 ? onNew : onOld).push(c);
  }
  expect(onNew.length).toBeGreaterThan(0);
  expect(onOld.length).toBeGreaterThan(0);
  return { groupId, release: staged.body, onNew, onOld };
}

// The rollout view's gate figures once `runs` hook runs that ran under the revision are stored.
async function gateOnceStored(releaseId: string, runs: number) {
  return eventually(async () => {
    const ro = await admin('GET', `/v1/releases/${releaseId}/rollout`);
    return ro.body.gate.hookRunsOnRevision === runs ? ro.body.gate : null;
  });
}

// Lets the worker's gate check (queued one second after a batch is stored) run.
const gateCheckRan = () => new Promise((r) => setTimeout(r, 3000));

describe('hook failure rate gate', () => {
  it('pauses a staged rollout by itself when hook runs on its revision fail above the threshold', async () => {
    const { release, onNew, onOld } = await stagedRollout({ maxHookFailureRate: 0.2, minHookRuns: 10 });

    // Three failures out of three: above the threshold, but below the minimum sample: keeps rolling.
    await uploadRuns(onNew[0]!, 2, ['failed', 'failed', 'failed']);
    expect((await gateOnceStored(release.id, 3)).hookFailureRate).toBe(1);
    await gateCheckRan();
    expect((await admin('GET', `/v1/releases/${release.id}`)).body.status).toBe('rolling');

    // Failures under the previous revision and skipped runs do not count: 3 of 23 (0.13) stays under 0.2.
    for (const c of onOld) await uploadRuns(c, 1, Array<RunStatus>(5).fill('failed'));
    await uploadRuns(onNew[onNew.length - 1]!, 2, [
      ...Array<RunStatus>(20).fill('ran'),
      ...Array<RunStatus>(15).fill('skipped'),
    ]);
    const below = await gateOnceStored(release.id, 23);
    expect(below.hookFailureRate).toBeCloseTo(3 / 23, 5);
    await eventually(async () => {
      const rows = await query(api.db.url, `SELECT count(*)::int AS n FROM hook_runs WHERE policy_revision = '1'`);
      return rows[0].n === onOld.length * 5;
    });
    await gateCheckRan();
    expect((await admin('GET', `/v1/releases/${release.id}`)).body).toMatchObject({
      status: 'rolling',
      pausedReason: null,
    });

    // Timeouts and failures push it to 18 of 38 (0.47): the ingest-triggered gate check pauses the rollout.
    await uploadRuns(onNew[0]!, 2, [...Array<RunStatus>(10).fill('timed_out'), ...Array<RunStatus>(5).fill('failed')]);
    const paused = await eventually(async () => {
      const r = await admin('GET', `/v1/releases/${release.id}`);
      return r.body.status === 'paused' ? r.body : null;
    });
    expect(paused.pausedReason).toMatch(/^hook failure rate 0\.474 \(18\/38 runs failed or timed out\) exceeds 0\.2/);
    const gate = (await admin('GET', `/v1/releases/${release.id}/rollout`)).body.gate;
    expect(gate).toMatchObject({ hookRunsOnRevision: 38 });
    expect(gate.hookFailureRate).toBeCloseTo(18 / 38, 5);
    const audit = await query(
      api.db.url,
      `SELECT actor_name, details FROM audit_log WHERE action = 'release.auto_pause' AND target_id = $1`,
      [release.id],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0].actor_name).toBe('rollout');
    expect(audit[0].details.reason).toMatch(/hook failure rate/);
  });

  it('keeps rolling at or below the threshold and pauses once it is exceeded', async () => {
    const below = await stagedRollout({ maxHookFailureRate: 0.5, minHookRuns: 5 });
    await uploadRuns(below.onNew[0]!, 2, [...Array<RunStatus>(6).fill('ran'), ...Array<RunStatus>(4).fill('failed')]);
    expect((await gateOnceStored(below.release.id, 10)).hookFailureRate).toBeCloseTo(0.4, 5);
    await gateCheckRan();
    expect((await admin('GET', `/v1/releases/${below.release.id}`)).body.status).toBe('rolling');
    // Reaching the threshold exactly does not close the gate; exceeding it does.
    await uploadRuns(below.onNew[0]!, 2, ['failed', 'failed']);
    await gateOnceStored(below.release.id, 12);
    await gateCheckRan();
    expect((await admin('GET', `/v1/releases/${below.release.id}`)).body.status).toBe('rolling');
    await uploadRuns(below.onNew[0]!, 2, ['failed']);
    await eventually(async () => (await admin('GET', `/v1/releases/${below.release.id}`)).body.status === 'paused');
  });

  it('validates minHookRuns', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const v = await createVersion(api, policyId, requirementsToml('/opt/hw', 'x'), []);
    const bad = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v.versionId,
      strategy: 'staged',
      minHookRuns: 0,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('$.minHookRuns');
    const ok = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v.versionId });
    expect(ok.body).toMatchObject({ minHookRuns: 20, maxHookFailureRate: null });
  });
});
