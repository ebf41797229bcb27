// Issue 20 §5 (version skew, API side): agents report their agent and contract versions, the API stores them on the
// endpoint and shows them, and a release preview names the endpoints whose agent is older than the version needs.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_VERSION } from '@hookwarden/hook-core';
import { AGENT_VERSION } from '@hookwarden/agent-sync';
import { runAgent } from '../support/agent';
import { runCli } from '../support/cli';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { enrollWithKey, type SignedAgent } from '../support/identity';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';

const MANAGED = '/opt/hw-skew-api';
let api: TestApi;
let tmp: string;
let groupId: string;
let policyId: string;
/** Enrolled and applied by a real agent process (reports contract CONTRACT_VERSION). */
let current: string;
/** Enrolled over HTTP and reporting status the way agents from before contract reporting do (no contractVersion). */
let older: { endpointId: string; credential: SignedAgent };

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-skew-api-'));
  ({ groupId, policyId } = await createGroupWithPolicy(api));
  const v1 = await createVersion(api, policyId, requirementsToml(MANAGED, 'v1'), [
    { path: 'check.sh', content: '#!/bin/sh\nexit 0\n' },
  ]);
  expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId })).status).toBe(201);
  const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, {})).body.secret as string;

  const root = path.join(tmp, 'root');
  const stateDir = path.join(tmp, 'state');
  await fs.mkdir(path.join(root, 'etc'), { recursive: true });
  await fs.writeFile(path.join(root, 'etc/machine-id'), `skew-current-${Date.now()}\n`);
  const enrolled = await runAgent(['enroll', '--server', api.baseUrl, '--secret', secret, '--state-dir', stateDir]);
  expect(enrolled.code, enrolled.stderr).toBe(0);
  const applied = await runAgent(['run', '--once', '--no-inventory', '--state-dir', stateDir, '--root', root]);
  expect(applied.code, applied.stderr).toBe(0);
  current = JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8')).endpointId;

  const e = await enrollWithKey(api.baseUrl, secret, {
    hostname: 'old-laptop',
    machineId: `skew-older-${Date.now()}`,
    agentVersion: '0.0.9',
  });
  expect(e.res.status).toBe(201);
  older = { endpointId: e.res.body.endpointId, credential: e.agent! };
  const st = await older.credential.call('POST', '/v1/agent/status', {
    body: { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: 1, agentVersion: '0.0.9' },
  });
  expect(st.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await api?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('agent and contract versions', () => {
  it('the endpoint views show the agent and contract each agent reported (null: from before contract reporting)', async () => {
    const a = await admin('GET', `/v1/endpoints/${current}`);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ agentVersion: AGENT_VERSION, contractVersion: CONTRACT_VERSION, state: 'applied' });
    const b = await admin('GET', `/v1/endpoints/${older.endpointId}`);
    expect(b.body).toMatchObject({ agentVersion: '0.0.9', contractVersion: null });
    const list = await admin('GET', `/v1/endpoints?groupId=${groupId}`);
    const byId = Object.fromEntries(list.body.items.map((x: any) => [x.id, x.contractVersion]));
    expect(byId).toEqual({ [current]: CONTRACT_VERSION, [older.endpointId]: null });
  });

  it('a version with managed hooks needs contract 2: the preview names the older agent, with its versions', async () => {
    const v2 = await createVersion(api, policyId, requirementsToml(MANAGED, 'v2'), [
      { path: 'check.sh', content: '#!/bin/sh\nexit 0\n' },
    ]);
    const p = await admin('GET', `/v1/groups/${groupId}/release-preview?policyVersionId=${v2.versionId}`);
    expect(p.status).toBe(200);
    expect(p.body.agents.requiredContract).toBe(2);
    expect(p.body.agents.reasons[0]).toMatch(/^contract 2: the agent refuses a bundle its own engine would not run/);
    expect(p.body.agents.outdated).toEqual([
      {
        endpointId: older.endpointId,
        hostname: 'old-laptop',
        agentVersion: '0.0.9',
        contractVersion: null,
        reason: expect.stringMatching(/agent 0\.0\.9 reports no contract version .*needs contract 2/),
      },
    ]);
    // The CLI's preview names it too.
    const cli = await runCli(
      ['--config', path.join(tmp, 'cli.toml'), 'releases', 'preview', groupId, '--version-id', v2.versionId],
      {
        HOOKWARDEN_URL: api.baseUrl,
        HOOKWARDEN_TOKEN: api.adminToken,
      },
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('agents older than this version needs (contract 2): 1 endpoint(s): old-laptop');
  });

  it('a version without managed hooks needs contract 1: nobody is named; an agent reporting an older contract is', async () => {
    const flags = await createVersion(api, policyId, '[features]\nhooks = true\n', []);
    let p = await admin('GET', `/v1/groups/${groupId}/release-preview?policyVersionId=${flags.versionId}`);
    expect(p.body.agents).toEqual({ requiredContract: 1, reasons: [], outdated: [] });
    // The older agent now says it understands contract 1 only: still named for a version that needs 2.
    const st = await older.credential.call('POST', '/v1/agent/status', {
      body: { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: 1, contractVersion: 1 },
    });
    expect(st.status).toBe(200);
    const v3 = await createVersion(api, policyId, requirementsToml(MANAGED, 'v3'), [
      { path: 'check.sh', content: '#!/bin/sh\nexit 0\n' },
    ]);
    p = await admin('GET', `/v1/groups/${groupId}/release-preview?policyVersionId=${v3.versionId}`);
    expect(p.body.agents.outdated).toEqual([
      expect.objectContaining({
        endpointId: older.endpointId,
        contractVersion: 1,
        reason: 'agent 0.0.9 understands contract 1; this version needs contract 2',
      }),
    ]);
  });

  it('a contract version that is not a positive integer is refused with a clear error', async () => {
    const st = await older.credential.call('POST', '/v1/agent/status', {
      body: { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: 1, contractVersion: 'two' },
    });
    expect(st.status).toBe(400);
    expect(JSON.stringify(st.body)).toContain('contractVersion');
  });
});
