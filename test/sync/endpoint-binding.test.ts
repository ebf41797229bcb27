// A bundle is bound to its endpoint's group: real agents against the real API (and a hostile proxy in front of it).
// A validly signed bundle of another group is refused and does not pin the agent; a move between groups is learned
// from a newer signed assignment and the new group's bundle applies; old assignments and foreign bundles replayed
// after a move are refused.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAssignment } from '@hookwarden/hook-core';
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
import { FakeBundleServer } from '../support/fake-bundle-server';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, query, requirementsToml } from '../support/sync-factories';

const MANAGED = '/opt/hw-bound';
let api: TestApi;
let hostile: FakeBundleServer;
let tmp: string;
const running: AgentProcess[] = [];

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

beforeAll(async () => {
  api = await startTestApi();
  hostile = new FakeBundleServer();
  await hostile.start();
  hostile.upstream = api.baseUrl;
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-bind-'));
});
afterAll(async () => {
  await Promise.all(running.map(stopAgent));
  await hostile?.stop();
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Agent {
  root: string;
  stateDir: string;
  endpointId: string;
}

// Enrolls a machine with the real CLI into the group of `secret`.
const enroll = (secret: string, name: string): Promise<Agent> => enrollMachine(api.baseUrl, secret, tmp, name);

const readCreds = async (stateDir: string): Promise<any> =>
  JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8'));

// Points the agent at another server (the hostile proxy, or back at the API).
async function pointAt(a: Agent, url: string): Promise<void> {
  const creds = await readCreds(a.stateDir);
  await fs.writeFile(path.join(a.stateDir, 'credentials.json'), JSON.stringify({ ...creds, serverUrl: url }));
}

const once = (a: Agent) => runAgent(['run', '--once', '--state-dir', a.stateDir, '--root', a.root]);

// A group with a policy, a secret and `releases` immediate releases (marker `<name>-<n>`); returns the versions.
async function groupWithReleases(name: string, releases: number) {
  const { groupId, policyId } = await createGroupWithPolicy(api);
  const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name })).body.secret as string;
  const tomls: string[] = [];
  for (let i = 1; i <= releases; i++) tomls.push(await release(groupId, policyId, `${name}-${i}`));
  return { groupId, policyId, secret, tomls };
}

// Authors a version with one file and releases it at once; returns its canonical TOML.
async function release(groupId: string, policyId: string, marker: string): Promise<string> {
  const v = await createVersion(api, policyId, requirementsToml(MANAGED, marker), [
    { path: 'check.sh', content: `#!/bin/sh\necho ${marker}\n` },
  ]);
  expect((await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v.versionId })).status).toBe(201);
  return v.toml;
}

// The newest released bundle of a group, exactly as the API serves it (validly signed by the server's key).
async function latestBundle(groupId: string) {
  const [row] = await query(
    api.db.url,
    `SELECT manifest, signature, key_id AS "keyId", digest, revision, id AS "releaseId"
       FROM releases WHERE group_id = $1 ORDER BY revision DESC LIMIT 1`,
    [groupId],
  );
  return row;
}

// Makes the hostile proxy answer every bundle request with `bundle`, ignoring If-None-Match.
function serveBundle(bundle: unknown): void {
  hostile.handler = (req, res) => {
    if (!req.url?.startsWith('/v1/agent/bundle')) return false;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(bundle));
    return true;
  };
}

const checkSh = async (a: Agent): Promise<string | undefined> => (await visibleLayer(a.root, MANAGED))?.['check.sh'];

