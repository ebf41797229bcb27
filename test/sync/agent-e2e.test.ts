// End to end with the real API, worker, PostgreSQL, Redis and real hookwarden-agent processes in temp directories.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleCacheService } from '../../apps/api/src/agent/bundle-cache.service';
import {
  type AgentProcess,
  enrollMachine,
  runAgent,
  spawnAgent,
  stopAgent,
  visibleLayer,
  waitFor,
} from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';
import { startTestWorker } from '../support/worker';

const MANAGED = '/opt/hw-hooks';
let api: TestApi;
let worker: INestApplicationContext;
const running: AgentProcess[] = [];
let tmp: string;

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-e2e-'));
});
afterAll(async () => {
  await Promise.all(running.map(stopAgent));
  await worker?.close();
  await api?.close();
});

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

interface Agent {
  root: string;
  stateDir: string;
  endpointId: string;
  proc?: AgentProcess;
}

// Enrolls a machine with the real CLI (its machine id comes from <root>/etc/machine-id).
async function enrollAgent(secret: string, name: string): Promise<Agent> {
  const machine = await enrollMachine(api.baseUrl, secret, tmp, name);
  expect((await fs.stat(path.join(machine.stateDir, 'credentials.json'))).mode & 0o777).toBe(0o600);
  return machine;
}

// Starts `hookwarden-agent run` for an enrolled agent.
function startAgent(a: Agent, extra: string[] = []): AgentProcess {
  const p = spawnAgent(['run', '--state-dir', a.stateDir, '--root', a.root, ...extra]);
  running.push(p);
  a.proc = p;
  return p;
}

// The visible layer a policy version must produce.
function layerOf(toml: string, files: Array<{ path: string; content: string; mode?: number }>) {
  const out: Record<string, string> = { 'requirements.toml': toml };
  for (const f of files) out[f.path] = `${(f.mode ?? 0o755).toString(8)}:${f.content}`;
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

// Creates a secret for the group.
async function secretFor(groupId: string): Promise<string> {
  return (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'e2e' })).body.secret;
}

