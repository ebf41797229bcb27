// Bearer-enrolled endpoints migrate to their own key on their next start, through a real hookwarden-agent process and
// real HTTP: the key file appears (0600), the bearer is refused from then on, signed requests work; a crash between
// the server accepting the key and the agent storing it is safe.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateProofPayload, signEndpointProof } from '@hookwarden/hook-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENDPOINT_KEY_FILE,
  newEndpointKey,
  PENDING_KEY_FILE,
  readEndpointKey,
  storeEndpointKey,
} from '../../apps/agent-sync/src/state/endpoint-key';
import { SigningService } from '../../apps/api/src/signing/signing.service';
import { runAgent } from '../support/agent';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoints, type TestEndpoint } from '../support/audit-factories';
import { call } from '../support/http';
import { SignedAgent } from '../support/identity';
import { query } from '../support/sync-factories';

let api: TestApi;
let tmp: string;

beforeAll(async () => {
  api = await startTestApi();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-migrate-'));
});
afterAll(async () => {
  await api?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

// A legacy endpoint as the old code left it: its row with a bearer hash and credentials.json with the bearer.
async function legacyAgent(name: string): Promise<{ ep: TestEndpoint; root: string; stateDir: string }> {
  const [ep] = await createEndpoints(api.db.url, 1);
  const root = path.join(tmp, name, 'root');
  const stateDir = path.join(tmp, name, 'state');
  await fs.mkdir(root, { recursive: true });
  await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
  const publicKeys = await api.app.get(SigningService).trustedKeys();
  const creds = {
    serverUrl: api.baseUrl,
    endpointId: ep!.id,
    groupId: ep!.groupId,
    credential: ep!.credential,
    machineId: `m-${ep!.id}`,
    publicKeys,
    enrolledAt: new Date().toISOString(),
  };
  await fs.writeFile(path.join(stateDir, 'credentials.json'), JSON.stringify(creds, null, 2), { mode: 0o600 });
  return { ep: ep!, root, stateDir };
}

const bearerBundle = (credential: string) => call(api.baseUrl, 'GET', '/v1/agent/bundle', { token: credential });

// Checks the migrated state: key file 0600, no bearer in credentials.json, the server holds the key, bearer refused,
// signed requests work.
async function expectMigrated(a: { ep: TestEndpoint; stateDir: string }): Promise<void> {
  const st = await fs.stat(path.join(a.stateDir, ENDPOINT_KEY_FILE));
  expect(st.mode & 0o777).toBe(0o600);
  await expect(fs.stat(path.join(a.stateDir, PENDING_KEY_FILE))).rejects.toThrow();
  const creds = JSON.parse(await fs.readFile(path.join(a.stateDir, 'credentials.json'), 'utf8'));
  expect(creds).not.toHaveProperty('credential');
  const key = (await readEndpointKey(a.stateDir))!;
  const [row] = await query(api.db.url, 'SELECT key_id, credential_hash, admission FROM endpoints WHERE id = $1', [
    a.ep.id,
  ]);
  expect(row).toEqual({ key_id: key.keyId, credential_hash: null, admission: 'active' });
  const refused = await bearerBundle(a.ep.credential);
  expect(refused.status).toBe(401);
  expect(refused.body.error.code).toBe('signature_required');
  const signed = new SignedAgent(api.baseUrl, a.ep.id, a.ep.groupId, key);
  expect((await signed.call('GET', '/v1/agent/bundle')).status).toBe(204);
  expect((await signed.call('GET', '/v1/agent/assignment')).status).toBe(200);
}

describe('bearer → endpoint key migration', () => {
  it('`run --once` registers a key, retires the bearer, and keeps working signed (again on the next run)', async () => {
    const a = await legacyAgent('plain');
    expect((await bearerBundle(a.ep.credential)).status).toBe(204);
    const r = await runAgent(['run', '--once', '--state-dir', a.stateDir, '--root', a.root, '--no-inventory']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('registered the endpoint key');
    await expectMigrated(a);
    const audit = await query(api.db.url, `SELECT action FROM audit_log WHERE target_id = $1`, [a.ep.id]);
    expect(audit.map((x) => x.action)).toContain('endpoint.key_migrate');
    const again = await runAgent(['run', '--once', '--state-dir', a.stateDir, '--root', a.root, '--no-inventory']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('registered the endpoint key');
    await expectMigrated(a);
  });

  it('a crash after the server took the key: the pending key is recognised and promoted', async () => {
    const a = await legacyAgent('crashed');
    const pending = newEndpointKey();
    await storeEndpointKey(a.stateDir, pending, PENDING_KEY_FILE);
    // The server accepted the key (as if the agent died before renaming the file).
    const accepted = await call(api.baseUrl, 'POST', '/v1/agent/key', {
      token: a.ep.credential,
      body: {
        publicKey: pending.publicKeyPem,
        proof: signEndpointProof(
          pending.privateKey,
          'migrate',
          migrateProofPayload({ endpointId: a.ep.id, publicKey: pending.publicKeyPem }),
        ),
      },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ endpointId: a.ep.id, keyId: pending.keyId });
    expect((await bearerBundle(a.ep.credential)).status).toBe(401);
    const r = await runAgent(['run', '--once', '--state-dir', a.stateDir, '--root', a.root, '--no-inventory']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('already accepted the pending key');
    await expectMigrated(a);
    expect((await readEndpointKey(a.stateDir))!.keyId).toBe(pending.keyId);
  });

  it('a crash before the server took the key: the same pending key is registered', async () => {
    const a = await legacyAgent('early');
    const pending = newEndpointKey();
    await storeEndpointKey(a.stateDir, pending, PENDING_KEY_FILE);
    const r = await runAgent(['run', '--once', '--state-dir', a.stateDir, '--root', a.root, '--no-inventory']);
    expect(r.code, r.stderr).toBe(0);
    await expectMigrated(a);
    expect((await readEndpointKey(a.stateDir))!.keyId).toBe(pending.keyId);
  });

  it('POST /v1/agent/key refuses a proof that does not verify and a second, different key', async () => {
    const [ep] = await createEndpoints(api.db.url, 1);
    const k1 = newEndpointKey();
    const k2 = newEndpointKey();
    const proof = (k: typeof k1) =>
      signEndpointProof(
        k.privateKey,
        'migrate',
        migrateProofPayload({ endpointId: ep!.id, publicKey: k.publicKeyPem }),
      );
    const wrong = await call(api.baseUrl, 'POST', '/v1/agent/key', {
      token: ep!.credential,
      body: { publicKey: k1.publicKeyPem, proof: proof(k2) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].path).toBe('$.proof');
    expect((await bearerBundle(ep!.credential)).status).toBe(204);
    const ok = await call(api.baseUrl, 'POST', '/v1/agent/key', {
      token: ep!.credential,
      body: { publicKey: k1.publicKeyPem, proof: proof(k1) },
    });
    expect(ok.status).toBe(200);
    // The bearer is dead: nothing more can be registered with it; the signed endpoint cannot swap its key either.
    const signed = new SignedAgent(api.baseUrl, ep!.id, ep!.groupId, k1);
    const swap = await signed.call('POST', '/v1/agent/key', { body: { publicKey: k2.publicKeyPem, proof: proof(k2) } });
    expect(swap.status).toBe(409);
    const same = await signed.call('POST', '/v1/agent/key', { body: { publicKey: k1.publicKeyPem, proof: proof(k1) } });
    expect(same.status).toBe(200);
  });
});