describe('bundles bound to the endpoint', () => {
  it("refuses another group's validly signed bundle, and its own group's later releases still apply", async () => {
    const A = await groupWithReleases('bind-a', 1);
    const B = await groupWithReleases('bind-b', 3); // B's revision (3) is above A's: the old agent got pinned to B
    const a = await enroll(A.secret, 'pinned');
    expect((await once(a)).code).toBe(0);
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho bind-a-1\n');

    await pointAt(a, hostile.url);
    serveBundle(await latestBundle(B.groupId));
    const refused = await once(a);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('not for this endpoint');
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho bind-a-1\n');
    hostile.handler = null;

    await pointAt(a, api.baseUrl);
    await release(A.groupId, A.policyId, 'bind-a-2');
    const applied = await once(a);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho bind-a-2\n');
    // The server learned of the refusal and of the apply.
    const ep = (await admin('GET', `/v1/endpoints/${a.endpointId}`)).body;
    expect(ep).toMatchObject({ appliedRevision: 2, state: 'applied', assignmentEpoch: 1 });
  });

  it('moves between groups: the new group applies; old assignments and foreign bundles replayed after are refused', async () => {
    const A = await groupWithReleases('move-a', 2);
    const B = await groupWithReleases('move-b', 1); // B's revision (1) is below A's (2): a move must not look like a replay
    const a = await enroll(A.secret, 'mover');
    const enrolled = await readCreds(a.stateDir);
    expect(parseAssignment(enrolled.assignment.statement)).toMatchObject({
      endpointId: a.endpointId,
      groupId: A.groupId,
      epoch: 1,
      minRevision: 2,
    });
    const proc = spawnAgent(['run', '--state-dir', a.stateDir, '--root', a.root, '--poll-wait', '30']);
    running.push(proc);
    await waitFor(async () => (await checkSh(a)) === '755:#!/bin/sh\necho move-a-2\n', 20_000, 'A applied');

    const moved = await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: B.groupId });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ groupId: B.groupId, assignmentEpoch: 2 });
    // The held long poll ends at once; the agent adopts the new assignment and applies B's bundle (revision 1).
    await waitFor(async () => (await checkSh(a)) === '755:#!/bin/sh\necho move-b-1\n', 20_000, 'B applied');
    expect(proc.stderr()).toContain('adopted a new group assignment');
    const creds = await readCreds(a.stateDir);
    expect(creds.groupId).toBe(B.groupId);
    expect(parseAssignment(creds.assignment.statement)).toMatchObject({ groupId: B.groupId, epoch: 2 });
    await stopAgent(proc);

    // A hostile server replays A's newest bundle (validly signed, a higher revision) and the old epoch-1 assignment.
    await release(A.groupId, A.policyId, 'move-a-3');
    await pointAt(a, hostile.url);
    serveBundle(await latestBundle(A.groupId));
    hostile.assignment = enrolled.assignment;
    const replay = await once(a);
    expect(replay.code).toBe(3);
    expect(replay.stderr).toContain('assignment epoch 1 is older than the held epoch 2 (replay)');
    expect(replay.stderr).toContain('not for this endpoint');
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho move-b-1\n');
    hostile.handler = null;
    hostile.assignment = null;

    // B's later release still applies; a move back to A applies A's current bundle.
    await pointAt(a, api.baseUrl);
    await release(B.groupId, B.policyId, 'move-b-2');
    expect((await once(a)).code).toBe(0);
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho move-b-2\n');
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: A.groupId })).body).toMatchObject({
      assignmentEpoch: 3,
    });
    const back = await once(a);
    expect(back.code, back.stderr).toBe(0);
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho move-a-3\n');
  });

  it('completes a move whose assignment could not be fetched at first (the new bundle is tried again)', async () => {
    const A = await groupWithReleases('retry-a', 1);
    const B = await groupWithReleases('retry-b', 1);
    const a = await enroll(A.secret, 'retry');
    expect((await once(a)).code).toBe(0);
    await pointAt(a, hostile.url); // a proxy that forwards everything, but fails the first assignment request
    let failures = 0;
    hostile.handler = (req, res) => {
      if (req.url !== '/v1/agent/assignment' || failures > 0) return false;
      failures++;
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"unavailable","message":"x"}}');
      return true;
    };
    const proc = spawnAgent(['run', '--state-dir', a.stateDir, '--root', a.root, '--poll-wait', '30']);
    running.push(proc);
    await waitFor(() => proc.stderr().includes('agent started'), 20_000, 'the agent');
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: B.groupId })).status).toBe(200);
    await waitFor(async () => (await checkSh(a)) === '755:#!/bin/sh\necho retry-b-1\n', 30_000, 'B applied');
    expect(failures).toBe(1);
    await stopAgent(proc);
    hostile.handler = null;
  });

  it('a hostile server cannot replay an older bundle of the group the endpoint just moved to', async () => {
    const A = await groupWithReleases('floor-a', 1);
    const B = await groupWithReleases('floor-b', 1);
    const oldB = await latestBundle(B.groupId);
    await release(B.groupId, B.policyId, 'floor-b-2');
    const a = await enroll(A.secret, 'floor');
    expect((await once(a)).code).toBe(0);
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: B.groupId })).status).toBe(200);
    // The proxy forwards the real (new) assignment, whose minRevision is B's served revision 2, but serves B's rev 1.
    await pointAt(a, hostile.url);
    serveBundle(oldB);
    const r = await once(a);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('revision 1 is older than the applied revision 2 of this group (replay)');
    hostile.handler = null;
  });

  it('an endpoint never moves itself: re-enrolling into another group is refused (409); an admin move is epoch + 1', async () => {
    const A = await groupWithReleases('reenroll-a', 1);
    const B = await groupWithReleases('reenroll-b', 1);
    const a = await enroll(A.secret, 'reenroll');
    expect((await once(a)).code).toBe(0);
    const refused = await runAgent([
      'enroll',
      '--server',
      api.baseUrl,
      '--secret',
      B.secret,
      '--state-dir',
      a.stateDir,
      '--root',
      a.root,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/409 .*never moves itself/);
    // Still in A with its key (the refused enrollment stored nothing), still applying A's bundle.
    expect(parseAssignment((await readCreds(a.stateDir)).assignment.statement)).toMatchObject({
      groupId: A.groupId,
      epoch: 1,
    });
    expect((await once(a)).code).toBe(0);
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho reenroll-a-1\n');
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: B.groupId })).status).toBe(200);
    expect((await once(a)).code).toBe(0);
    expect(parseAssignment((await readCreds(a.stateDir)).assignment.statement)).toMatchObject({
      groupId: B.groupId,
      epoch: 2,
    });
    expect(await checkSh(a)).toBe('755:#!/bin/sh\necho reenroll-b-1\n');
  });
});