describe('agent end to end', () => {
  it('enroll → publish → applied through the long poll; rollback; drift repaired and reported', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId);
    const a = await enrollAgent(secret, 'solo');
    const filesV1 = [
      { path: 'check.sh', content: '#!/bin/sh\necho v1\n' },
      { path: 'lib/util.sh', content: 'UTIL=1\n', mode: 0o644 },
    ];
    const filesV2 = [{ path: 'check.sh', content: '#!/bin/sh\necho v2\n' }];
    const v1 = await createVersion(api, policyId, requirementsToml(MANAGED, 'v1'), filesV1);
    const v2 = await createVersion(api, policyId, requirementsToml(MANAGED, 'v2'), filesV2);

    startAgent(a, ['--poll-wait', '30', '--drift-interval', '1']);
    const cache = api.app.get(BundleCacheService);
    await waitFor(() => cache.heldCount >= 1, 10_000, 'the agent to hold a long poll');

    // With a 30 s poll wait, applying within 20 s can only come from the long poll being woken (no speed
    // assertion: bench/sync measures delivery time).
    expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId })).status).toBe(201);
    await waitFor(
      async () => same(await visibleLayer(a.root, MANAGED), layerOf(v1.toml, filesV1)),
      20_000,
      'v1 on disk',
    );
    await waitFor(
      async () => (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body.appliedRevision === 1,
      5000,
      'status',
    );
    const ep = (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body;
    expect(ep).toMatchObject({ state: 'applied', appliedPolicyVersion: 1 });
    expect(ep.lastSeenAt).not.toBeNull();

    await waitFor(() => cache.heldCount >= 1, 5000, 'held again');
    await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v2.versionId });
    await waitFor(
      async () => same(await visibleLayer(a.root, MANAGED), layerOf(v2.toml, filesV2)),
      20_000,
      'v2 on disk',
    );

    // Rollback: release the earlier version again (revision 3).
    const rb = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId });
    expect(rb.body.revision).toBe(3);
    await waitFor(
      async () => same(await visibleLayer(a.root, MANAGED), layerOf(v1.toml, filesV1)),
      5000,
      'rollback on disk',
    );
    await waitFor(
      async () => (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body.appliedRevision === 3,
      5000,
      'status 3',
    );

    // Drift: a managed file edited and another deleted are restored and reported.
    await fs.writeFile(path.join(a.root, MANAGED, 'check.sh'), '#!/bin/sh\necho tampered\n');
    await fs.rm(path.join(a.root, MANAGED, 'lib/util.sh'));
    await waitFor(
      async () => same(await visibleLayer(a.root, MANAGED), layerOf(v1.toml, filesV1)),
      5000,
      'drift repaired',
    );
    await waitFor(
      async () => (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body.state === 'drifted',
      5000,
      'drift reported',
    );
    const drifted = (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body;
    expect(drifted.lastStatus.errors).toEqual(expect.arrayContaining(['check.sh modified', 'lib/util.sh missing']));

    const status = await runAgent(['status', '--state-dir', a.stateDir, '--root', a.root, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ revision: 3, policyVersion: 1, drift: [] });
    const human = await runAgent(['status', '--state-dir', a.stateDir, '--root', a.root]);
    expect(human.stdout).toMatch(/revision:\s+3/);
    expect(human.stdout).toMatch(/last check-in:\s+\d{4}-/);
    await stopAgent(a.proc!);
  }, 60_000);

  it('a revoked endpoint gets 401 and keeps its layer', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const a = await enrollAgent(await secretFor(groupId), 'revoked');
    const files = [{ path: 'check.sh', content: '#!/bin/sh\necho keep\n' }];
    const v1 = await createVersion(api, policyId, requirementsToml(MANAGED, 'keep'), files);
    await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId });
    const p = startAgent(a, ['--poll-wait', '1', '--max-backoff', '500']);
    await waitFor(async () => same(await visibleLayer(a.root, MANAGED), layerOf(v1.toml, files)), 10_000, 'applied');
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/revoke`)).status).toBe(200);
    const v2 = await createVersion(api, policyId, requirementsToml(MANAGED, 'after-revoke'), []);
    await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v2.versionId });
    await waitFor(() => /"status":401/.test(p.stderr()), 10_000, 'a 401 in the agent log');
    expect(await visibleLayer(a.root, MANAGED)).toEqual(layerOf(v1.toml, files));
    await stopAgent(p);
    expect(await visibleLayer(a.root, MANAGED)).toEqual(layerOf(v1.toml, files));
  }, 30_000);

  it('a staged rollout moves through its rings to real agents and pauses on their apply failures', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId);
    const agents: Agent[] = [];
    for (let i = 0; i < 6; i++) agents.push(await enrollAgent(secret, `ring-${i}`));
    const f1 = [{ path: 'check.sh', content: '#!/bin/sh\necho one\n' }];
    const f2 = [{ path: 'check.sh', content: '#!/bin/sh\necho two\n' }];
    const v1 = await createVersion(api, policyId, requirementsToml(MANAGED, 'one'), f1);
    const v2 = await createVersion(api, policyId, requirementsToml(MANAGED, 'two'), f2);
    await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId });
    for (const a of agents) startAgent(a, ['--poll-wait', '30']);
    const onVersion = async (toml: string, files: typeof f1) =>
      (
        await Promise.all(agents.map(async (a) => same(await visibleLayer(a.root, MANAGED), layerOf(toml, files))))
      ).filter(Boolean).length;
    await waitFor(async () => (await onVersion(v1.toml, f1)) === 6, 15_000, 'all on v1');

    const staged = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'staged',
      rings: [50, 100],
      ringIntervalSec: 2,
    });
    expect(staged.status).toBe(201);
    const rollout = (await admin('GET', `/v1/releases/${staged.body.id}/rollout`)).body;
    const firstRing = rollout.rings[0].versions.find((v: any) => v.revision === staged.body.revision)?.assigned ?? 0;
    await waitFor(async () => (await onVersion(v2.toml, f2)) === firstRing, 5000, 'ring 0 on v2');
    // The delayed job opens the last ring: every agent gets v2.
    await waitFor(async () => (await onVersion(v2.toml, f2)) === 6, 15_000, 'all on v2');
    // Ring membership is a hash: all six may already sit in the first ring, so wait for the last advance itself.
    await waitFor(
      async () => (await admin('GET', `/v1/releases/${staged.body.id}`)).body.status === 'completed',
      15_000,
      'release completed',
    );

    // Inject apply failures: on every endpoint the new managed_dir is blocked by a plain file, so the agent refuses.
    const v3 = await createVersion(api, policyId, requirementsToml('/opt/blocked', 'three'), [
      { path: 'check.sh', content: '#!/bin/sh\necho three\n' },
    ]);
    for (const a of agents) {
      await fs.mkdir(path.join(a.root, 'opt'), { recursive: true });
      await fs.writeFile(path.join(a.root, 'opt/blocked'), 'not a directory\n');
    }
    const bad = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v3.versionId,
      strategy: 'staged',
      rings: [70, 100],
      ringIntervalSec: 2,
      maxApplyFailureRate: 0.1,
    });
    await waitFor(
      async () => (await admin('GET', `/v1/releases/${bad.body.id}`)).body.status === 'paused',
      10_000,
      'auto pause',
    );
    const paused = (await admin('GET', `/v1/releases/${bad.body.id}`)).body;
    expect(paused.pausedReason).toMatch(/apply failure rate/);
    const ro = (await admin('GET', `/v1/releases/${bad.body.id}/rollout`)).body;
    const failed = ro.rings[0].versions.find((v: any) => v.revision === bad.body.revision)?.failed ?? 0;
    expect(failed).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 2500)); // past the ring interval: a paused rollout does not advance
    expect((await admin('GET', `/v1/releases/${bad.body.id}`)).body).toMatchObject({
      status: 'paused',
      currentRing: 0,
    });
    expect(await onVersion(v2.toml, f2)).toBe(6); // nobody holds a partial layer

    // Abort: the previous content is re-issued under a new revision and reaches every agent.
    const ab = await admin('POST', `/v1/releases/${bad.body.id}/abort`);
    expect(ab.body.rollback.policyVersion).toBe(2);
    await waitFor(
      async () =>
        (
          await Promise.all(
            agents.map(
              async (a) =>
                (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body.appliedRevision ===
                ab.body.rollback.revision,
            ),
          )
        ).every(Boolean),
      10_000,
      'rollback applied everywhere',
    );
    expect(await onVersion(v2.toml, f2)).toBe(6);
  }, 90_000);
});
