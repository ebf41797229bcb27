// Admin decisions on endpoints over real HTTP, PostgreSQL and Redis: a pending duplicate machine id is listed (with
// its finding) and approved (the endpoint it duplicates is retired: its credential refused at once on every instance)
// or rejected; a revoked endpoint comes back only by an audited re-admission; wrong-state 409s, role checks, the
// rollout's counts leaving pending duplicates out; enrollment secrets used up or expired refused.
// Pending duplicates are inserted as the enrollment of a known machine id without key proof leaves them
// (test/support/admission.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleCacheService } from '../../apps/api/src/agent/bundle-cache.service';
import { insertPendingDuplicate } from '../support/admission';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { enrollWithKey, type SignedAgent } from '../support/identity';
import { createGroupWithPolicy, createVersion, query, requirementsToml } from '../support/sync-factories';

let api: TestApi;
let peer: TestApi;
let auditorToken: string;

beforeAll(async () => {
  // The refused credentials below are on purpose: not a reason to rate-limit the test's address.
  api = await startTestApi({ AUTH_FAILURE_LIMIT: '1000' });
  peer = await startTestApi({ AUTH_FAILURE_LIMIT: '1000' }, { sameAs: api });
  const aud = await call(api.baseUrl, 'POST', '/v1/tokens', {
    token: api.adminToken,
    body: { name: 'auditor', role: 'auditor' },
  });
  auditorToken = aud.body.token;
});
afterAll(async () => {
  await peer?.close();
  await api?.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  call(api.baseUrl, method, path, { token: api.adminToken, body });
const auditor = (method: string, path: string) => call(api.baseUrl, method, path, { token: auditorToken });
// GET /v1/agent/bundle on an instance: signed by an enrolled endpoint, or with a (legacy) bearer credential.
const bundle = (base: string, credential: string | SignedAgent, headers: Record<string, string> = {}) =>
  typeof credential === 'string'
    ? call(base, 'GET', '/v1/agent/bundle', { token: credential, headers })
    : credential.call('GET', '/v1/agent/bundle', { headers, baseUrl: base });

let seq = 0;
// A group with an enrollment secret (`extra`: its limits).
async function groupWithSecret(extra: Record<string, unknown> = {}) {
  const { groupId, policyId } = await createGroupWithPolicy(api);
  const res = await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 't', ...extra });
  expect(res.status).toBe(201);
  return { groupId, policyId, secret: res.body.secret as string, secretId: res.body.id as string };
}

// Enrolls a machine (with its own key) through the real enrollment route.
async function enroll(secret: string, machineId = `adm-${process.pid}-${++seq}-machine`) {
  const { res, agent } = await enrollWithKey(api.baseUrl, secret, { machineId, hostname: `host-${machineId}` });
  return { ...res, agent };
}

// An enrolled endpoint: id and its signing agent.
async function enrolled(secret: string): Promise<{ id: string; credential: SignedAgent }> {
  const res = await enroll(secret);
  expect(res.status).toBe(201);
  return { id: res.body.endpointId, credential: res.agent! };
}

// The audit entries of one endpoint, oldest first.
const auditOf = (id: string) =>
  query(api.db.url, `SELECT action, actor_name, details FROM audit_log WHERE target_id = $1 ORDER BY seq`, [id]);

