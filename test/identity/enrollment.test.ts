// Endpoint identity at enrollment, over real HTTP against a real API, PostgreSQL and Redis: a machine id is a hint,
// never a credential (the takeover by machine id, also after revocation), re-keying only with the old key's proof, an
// endpoint never moves itself, and enrollment secrets' use limits.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { chainedLines } from '../support/audit-factories';
import { call } from '../support/http';
import { enrollAgent, enrollWithKey } from '../support/identity';
import { createGroupWithPolicy, query } from '../support/sync-factories';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  call(api.baseUrl, method, path, { token: api.adminToken, body });

// Creates an enrollment secret for a new group; returns both.
async function groupSecret(extra: Record<string, unknown> = {}): Promise<{ groupId: string; secret: string }> {
  const { groupId } = await createGroupWithPolicy(api);
  const res = await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'test', ...extra });
  expect(res.status).toBe(201);
  return { groupId, secret: res.body.secret };
}

const status = { state: 'applied', appliedRevision: null, appliedDigest: null, targetRevision: null };

describe('takeover by machine id', () => {
  it('another group secret + a known machine id makes a pending duplicate; the endpoint keeps its key and evidence', async () => {
    const S = await groupSecret();
    const L = await groupSecret();
    const machineId = `victim-${Date.now()}-machine`;
    const a = await enrollAgent(api.baseUrl, S.secret, { machineId, hostname: 'real-laptop' });
    expect((await a.call('GET', '/v1/agent/bundle')).status).toBe(204);

    // The attack of issue 20, as an attacker with group L's secret and A's machine id would send it.
    const attack = await enrollWithKey(api.baseUrl, L.secret, { machineId, hostname: 'victim-laptop' });
    expect(attack.res.status).toBe(202);
    expect(attack.res.body).toMatchObject({ admission: 'pending', reenrolled: false, groupId: L.groupId });
    expect(attack.res.body.endpointId).not.toBe(a.endpointId);
    expect(attack.res.body).not.toHaveProperty('credential');

    // A's key still works on every kind of route; the attacker's endpoint can do nothing until an admin decides.
    expect((await a.call('GET', '/v1/agent/bundle')).status).toBe(204);
    expect((await a.call('POST', '/v1/agent/status', { body: status })).status).toBe(200);
    const session = await attack.agent!.openSession();
    expect(session.status).toBe(403);
    expect(session.body.error.code).toBe('endpoint_pending');
    const forged = gzipSync(chainedLines(5, 1).lines.join('\n') + '\n');
    const upload = await fetch(`${api.baseUrl}/v1/agent/hook-runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      body: forged,
    });
    expect(upload.status).toBe(401);
    const stored = await query(api.db.url, 'SELECT count(*)::int AS n FROM hook_run_uploads WHERE endpoint_id = $1', [
      a.endpointId,
    ]);
    expect(stored[0].n).toBe(0);

    // A is untouched (group, hostname, key); the duplicate is pending with a finding naming both.
    const [rowA] = await query(api.db.url, 'SELECT * FROM endpoints WHERE id = $1', [a.endpointId]);
    expect(rowA).toMatchObject({
      group_id: S.groupId,
      hostname: 'real-laptop',
      admission: 'active',
      key_id: a.key.keyId,
    });
    const [dup] = await query(api.db.url, 'SELECT * FROM endpoints WHERE id = $1', [attack.res.body.endpointId]);
    expect(dup).toMatchObject({
      admission: 'pending',
      duplicate_of: a.endpointId,
      group_id: L.groupId,
      machine_id: machineId,
    });
    const findings = await query(
      api.db.url,
      `SELECT * FROM hook_run_findings WHERE kind = 'duplicate_machine_id' AND endpoint_id = $1`,
      [dup.id],
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ group_id: L.groupId, resolved_at: null });
    expect(findings[0].details).toMatchObject({
      machineId,
      duplicateOf: a.endpointId,
      duplicateOfGroupId: S.groupId,
      reason: 'no_proof',
      hostname: 'victim-laptop',
    });
    const audit = await query(api.db.url, `SELECT action FROM audit_log WHERE target_id = $1`, [dup.id]);
    expect(audit.map((r) => r.action)).toContain('endpoint.enroll_pending');
  });

  it('after revocation, enrollment never brings the endpoint back (revokedAt stays)', async () => {
    const S = await groupSecret();
    const L = await groupSecret();
    const machineId = `revoked-${Date.now()}-machine`;
    const a = await enrollAgent(api.baseUrl, S.secret, { machineId });
    expect((await admin('POST', `/v1/endpoints/${a.endpointId}/revoke`)).status).toBe(200);
    const revokedAt = (await query(api.db.url, 'SELECT revoked_at FROM endpoints WHERE id = $1', [a.endpointId]))[0]
      .revoked_at;
    expect(revokedAt).not.toBeNull();

    // Without proof: a pending duplicate (never A).
    const attack = await enrollWithKey(api.baseUrl, L.secret, { machineId });
    expect(attack.res.status).toBe(202);
    expect(attack.res.body.endpointId).not.toBe(a.endpointId);
    // With A's own key's proof, even with A's group's secret: refused, only an admin re-admits.
    const own = await enrollWithKey(api.baseUrl, S.secret, {
      machineId,
      previous: { endpointId: a.endpointId, key: a.key },
    });
    expect(own.res.status).toBe(403);
    expect(own.res.body.error.code).toBe('endpoint_revoked');
    expect(own.res.body.error.message).toMatch(/only by an admin's re-admission/);

    const [row] = await query(api.db.url, 'SELECT revoked_at, key_id FROM endpoints WHERE id = $1', [a.endpointId]);
    expect(row.revoked_at).toEqual(revokedAt);
    expect(row.key_id).toBe(a.key.keyId);
    const view = await admin('GET', `/v1/endpoints/${a.endpointId}`);
    expect(view.body.revokedAt).not.toBeNull();
    const session = await a.openSession();
    expect(session.status).toBe(401);
    expect(session.body.error.code).toBe('unauthorized');
  });
});

describe('re-enrollment', () => {
  it("re-keys the same endpoint with the old key's proof; the old key stops working at once", async () => {
    const S = await groupSecret();
    const machineId = `rekey-${Date.now()}-machine`;
    const a = await enrollAgent(api.baseUrl, S.secret, { machineId });
    expect((await a.call('GET', '/v1/agent/bundle')).status).toBe(204);
    const again = await enrollWithKey(api.baseUrl, S.secret, {
      machineId,
      previous: { endpointId: a.endpointId, key: a.key },
    });
    expect(again.res.status).toBe(201);
    expect(again.res.body).toMatchObject({ endpointId: a.endpointId, reenrolled: true, admission: 'active' });
    // The old key's session (cached on this instance) is refused, and so is a new session with the old key.
    const old = await a.call('GET', '/v1/agent/bundle');
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('unauthorized');
    a.session = null;
    expect((await a.openSession()).status).toBe(401);
    expect((await again.agent!.call('GET', '/v1/agent/bundle')).status).toBe(204);
    const audit = await query(api.db.url, `SELECT action FROM audit_log WHERE target_id = $1 ORDER BY seq`, [
      a.endpointId,
    ]);
    expect(audit.map((r) => r.action)).toEqual(['endpoint.enroll', 'endpoint.reenroll']);
  });

  it('an endpoint never moves itself: a valid proof with another group secret is 409, nothing consumed', async () => {
    const S = await groupSecret();
    const L = await groupSecret({ maxUses: 1 });
    const machineId = `move-${Date.now()}-machine`;
    const a = await enrollAgent(api.baseUrl, S.secret, { machineId });
    const moved = await enrollWithKey(api.baseUrl, L.secret, {
      machineId,
      previous: { endpointId: a.endpointId, key: a.key },
    });
    expect(moved.res.status).toBe(409);
    expect(moved.res.body.error.message).toMatch(/never moves itself.*POST \/v1\/endpoints\/:id\/move/);
    expect((await query(api.db.url, 'SELECT group_id FROM endpoints WHERE id = $1', [a.endpointId]))[0].group_id).toBe(
      S.groupId,
    );
    expect((await a.call('GET', '/v1/agent/bundle')).status).toBe(204);
    const uses = await query(api.db.url, 'SELECT uses FROM enrollment_secrets WHERE group_id = $1', [L.groupId]);
    expect(uses[0].uses).toBe(0);
  });

  it('a proof by another key, or for another endpoint, counts as no proof (pending duplicate)', async () => {
    const S = await groupSecret();
    const machineId = `wrongproof-${Date.now()}-machine`;
    const a = await enrollAgent(api.baseUrl, S.secret, { machineId });
    const b = await enrollAgent(api.baseUrl, S.secret);
    const forged = await enrollWithKey(api.baseUrl, S.secret, {
      machineId,
      previous: { endpointId: a.endpointId, key: b.key },
    });
    expect(forged.res.status).toBe(202);
    expect(forged.res.body.endpointId).not.toBe(a.endpointId);
    expect((await a.call('GET', '/v1/agent/bundle')).status).toBe(204);
  });
});

describe('enroll request checks', () => {
  it('refuses a proof that does not verify, a stale created time, a bad key; uses limits and expiry hold', async () => {
    const S = await groupSecret({ maxUses: 2 });
    const other = await enrollWithKey(api.baseUrl, S.secret, { created: Math.floor(Date.now() / 1000) - 3600 });
    expect(other.res.status).toBe(401);
    expect(other.res.body.error.code).toBe('clock_skew');
    expect(other.res.body.error.message).toMatch(/3600 s behind the server's clock; the limit is 300 s/);
    const body = {
      secret: S.secret,
      hostname: 'h',
      platform: 'linux',
      machineId: 'machine-xyz-123',
      agentVersion: '0.1.0',
      publicKey: 'not a key',
      created: Math.floor(Date.now() / 1000),
      proof: 'AAAA',
    };
    const bad = await call(api.baseUrl, 'POST', '/v1/agent/enroll', { body });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('$.publicKey');
    const a = await enrollWithKey(api.baseUrl, S.secret);
    const wrongProof = await call(api.baseUrl, 'POST', '/v1/agent/enroll', {
      body: { ...body, publicKey: a.key.publicKeyPem, proof: Buffer.alloc(64).toString('base64') },
    });
    expect(wrongProof.status).toBe(401);
    expect(wrongProof.body.error.message).toMatch(/enroll proof does not verify/);
    // Old agents (no key) are told what is missing.
    const legacy = await call(api.baseUrl, 'POST', '/v1/agent/enroll', {
      body: { secret: S.secret, hostname: 'h', platform: 'linux', machineId: 'machine-old-1', agentVersion: '0.0.9' },
    });
    expect(legacy.status).toBe(400);
    expect(JSON.stringify(legacy.body.error.details)).toContain('$.publicKey');
    // Two uses: one consumed above, one left, then used up (a pending duplicate also consumes one).
    expect(a.res.status).toBe(201);
    expect((await enrollWithKey(api.baseUrl, S.secret)).res.status).toBe(201);
    const third = await enrollWithKey(api.baseUrl, S.secret);
    expect(third.res.status).toBe(401);
    expect(third.res.body.error.message).toMatch(/used up/);
    // The same key cannot be enrolled twice.
    const T = await groupSecret();
    const reuse = await enrollWithKey(api.baseUrl, T.secret, { key: a.key });
    expect(reuse.res.status).toBe(409);
  });
});
