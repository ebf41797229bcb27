// Bundle-signing key rotation: admin routes (list, add, activate, retire) and a real agent applying across a rotation.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type KeyList, keyListSigningPayload } from '@hookwarden/hook-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProcess, runAgent, spawnAgent, stopAgent, visibleLayer, waitFor } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { readEndpointKey } from '../../apps/agent-sync/src/state/endpoint-key';
import { call } from '../support/http';
import { SignedAgent } from '../support/identity';
import { createGroupWithPolicy, createVersion, query, requirementsToml } from '../support/sync-factories';

const MANAGED = '/opt/hw-rotate';
let api: TestApi;
let other: TestApi;
let tmp: string;
const running: AgentProcess[] = [];

beforeAll(async () => {
  api = await startTestApi();
  other = await startTestApi({}, { sameAs: api }); // a second instance on the same database and Redis
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-keys-'));
});
afterAll(async () => {
  await Promise.all(running.map(stopAgent));
  await other?.close();
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const admin = (method: string, p: string, body?: unknown) =>
  call(api.baseUrl, method, p, { token: api.adminToken, body });

// Enrolls a machine with the real CLI; returns its directories and stored credentials.
async function enrollAgent(secret: string, name: string) {
  const root = path.join(tmp, name, 'root');
  const stateDir = path.join(tmp, name, 'state');
  await fs.mkdir(path.join(root, 'etc'), { recursive: true });
  await fs.writeFile(path.join(root, 'etc/machine-id'), `${name}-${Date.now()}-machine\n`);
  const r = await runAgent(['enroll', '--server', api.baseUrl, '--secret', secret, '--state-dir', stateDir]);
  expect(r.code, r.stderr).toBe(0);
  return { root, stateDir, creds: await credentialsOf(stateDir) };
}

// The agent's stored enrollment state (endpoint id, trusted keys; its own key is endpoint-key.pem).
async function credentialsOf(stateDir: string) {
  return JSON.parse(await fs.readFile(path.join(stateDir, 'credentials.json'), 'utf8')) as {
    endpointId: string;
    publicKeys: Array<{ kid: string; publicKeyPem: string }>;
  };
}

// The managed layer a version's TOML and script produce.
const layerOf = (toml: string, marker: string) => ({
  'requirements.toml': toml,
  'check.sh': `755:#!/bin/sh\necho ${marker}\n`,
});

// Authors and releases the next version of the policy (through `on`); returns the release and the expected layer.
async function release(policyId: string, groupId: string, marker: string, on: TestApi = api) {
  const v = await createVersion(on.db === api.db ? api : on, policyId, requirementsToml(MANAGED, marker), [
    { path: 'check.sh', content: `#!/bin/sh\necho ${marker}\n` },
  ]);
  const rel = await call(on.baseUrl, 'POST', `/v1/groups/${groupId}/releases`, {
    token: on.adminToken,
    body: { policyVersionId: v.versionId },
  });
  expect(rel.status).toBe(201);
  return { release: rel.body, layer: layerOf(v.toml, marker) };
}

// True when the key list verifies with the public key of the key that signed it.
function listVerifies(list: KeyList, publicKeyPem: string): boolean {
  return verify(
    null,
    keyListSigningPayload(list),
    createPublicKey(publicKeyPem),
    Buffer.from(list.signature, 'base64'),
  );
}

describe('signing key rotation', () => {
  it('adds, activates and retires keys while a real agent keeps applying new releases', async () => {
    const keys0 = await admin('GET', '/v1/signing-keys');
    expect(keys0.status).toBe(200);
    expect(keys0.body.items).toHaveLength(1);
    const k1 = keys0.body.items[0];
    expect(k1).toMatchObject({ status: 'active', source: 'database', retiredAt: null });
    expect(k1.publicKeyPem).toContain('BEGIN PUBLIC KEY');
    expect(JSON.stringify(keys0.body)).not.toContain('PRIVATE');

    const { groupId, policyId } = await createGroupWithPolicy(api);
    const secret = (await admin('POST', `/v1/groups/${groupId}/enrollment-secrets`, { name: 'rotate' })).body.secret;
    const agent = await enrollAgent(secret, 'rotating');
    expect(agent.creds.publicKeys.map((k) => k.kid)).toEqual([k1.kid]);
    const proc = spawnAgent(['run', '--state-dir', agent.stateDir, '--root', agent.root, '--poll-wait', '30']);
    running.push(proc);
    const onDisk = (layer: Record<string, string>, what: string) =>
      waitFor(
        async () => JSON.stringify(await visibleLayer(agent.root, MANAGED)) === JSON.stringify(layer),
        10_000,
        what,
      );

    const r1 = await release(policyId, groupId, 'v1');
    expect(r1.release.keyId).toBe(k1.kid);
    await onDisk(r1.layer, 'v1 (old key) on disk');

    // A new key, trusted but not signing yet: agents receive it in the key list, still signed by the old key.
    const added = await admin('POST', '/v1/signing-keys');
    expect(added.status).toBe(201);
    const k2 = added.body;
    expect(k2).toMatchObject({ status: 'trusted', source: 'database', activatedAt: null });
    // The agent's own requests, signed with the key it made at enrollment.
    const signed = new SignedAgent(
      api.baseUrl,
      agent.creds.endpointId,
      groupId,
      (await readEndpointKey(agent.stateDir))!,
    );
    const list1 = await signed.call('GET', '/v1/agent/keys');
    expect(list1.body.keys.map((k: any) => k.kid)).toEqual([k1.kid, k2.kid]);
    expect(list1.body.keyId).toBe(k1.kid);
    expect(listVerifies(list1.body, k1.publicKeyPem)).toBe(true);

    // Activate it on one instance: a release created through the other instance is signed by the new key, and the
    // agent (which trusted only the old key) learns the new one from the list and applies it.
    const activated = await admin('POST', `/v1/signing-keys/${k2.kid}/activate`);
    expect(activated.status).toBe(200);
    expect(activated.body.status).toBe('active');
    const r2 = await release(policyId, groupId, 'v2', other);
    expect(r2.release.keyId).toBe(k2.kid);
    await onDisk(r2.layer, 'v2 (new key) on disk');
    expect((await credentialsOf(agent.stateDir)).publicKeys.map((k) => k.kid)).toContain(k2.kid);
    const listed = (await admin('GET', '/v1/signing-keys')).body.items;
    expect(listed.map((k: any) => [k.kid, k.status])).toEqual(
      expect.arrayContaining([
        [k1.kid, 'trusted'],
        [k2.kid, 'active'],
      ]),
    );

    // The active key cannot be retired; the old one can, once no group is served a bundle it signed.
    const refused = await admin('POST', `/v1/signing-keys/${k2.kid}/retire`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/active signing key/);
    const retired = await admin('POST', `/v1/signing-keys/${k1.kid}/retire`);
    expect(retired.status).toBe(200);
    expect(retired.body).toMatchObject({ kid: k1.kid, status: 'retired' });
    expect(retired.body.retiredAt).not.toBeNull();
    expect((await admin('POST', `/v1/signing-keys/${k1.kid}/retire`)).status).toBe(200); // twice: harmless
    // Retiring destroyed the private half (no served bundle was signed by it any more); the public half stays listed.
    const [k1row] = await query(api.db.url, `SELECT private_key_sealed FROM signing_keys WHERE kid = $1`, [k1.kid]);
    expect(k1row.private_key_sealed).toBeNull();
    expect(retired.body.source).toBe('public_only');

    // The key list sent to agents no longer contains the retired key (on every instance, once its cache expires
    // there: 10 s; this instance at once) and is signed by a key that stays trusted.
    const list2 = await signed.call('GET', '/v1/agent/keys');
    expect(list2.body.keys.map((k: any) => k.kid)).toEqual([k2.kid]);
    expect(list2.body.keyId).toBe(k2.kid);
    expect(listVerifies(list2.body, k2.publicKeyPem)).toBe(true);
    // Every change of the list raised its sequence: created k1, k2 (2), retired k1 (3).
    expect([list1.body.sequence, list2.body.sequence]).toEqual([2, 3]);
    expect(Number.isNaN(Date.parse(list2.body.issuedAt))).toBe(false);
    expect((await admin('POST', `/v1/signing-keys/${k1.kid}/activate`)).status).toBe(409);

    // The agent keeps applying releases signed by the new key; a machine enrolled now trusts only the new key.
    const r3 = await release(policyId, groupId, 'v3');
    expect(r3.release.keyId).toBe(k2.kid);
    await onDisk(r3.layer, 'v3 on disk');
    const late = await enrollAgent(secret, 'late');
    expect(late.creds.publicKeys.map((k) => k.kid)).toEqual([k2.kid]);
    expect(proc.child.exitCode).toBeNull();

    const audit = await query(
      api.db.url,
      `SELECT action, target_id, actor_name FROM audit_log WHERE target_type = 'signing_key' ORDER BY seq`,
    );
    expect(audit.map((a) => [a.action, a.target_id])).toEqual([
      ['signing_key.create', k2.kid],
      ['signing_key.activate', k2.kid],
      ['signing_key.retire', k1.kid],
    ]);
  });

  it('refuses to retire a key that still signs a served bundle, and validates key ids', async () => {
    const fresh = await startTestApi(); // its own keys and groups: only this group's bundle is signed by its key
    try {
      const { groupId, policyId } = await createGroupWithPolicy(fresh, 'still-signed');
      const asAdmin = (method: string, p: string, body?: unknown) =>
        call(fresh.baseUrl, method, p, { token: fresh.adminToken, body });
      const k1 = (await asAdmin('GET', '/v1/signing-keys')).body.items[0];
      await release(policyId, groupId, 's1', fresh);
      const k2 = (await asAdmin('POST', '/v1/signing-keys', { activate: true })).body;
      expect(k2.status).toBe('active');
      const inUse = await asAdmin('POST', `/v1/signing-keys/${k1.kid}/retire`);
      expect(inUse.status).toBe(409);
      expect(inUse.body.error.message).toMatch(/still-signed/);
      expect(inUse.body.error.details.groups).toEqual([{ id: groupId, name: 'still-signed' }]);
      // Once the group is served a bundle signed by the active key, the old key can go.
      expect((await release(policyId, groupId, 's2', fresh)).release.keyId).toBe(k2.kid);
      expect((await asAdmin('POST', `/v1/signing-keys/${k1.kid}/retire`)).status).toBe(200);

      const bad = await asAdmin('POST', '/v1/signing-keys/not-a-kid/activate');
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body.error)).toContain('kid');
      expect((await asAdmin('POST', '/v1/signing-keys/ed25519:0000000000000000/retire')).status).toBe(404);
      expect((await asAdmin('POST', '/v1/signing-keys', { activate: 'yes' })).status).toBe(400);
      // Auditors cannot manage keys.
      const auditor = (await asAdmin('POST', '/v1/tokens', { name: 'aud', role: 'auditor' })).body.token;
      expect((await call(fresh.baseUrl, 'GET', '/v1/signing-keys', { token: auditor })).status).toBe(403);
      expect((await call(fresh.baseUrl, 'POST', '/v1/signing-keys', { token: auditor })).status).toBe(403);
    } finally {
      await fresh.close();
    }
  });

  it('with HOOKWARDEN_SIGNING_KEY configured, refuses to add or activate keys (409) and lists the configured one', async () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const configured = await startTestApi({ HOOKWARDEN_SIGNING_KEY: pem });
    try {
      const asAdmin = (method: string, p: string) =>
        call(configured.baseUrl, method, p, { token: configured.adminToken });
      const list = await asAdmin('GET', '/v1/signing-keys');
      expect(list.body.items).toHaveLength(1);
      expect(list.body.items[0]).toMatchObject({ status: 'active', source: 'config' });
      const kid = list.body.items[0].kid;
      const add = await asAdmin('POST', '/v1/signing-keys');
      expect(add.status).toBe(409);
      expect(add.body.error.message).toMatch(/HOOKWARDEN_SIGNING_KEY/);
      expect((await asAdmin('POST', `/v1/signing-keys/${kid}/activate`)).status).toBe(409);
      expect((await asAdmin('POST', `/v1/signing-keys/${kid}/retire`)).status).toBe(409);
      expect((await asAdmin('GET', '/v1/signing-keys')).body.items).toHaveLength(1);
    } finally {
      await configured.close();
    }
  });
});
