// Enrollment, endpoints, signing, releases, bundle delivery (ETag, long poll) and staged rollout, over real HTTP.
import { createPublicKey, verify } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { enrollWithKey, type SignedAgent } from '../support/identity';
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

// Creates an enrollment secret for a group.
async function secretFor(groupId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'test', ...extra });
  expect(res.status).toBe(201);
  return res.body.secret;
}

let machineSeq = 0;
// Enrolls a fake machine with its own key; returns the answer and the agent signing its requests.
async function enroll(secret: string, machineId = `machine-${process.pid}-${++machineSeq}-abcdef`) {
  const { res, agent } = await enrollWithKey(api.baseUrl, secret, { machineId, hostname: 'host-' + machineId });
  return { status: res.status, body: { ...res.body, agent: agent! } };
}

const bundle = (agent: SignedAgent, headers: Record<string, string> = {}) =>
  agent.call('GET', '/v1/agent/bundle', { headers });

describe('enrollment', () => {
  it('creates a secret shown once, enrolls, re-keys on re-enrollment with the old key, and audits', async () => {
    const { groupId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId);
    expect(secret).toMatch(/^hws_/);
    const list = await admin('GET', `/v1/groups/${groupId}/enrollment-secrets`);
    expect(list.body.items).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const first = await enroll(secret, 'machine-rotate-123456');
    expect(first.status).toBe(201);
    expect(first.body).not.toHaveProperty('credential');
    expect(first.body.groupId).toBe(groupId);
    expect(first.body.publicKeys.length).toBeGreaterThanOrEqual(1);
    expect((await bundle(first.body.agent)).status).toBe(204);

    const again = await enrollWithKey(api.baseUrl, secret, {
      machineId: 'machine-rotate-123456',
      previous: { endpointId: first.body.endpointId, key: first.body.agent.key },
    });
    expect(again.res.body.endpointId).toBe(first.body.endpointId);
    expect(again.res.body.reenrolled).toBe(true);
    expect((await bundle(first.body.agent)).status).toBe(401);
    expect((await bundle(again.agent!)).status).toBe(204);

    const stored = await query(api.db.url, 'SELECT credential_hash, key_id FROM endpoints WHERE id = $1', [
      first.body.endpointId,
    ]);
    expect(stored[0]).toEqual({ credential_hash: null, key_id: again.key.keyId });
    const audit = await query(
      api.db.url,
      `SELECT action FROM audit_log WHERE action LIKE 'enrollment_secret.%' OR action LIKE 'endpoint.%'`,
    );
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['enrollment_secret.create', 'endpoint.enroll', 'endpoint.reenroll']),
    );
  });

  it('enforces the use limit atomically under concurrent enrollments', async () => {
    const { groupId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId, { maxUses: 3 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => enroll(secret, `machine-conc-${i}-xxxxxxxx`)),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
    const rows = await query(api.db.url, 'SELECT uses FROM enrollment_secrets WHERE group_id = $1', [groupId]);
    expect(rows[0].uses).toBe(3);
  });

  it('refuses revoked, unknown and missing secrets, and validates the body', async () => {
    const { groupId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId);
    const list = await admin('GET', `/v1/groups/${groupId}/enrollment-secrets`);
    const revoked = await admin('POST', `/v1/enrollment-secrets/${list.body.items[0].id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const r = await enroll(secret);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
    expect((await enroll('hws_nope')).status).toBe(401);
    const bad = await call(api.baseUrl, 'POST', '/v1/agent/enroll', { body: { secret, hostname: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const past = await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { expiresAt: '2000-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
  });

  it('lists endpoints with filters and cursor pagination, and a revoked endpoint gets 401', async () => {
    const { groupId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId);
    const creds = [];
    for (let i = 0; i < 5; i++) creds.push((await enroll(secret, `machine-list-${i}-yyyyyyyy`)).body);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await admin(
        'GET',
        `/v1/endpoints?groupId=${groupId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((e: any) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(creds.map((c) => c.endpointId).sort());
    const one = await admin('GET', `/v1/endpoints/${creds[0].endpointId}`);
    expect(one.body).toMatchObject({ groupId, platform: 'linux', state: 'pending', lastSeenAt: null });
    const rev = await admin('POST', `/v1/endpoints/${creds[0].endpointId}/revoke`);
    expect(rev.body.state).toBe('revoked');
    expect((await bundle(creds[0].agent)).status).toBe(401);
    const st = await creds[0].agent.call('POST', '/v1/agent/status', {
      body: { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: null },
    });
    expect(st.status).toBe(401);
    const revoked = await admin('GET', `/v1/endpoints?groupId=${groupId}&state=revoked`);
    expect(revoked.body.items.map((e: any) => e.id)).toEqual([creds[0].endpointId]);
    expect((await admin('GET', '/v1/endpoints?cursor=garbage')).status).toBe(400);
    // An agent credential cannot use admin routes.
    expect((await creds[1].agent.call('GET', '/v1/endpoints')).status).toBe(403);
  });
});

describe('releases and bundle delivery', () => {
  it('signs the bundle, serves it with an ETag, answers 304, and wakes a long poll on release', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId);
    const agent = (await enroll(secret)).body;
    const v1 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v1'), [
      { path: 'check.sh', content: '#!/bin/sh\nexit 0\n', mode: 0o755 },
    ]);
    const rel = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId });
    expect(rel.status).toBe(201);
    expect(rel.body).toMatchObject({ revision: 1, status: 'completed', policyVersion: 1 });

    const got = await bundle(agent.agent);
    expect(got.status).toBe(200);
    const etag = got.headers.get('etag')!;
    expect(etag).toBe(`"${rel.body.digest}"`);
    const key = agent.publicKeys.find((k: any) => k.kid === got.body.keyId);
    expect(
      verify(
        null,
        Buffer.from(got.body.manifest),
        createPublicKey(key.publicKeyPem),
        Buffer.from(got.body.signature, 'base64'),
      ),
    ).toBe(true);
    const manifest = JSON.parse(got.body.manifest);
    expect(manifest).toMatchObject({ revision: 1, policyVersion: 1, group: { id: groupId } });
    expect(manifest.files[0]).toMatchObject({ path: 'check.sh', mode: 0o755, size: 17 });
    expect(Buffer.from(manifest.files[0].content, 'base64').toString()).toBe('#!/bin/sh\nexit 0\n');

    expect((await bundle(agent.agent, { 'if-none-match': etag })).status).toBe(304);
    const keys = await agent.agent.call('GET', '/v1/agent/keys');
    expect(keys.body.keys.map((k: any) => k.kid)).toContain(got.body.keyId);

    // Long poll: held until the next release, then answered at once.
    const v2 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v2'), []);
    const polling = bundle(agent.agent, { 'if-none-match': etag, prefer: 'wait=30' });
    await new Promise((r) => setTimeout(r, 300));
    const rel2 = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v2.versionId });
    const woke = await polling;
    // 200 with the new revision: woken by the release (the 30 s wait would have ended in 304).
    expect(woke.status).toBe(200);
    expect(woke.body.revision).toBe(2);
    expect(woke.headers.get('etag')).toBe(`"${rel2.body.digest}"`);

    // A long poll with nothing new ends with 304 after the wait.
    const t0 = Date.now();
    const idle = await bundle(agent.agent, { 'if-none-match': `"${rel2.body.digest}"`, prefer: 'wait=1' });
    expect(idle.status).toBe(304);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);

    const audit = await query(api.db.url, `SELECT count(*)::int AS n FROM audit_log WHERE action = 'release.create'`);
    expect(audit[0].n).toBeGreaterThanOrEqual(2);
    const doc = await call(api.baseUrl, 'GET', '/docs/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/v1/agent/bundle', '/v1/agent/enroll', '/v1/agent/status', '/v1/releases/{id}/rollout']),
    );
  });

  it('refuses a policy version of another group and bad rings', async () => {
    const a = await createGroupWithPolicy(api);
    const b = await createGroupWithPolicy(api);
    const v = await createVersion(api, b.policyId, requirementsToml('/opt/hw', 'x'), []);
    expect((await admin('POST', `/v1/groups/${a.groupId}/releases`, { policyVersionId: v.versionId })).status).toBe(
      409,
    );
    const badRings = await admin('POST', `/v1/groups/${b.groupId}/releases`, {
      policyVersionId: v.versionId,
      strategy: 'staged',
      rings: [10, 5, 100],
    });
    expect(badRings.status).toBe(400);
    expect(badRings.body.error.details[0].path).toBe('$.rings[1]');
  });

  it('moves a staged rollout through its rings by delayed jobs, pauses on apply failures, and aborts back', async () => {
    const { groupId, policyId } = await createGroupWithPolicy(api);
    const secret = await secretFor(groupId);
    const agents = [];
    for (let i = 0; i < 40; i++) agents.push((await enroll(secret, `machine-ring-${i}-zzzzzzzz`)).body);
    const v1 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v1'), []);
    const base = await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v1.versionId });
    const v2 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v2'), []);
    const staged = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v2.versionId,
      strategy: 'staged',
      rings: [25, 50, 100],
      ringIntervalSec: 3, // long enough that the ring cannot move while this test reads the first one
      maxApplyFailureRate: 0.5,
    });
    expect(staged.body).toMatchObject({
      status: 'rolling',
      currentRing: 0,
      revision: 2,
      previousReleaseId: base.body.id,
    });
    // Every endpoint gets either the new or the previous bundle, by its ring.
    const revs = await Promise.all(agents.map(async (a) => (await bundle(a.agent)).body.revision));
    const onNew = revs.filter((r) => r === 2).length;
    expect(revs.every((r) => r === 1 || r === 2)).toBe(true);
    const roll = await admin('GET', `/v1/releases/${staged.body.id}/rollout`);
    const assignedNew = roll.body.rings
      .flatMap((r: any) => (r.active ? r.versions : []))
      .filter((v: any) => v.revision === 2)
      .reduce((s: number, v: any) => s + v.assigned, 0);
    expect(assignedNew).toBe(onNew);

    // The worker advances ring by ring until complete.
    for (let i = 0; i < 150; i++) {
      const r = await admin('GET', `/v1/releases/${staged.body.id}`);
      if (r.body.status === 'completed') break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const done = await admin('GET', `/v1/releases/${staged.body.id}`);
    expect(done.body).toMatchObject({ status: 'completed', currentRing: 2 });
    const all = await Promise.all(agents.map(async (a) => (await bundle(a.agent)).body.revision));
    expect(all.every((r) => r === 2)).toBe(true);
    const advances = await query(
      api.db.url,
      `SELECT actor_name FROM audit_log WHERE action = 'release.advance' AND target_id = $1`,
      [staged.body.id],
    );
    expect(advances).toHaveLength(2);
    expect(advances[0].actor_name).toBe('rollout');

    // Next staged release: failures reported by endpoints on the new revision pause it automatically.
    const v3 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v3'), []);
    const s3 = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v3.versionId,
      strategy: 'staged',
      rings: [50, 100],
      ringIntervalSec: 3600,
      maxApplyFailureRate: 0.2,
    });
    expect(
      (await admin('POST', `/v1/groups/${groupId}/releases`, { policyVersionId: v3.versionId, strategy: 'staged' }))
        .status,
    ).toBe(409);
    const inRing = [];
    for (const a of agents) if ((await bundle(a.agent)).body.revision === 3) inRing.push(a);
    expect(inRing.length).toBeGreaterThan(0);
    for (const a of inRing) {
      const st = await a.agent.call('POST', '/v1/agent/status', {
        body: {
          state: 'failed',
          appliedRevision: 2,
          appliedDigest: done.body.digest,
          targetRevision: 3,
          errors: ['injected failure'],
        },
      });
      expect(st.status).toBe(200);
    }
    const paused = await admin('GET', `/v1/releases/${s3.body.id}`);
    expect(paused.body.status).toBe('paused');
    expect(paused.body.pausedReason).toMatch(/apply failure rate/);
    const autoPause = await query(
      api.db.url,
      `SELECT actor_name FROM audit_log WHERE action = 'release.auto_pause' AND target_id = $1`,
      [s3.body.id],
    );
    expect(autoPause).toHaveLength(1);
    const ro = await admin('GET', `/v1/releases/${s3.body.id}/rollout`);
    expect(ro.body.gate.applyFailureRate).toBe(1);
    const failedCount = ro.body.rings[0].versions.find((v: any) => v.revision === 3).failed;
    expect(failedCount).toBe(inRing.length);

    // Abort: everybody gets the previous content again, under a new revision.
    const ab = await admin('POST', `/v1/releases/${s3.body.id}/abort`);
    expect(ab.status).toBe(200);
    expect(ab.body.release.status).toBe('aborted');
    expect(ab.body.rollback).toMatchObject({ revision: 4, policyVersion: 2, status: 'completed' });
    const after = await Promise.all(agents.map(async (a) => JSON.parse((await bundle(a.agent)).body.manifest)));
    expect(after.every((m) => m.revision === 4 && m.policyVersion === 2)).toBe(true);

    // Pause / resume / advance by hand.
    const v4 = await createVersion(api, policyId, requirementsToml('/opt/hw', 'v4'), []);
    const s4 = await admin('POST', `/v1/groups/${groupId}/releases`, {
      policyVersionId: v4.versionId,
      strategy: 'staged',
      rings: [10, 100],
      ringIntervalSec: 3600,
    });
    const badReason = await admin('POST', `/v1/releases/${s4.body.id}/pause`, { reason: 42 });
    expect(badReason.status).toBe(400);
    expect(JSON.stringify(badReason.body.error)).toContain('reason');
    expect((await admin('POST', `/v1/releases/${s4.body.id}/pause`, { reason: 'looking' })).body.status).toBe('paused');
    expect((await admin('POST', `/v1/releases/${s4.body.id}/resume`)).body.status).toBe('rolling');
    expect((await admin('POST', `/v1/releases/${s4.body.id}/advance`)).body.status).toBe('completed');
    expect((await admin('POST', `/v1/releases/${s4.body.id}/pause`)).status).toBe(409);
    const list = await admin('GET', `/v1/groups/${groupId}/releases`);
    expect(list.body.items.map((r: any) => r.revision)).toEqual([5, 4, 3, 2, 1]);
  });
});