describe('POST /v1/endpoints/:id/move', () => {
  it('validates, audits, 404s unknown endpoints and groups, and is a no-op to the same group', async () => {
    const A = await groupWithReleases('route-a', 0);
    const B = await groupWithReleases('route-b', 0);
    const a = await enroll(A.secret, 'route');
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, {})).status).toBe(400);
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: 'nope' })).status).toBe(400);
    const noGroup = await admin('POST', `/v1/endpoints/${a.endpointId}/move`, {
      groupId: '00000000-0000-4000-8000-000000000000',
    });
    expect(noGroup.status).toBe(404);
    expect(noGroup.body.error.details).toEqual([{ path: '$.groupId', message: 'no such group' }]);
    const noEndpoint = await admin('POST', `/v1/endpoints/00000000-0000-4000-8000-000000000000/move`, {
      groupId: B.groupId,
    });
    expect(noEndpoint.status).toBe(404);
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: A.groupId })).body).toMatchObject({
      assignmentEpoch: 1,
    });
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/move`, { groupId: B.groupId })).body).toMatchObject({
      assignmentEpoch: 2,
      groupId: B.groupId,
    });
    const audit = await admin('GET', `/v1/audit-log?action=endpoint.move&targetId=${a.endpointId}`);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0].details).toMatchObject({ fromGroupId: A.groupId, toGroupId: B.groupId });
  });
});