describe('pending duplicates', () => {
  it('lists a pending duplicate with its finding; approving it retires the old endpoint everywhere', async () => {
    const small = await groupWithSecret();
    const large = await groupWithSecret();
    const a = await enrolled(small.secret);
    // The old credential is cached on the other instance before the decision.
    expect((await bundle(peer.baseUrl, a.credential)).status).toBe(204);
    const p = await insertPendingDuplicate(api.db.url, a.id, { groupId: large.groupId, hostname: 'victim-laptop' });

    const pending = await auditor('GET', '/v1/endpoints?admission=pending');
    expect(pending.status).toBe(200);
    expect(pending.body.items.map((e: any) => e.id)).toEqual([p.id]);
    expect(pending.body.items[0]).toMatchObject({
      admission: 'pending',
      duplicateOf: a.id,
      groupId: large.groupId,
      hostname: 'victim-laptop',
      keyId: null,
      revokedAt: null,
      duplicate: { id: a.id, groupId: small.groupId, admission: 'active', revokedAt: null, lastSeenAt: null },
    });
    const filtered = await admin('GET', `/v1/endpoints?admission=active&groupId=${small.groupId}`);
    expect(filtered.body.items.map((e: any) => e.id)).toEqual([a.id]);
    expect((await admin('GET', '/v1/endpoints?admission=bogus')).status).toBe(400);
    const findings = await auditor('GET', `/v1/findings?kind=duplicate_machine_id&endpointId=${p.id}`);
    expect(findings.status).toBe(200);
    expect(findings.body.items).toEqual([
      expect.objectContaining({
        id: p.findingId,
        kind: 'duplicate_machine_id',
        endpointId: p.id,
        resolvedAt: null,
        details: expect.objectContaining({ duplicateOf: a.id, hostname: 'victim-laptop' }),
      }),
    ]);

    // Auditors read, never decide.
    expect((await auditor('POST', `/v1/endpoints/${p.id}/approve`)).status).toBe(403);
    expect((await auditor('POST', `/v1/endpoints/${p.id}/reject`)).status).toBe(403);

    const ok = await admin('POST', `/v1/endpoints/${p.id}/approve`);
    expect(ok.status).toBe(200);
    expect(ok.body.endpoint).toMatchObject({ id: p.id, admission: 'active', duplicateOf: a.id });
    expect(ok.body.retired).toMatchObject({ id: a.id, admission: 'retired' });
    // The retired endpoint's credential is refused at once, on this instance and (announced) on the other one.
    expect((await bundle(api.baseUrl, a.credential)).status).toBe(401);
    await expect.poll(async () => (await bundle(peer.baseUrl, a.credential)).status, { timeout: 10_000 }).toBe(401);
    expect((await bundle(api.baseUrl, p.credential)).status).toBe(204);

    // The finding is resolved; both decisions audited with both ids.
    expect((await admin('GET', `/v1/findings?endpointId=${p.id}`)).body.items).toEqual([]);
    const all = await admin('GET', `/v1/findings?endpointId=${p.id}&includeResolved=true`);
    expect(all.body.items[0].resolvedAt).not.toBeNull();
    expect(await auditOf(p.id)).toEqual([
      expect.objectContaining({
        action: 'endpoint.approve',
        details: expect.objectContaining({ duplicateOf: a.id, retiredEndpointId: a.id }),
      }),
    ]);
    expect((await auditOf(a.id)).map((e) => [e.action, e.details.replacedBy])).toEqual([
      ['endpoint.enroll', undefined],
      ['endpoint.retire', p.id],
    ]);

    // Decided is decided: every wrong-state transition is a 409 naming the state.
    const again = await admin('POST', `/v1/endpoints/${p.id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', details: { admission: 'active', revoked: false } });
    expect(again.body.error.message).toMatch(/is active: only a pending endpoint .* can be approved/);
    expect((await admin('POST', `/v1/endpoints/${p.id}/reject`)).status).toBe(409);
    expect((await admin('POST', `/v1/endpoints/${a.id}/approve`)).status).toBe(409);
    const readmitActive = await admin('POST', `/v1/endpoints/${p.id}/readmit`);
    expect(readmitActive.status).toBe(409);
    expect(readmitActive.body.error.message).toMatch(/is not revoked/);
    const readmitRetired = await admin('POST', `/v1/endpoints/${a.id}/readmit`);
    expect(readmitRetired.status).toBe(409);
    expect(readmitRetired.body.error.message).toMatch(/is retired/);
    expect((await admin('POST', '/v1/endpoints/3f2b8c4e-9d1a-4e7b-8c2f-5a6d7e8f9a0b/approve')).status).toBe(404);
    expect((await admin('POST', '/v1/endpoints/not-a-uuid/approve')).status).toBe(400);
  });

  it('rejects a pending duplicate (final): its credential never works, the original keeps working', async () => {
    const g = await groupWithSecret();
    const a = await enrolled(g.secret);
    const p = await insertPendingDuplicate(api.db.url, a.id);
    const res = await admin('POST', `/v1/endpoints/${p.id}/reject`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, admission: 'rejected', duplicateOf: a.id });
    expect((await bundle(api.baseUrl, p.credential)).status).toBe(401);
    expect((await bundle(api.baseUrl, a.credential)).status).toBe(204);
    expect((await admin('GET', `/v1/endpoints/${a.id}`)).body.admission).toBe('active');
    expect(
      (await admin('GET', '/v1/findings?kind=duplicate_machine_id')).body.items.map((f: any) => f.id),
    ).not.toContain(p.findingId);
    expect((await auditOf(p.id)).map((e) => e.action)).toEqual(['endpoint.reject']);
    for (const action of ['approve', 'reject', 'readmit']) {
      const r = await admin('POST', `/v1/endpoints/${p.id}/${action}`);
      expect(r.status, action).toBe(409);
      expect(r.body.error.message, action).toMatch(/is rejected/);
    }
  });

  it('approves only while no other admitted endpoint holds the machine id; a revoked duplicate is not approved', async () => {
    const g = await groupWithSecret();
    const a = await enrolled(g.secret);
    const p1 = await insertPendingDuplicate(api.db.url, a.id);
    const p2 = await insertPendingDuplicate(api.db.url, a.id);
    expect((await admin('POST', `/v1/endpoints/${p1.id}/approve`)).status).toBe(200);
    const second = await admin('POST', `/v1/endpoints/${p2.id}/approve`);
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain(p1.id);
    expect((await admin('GET', `/v1/endpoints/${p2.id}`)).body.admission).toBe('pending');
    // Revoked while pending: it can still be rejected, never approved.
    expect((await admin('POST', `/v1/endpoints/${p2.id}/revoke`)).status).toBe(200);
    const revoked = await admin('POST', `/v1/endpoints/${p2.id}/approve`);
    expect(revoked.status).toBe(409);
    expect(revoked.body.error.details).toEqual({ admission: 'pending', revoked: true });
    expect((await admin('POST', `/v1/endpoints/${p2.id}/reject`)).status).toBe(200);
  });

  it('decides concurrent approvals of one machine id one after the other: one approved, the rest 409', async () => {
    const g = await groupWithSecret();
    const a = await enrolled(g.secret);
    const pending = await Promise.all(Array.from({ length: 4 }, () => insertPendingDuplicate(api.db.url, a.id)));
    const results = await Promise.all(pending.map((p) => admin('POST', `/v1/endpoints/${p.id}/approve`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = pending[results.findIndex((r) => r.status === 200)]!;
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.message).toContain(winner.id);
    const admitted = await query(
      api.db.url,
      `SELECT id::text FROM endpoints WHERE machine_id = (SELECT machine_id FROM endpoints WHERE id = $1)
          AND admission = 'active' AND revoked_at IS NULL`,
      [a.id],
    );
    expect(admitted.map((r) => r.id)).toEqual([winner.id]);
    expect(
      (
        await query(
          api.db.url,
          `SELECT count(*)::int AS n FROM audit_log WHERE action = 'endpoint.retire' AND target_id = $1`,
          [a.id],
        )
      )[0].n,
    ).toBe(1);
  });

  it('counts only admitted endpoints in a rollout and the metrics', async () => {
    const g = await groupWithSecret();
    const a = await enrolled(g.secret);
    const p = await insertPendingDuplicate(api.db.url, a.id);
    const v1 = await createVersion(api, g.policyId, requirementsToml('/opt/hw-adm', 'v1'), []);
    const rel = await admin('POST', `/v1/groups/${g.groupId}/releases`, { policyVersionId: v1.versionId });
    expect(rel.status).toBe(201);
    // The pending duplicate reports about the revision (as if it could): still not counted.
    await query(api.db.url, `UPDATE endpoints SET target_revision = 1, state = 'failed' WHERE id = $1`, [p.id]);
    const rollout = await admin('GET', `/v1/releases/${rel.body.id}/rollout`);
    expect(rollout.status).toBe(200);
    const assigned = rollout.body.rings
      .flatMap((r: any) => r.versions)
      .reduce((n: number, v: any) => n + v.assigned, 0);
    expect(assigned).toBe(1);
    expect(rollout.body.gate.endpointsOnRevision).toBe(0);
    const metrics = await call(api.baseUrl, 'GET', '/metrics', { token: api.adminToken });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/hookwarden_endpoints_admission\{admission="pending"\} [1-9]/);
    expect(metrics.body).toMatch(/hookwarden_findings_open\{kind="duplicate_machine_id"\} [1-9]/);
  });
});

describe('re-admission', () => {
  it('brings a revoked endpoint back only by an audited admin re-admission', async () => {
    const g = await groupWithSecret();
    const a = await enrolled(g.secret);
    expect((await admin('POST', `/v1/endpoints/${a.id}/revoke`)).status).toBe(200);
    expect((await bundle(api.baseUrl, a.credential)).status).toBe(401);
    await expect.poll(async () => (await bundle(peer.baseUrl, a.credential)).status, { timeout: 10_000 }).toBe(401);
    expect((await auditor('POST', `/v1/endpoints/${a.id}/readmit`)).status).toBe(403);
    expect(
      (await admin('GET', `/v1/endpoints?admission=active&state=revoked&groupId=${g.groupId}`)).body.items,
    ).toEqual([expect.objectContaining({ id: a.id, admission: 'active', state: 'revoked' })]);

    const res = await admin('POST', `/v1/endpoints/${a.id}/readmit`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.id, admission: 'active', revokedAt: null });
    expect(res.body.state).not.toBe('revoked');
    expect((await bundle(api.baseUrl, a.credential)).status).toBe(204);
    await expect.poll(async () => (await bundle(peer.baseUrl, a.credential)).status, { timeout: 10_000 }).toBe(204);
    const entries = await auditOf(a.id);
    expect(entries.map((e) => e.action)).toEqual(['endpoint.enroll', 'endpoint.revoke', 'endpoint.readmit']);
    expect(entries[2]!.details.revokedAt).toEqual(expect.any(String));
    const twice = await admin('POST', `/v1/endpoints/${a.id}/readmit`);
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toMatch(/is not revoked/);
  });

  it('refuses a re-admission while another admitted endpoint holds the machine id', async () => {
    const g = await groupWithSecret();
    const a = await enrolled(g.secret);
    expect((await admin('POST', `/v1/endpoints/${a.id}/revoke`)).status).toBe(200);
    // Another endpoint admitted for the same machine id meanwhile (the revoked one no longer holds it).
    const other = await insertPendingDuplicate(api.db.url, a.id);
    await query(api.db.url, `UPDATE endpoints SET admission = 'active', duplicate_of = NULL WHERE id = $1`, [other.id]);
    const res = await admin('POST', `/v1/endpoints/${a.id}/readmit`);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain(other.id);
    expect((await admin('GET', `/v1/endpoints/${a.id}`)).body.revokedAt).not.toBeNull();
    expect((await bundle(api.baseUrl, a.credential)).status).toBe(401);
  });

  it("a re-admitted endpoint's held long poll is answered with its bundle, not as revoked", async () => {
    const g = await groupWithSecret();
    const a = await enrolled(g.secret);
    const v1 = await createVersion(api, g.policyId, requirementsToml('/opt/hw-adm', 'r1'), []);
    expect((await admin('POST', `/v1/groups/${g.groupId}/releases`, { policyVersionId: v1.versionId })).status).toBe(
      201,
    );
    const first = await bundle(api.baseUrl, a.credential);
    expect(first.status).toBe(200);
    expect((await admin('POST', `/v1/endpoints/${a.id}/revoke`)).status).toBe(200);
    expect((await admin('POST', `/v1/endpoints/${a.id}/readmit`)).status).toBe(200);
    const cache = api.app.get(BundleCacheService);
    const held = cache.heldCount;
    const polling = bundle(api.baseUrl, a.credential, {
      'if-none-match': first.headers.get('etag')!,
      prefer: 'wait=20',
    });
    await expect.poll(() => cache.heldCount, { timeout: 10_000 }).toBe(held + 1);
    const v2 = await createVersion(api, g.policyId, requirementsToml('/opt/hw-adm', 'r2'), []);
    expect((await admin('POST', `/v1/groups/${g.groupId}/releases`, { policyVersionId: v2.versionId })).status).toBe(
      201,
    );
    const woke = await polling;
    expect(woke.status).toBe(200);
    expect(woke.body.revision).toBe(2);
  });
});

describe('enrollment secret limits', () => {
  it('refuses a used-up or expired secret with 401 and shows uses, maxUses and expiresAt', async () => {
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const g = await groupWithSecret({ maxUses: 1, expiresAt });
    const listed = await admin('GET', `/v1/groups/${g.groupId}/enrollment-secrets`);
    expect(listed.body.items[0]).toMatchObject({ maxUses: 1, uses: 0, expiresAt });
    expect((await enroll(g.secret)).status).toBe(201);
    const usedUp = await enroll(g.secret);
    expect(usedUp.status).toBe(401);
    expect(usedUp.body.error.message).toMatch(/used up/);
    expect((await admin('GET', `/v1/groups/${g.groupId}/enrollment-secrets`)).body.items[0].uses).toBe(1);

    const h = await groupWithSecret({ expiresAt });
    expect((await enroll(h.secret)).status).toBe(201);
    await query(api.db.url, `UPDATE enrollment_secrets SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      h.secretId,
    ]);
    const expired = await enroll(h.secret);
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);
    const after = (await admin('GET', `/v1/groups/${h.groupId}/enrollment-secrets`)).body.items[0];
    expect(after.uses).toBe(1);
    expect(Date.parse(after.expiresAt)).toBeLessThan(Date.now());
  });
});
