// Private signing keys at rest: sealed under the KEK (never plain text), legacy plain-text rows sealed at start, KEK
// rotation through HOOKWARDEN_KEK_PREVIOUS, a clear error for a missing KEK, and the configuration rules.
import { generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { promises as fs, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../apps/api/src/config/config.schema';
import { kekIdOf, seal, unseal } from '../../apps/api/src/signing/kek';
import { KeyVault, readKekFile } from '../../apps/api/src/signing/key-vault.service';
import { keyIdOf } from '../../apps/api/src/signing/signing.service';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, query, requirementsToml } from '../support/sync-factories';

const kekA = randomBytes(32).toString('base64');
const kekB = randomBytes(32).toString('base64');
let api: TestApi;

const rows = (on: TestApi) =>
  query<{ kid: string; private_key_sealed: string | null }>(
    on.db.url,
    'SELECT kid, private_key_sealed FROM signing_keys ORDER BY created_at',
  );

// Releases a fresh version in a new group through `on`; returns the release (key id, manifest, signature).
async function releaseOn(on: TestApi): Promise<any> {
  const { groupId, policyId } = await createGroupWithPolicy(on);
  const v = await createVersion(on, policyId, requirementsToml('/opt/hw-kek', randomBytes(4).toString('hex')), []);
  const rel = await call(on.baseUrl, 'POST', `/v1/groups/${groupId}/releases`, {
    token: on.adminToken,
    body: { policyVersionId: v.versionId },
  });
  expect(rel.status, JSON.stringify(rel.body)).toBe(201);
  const [row] = await query(on.db.url, 'SELECT manifest, signature, key_id FROM releases WHERE id = $1', [rel.body.id]);
  return row;
}

beforeAll(async () => {
  api = await startTestApi({ HOOKWARDEN_KEK: kekA });
});
afterAll(async () => {
  await api?.close();
});

describe('signing keys sealed at rest', () => {
  it('stores the generated key sealed under the KEK, never as a PEM', async () => {
    await releaseOn(api);
    const [row] = await rows(api);
    expect(row!.private_key_sealed).toMatch(new RegExp(`^hwkek1\\.${kekIdOf(Buffer.from(kekA, 'base64'))}\\.`));
    expect(row!.private_key_sealed).not.toContain('PRIVATE KEY');
    expect(unseal(row!.private_key_sealed!, row!.kid, [Buffer.from(kekA, 'base64')])).toContain('BEGIN PRIVATE KEY');
    // Bound to its row: the same sealed value under another key id does not open.
    expect(() => unseal(row!.private_key_sealed!, 'ed25519:other', [Buffer.from(kekA, 'base64')])).toThrow(/altered/);
  });

  it('seals a legacy plain-text row at start and signs with it; rotates to a new KEK with the old one as previous', async () => {
    // A row as an older release stored it: plain PEM, activated now (so it is the active key).
    const pair = generateKeyPairSync('ed25519');
    const kid = keyIdOf(pair.publicKey);
    await query(
      api.db.url,
      `INSERT INTO signing_keys (kid, public_key_pem, private_key_sealed, activated_at) VALUES ($1, $2, $3, now())`,
      [
        kid,
        pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      ],
    );
    const second = await startTestApi({ HOOKWARDEN_KEK: kekA }, { sameAs: api });
    try {
      const signed = await releaseOn(second);
      expect(signed.key_id).toBe(kid);
      expect(verify(null, Buffer.from(signed.manifest), pair.publicKey, Buffer.from(signed.signature, 'base64'))).toBe(
        true,
      );
      for (const r of await rows(api)) expect(r.private_key_sealed ?? 'hwkek1.').toMatch(/^hwkek1\./);
    } finally {
      await second.close();
    }

    // Rotation: the new KEK, the old one only to open; every row is re-sealed under the new one and still signs.
    const rotated = await startTestApi({ HOOKWARDEN_KEK: kekB, HOOKWARDEN_KEK_PREVIOUS: kekA }, { sameAs: api });
    try {
      expect((await releaseOn(rotated)).key_id).toBe(kid);
      const idB = kekIdOf(Buffer.from(kekB, 'base64'));
      for (const r of await rows(api)) expect(r.private_key_sealed ?? `hwkek1.${idB}.`).toMatch(`hwkek1.${idB}.`);
    } finally {
      await rotated.close();
    }

    // After the rotation the old KEK alone no longer opens the keys: a release is refused with a message naming it.
    const stale = await startTestApi({ HOOKWARDEN_KEK: kekA }, { sameAs: api });
    try {
      const { groupId, policyId } = await createGroupWithPolicy(stale);
      const v = await createVersion(stale, policyId, requirementsToml('/opt/hw-kek', 'stale'), []);
      const rel = await call(stale.baseUrl, 'POST', `/v1/groups/${groupId}/releases`, {
        token: stale.adminToken,
        body: { policyVersionId: v.versionId },
      });
      expect(rel.status).toBe(503);
      expect(rel.body.error.message).toMatch(/sealed under KEK [0-9a-f]{16}, which is not configured/);
      expect(JSON.stringify(rel.body)).not.toContain('PRIVATE');
    } finally {
      await stale.close();
    }
  });
});

describe('KEK configuration', () => {
  it('requires a KEK in production (unless the signing key is configured) and validates it', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/HOOKWARDEN_KEK: required in production/);
    expect(loadConfig({ NODE_ENV: 'production', HOOKWARDEN_KEK: kekA }).HOOKWARDEN_KEK).toBe(kekA);
    expect(() => loadConfig({ HOOKWARDEN_KEK: 'c2hvcnQ=' })).toThrow(/HOOKWARDEN_KEK: must be base64 of 32/);
    expect(() => loadConfig({ HOOKWARDEN_KEK: kekA, HOOKWARDEN_KEK_FILE: '/x' })).toThrow(/not both/);
    expect(loadConfig({ NODE_ENV: 'production', HOOKWARDEN_KEK_FILE: '/run/secrets/kek' }).HOOKWARDEN_KEK_FILE).toBe(
      '/run/secrets/kek',
    );
  });

  it('generates a development KEK file once, mode 0600, and reads it back; a missing file is an error otherwise', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hw-kek-'));
    const file = path.join(dir, 'sub', 'kek');
    const first = readKekFile(file, true);
    expect(first.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = readKekFile(file, true);
    expect(again.created).toBe(false);
    expect(again.kek.equals(first.kek)).toBe(true);
    expect(() => readKekFile(path.join(dir, 'absent'), false)).toThrow(/HOOKWARDEN_KEK_FILE .*absent: ENOENT/);
    await fs.writeFile(path.join(dir, 'bad'), 'not a key');
    expect(() => readKekFile(path.join(dir, 'bad'), false)).toThrow(/not base64|32 bytes/);
    expect(unseal(seal('x', 'k', first.kek), 'k', [first.kek])).toBe('x');
    await fs.rm(dir, { recursive: true, force: true });
  });
});

describe('other secrets under the KEK (SSO refresh tokens)', () => {
  const vault = (env: Record<string, string>) =>
    new KeyVault(loadConfig({ NODE_ENV: 'test', HOOKWARDEN_KEK: kekA, ...env }));

  it('seals bound to an owner; opens with the current or a previous KEK; refuses another owner, KEK or altered text', () => {
    const a = vault({});
    const sealed = a.sealSecret('refresh-token-value', 'owner-1');
    expect(sealed).toMatch(/^hwkek1\./);
    expect(sealed).not.toContain('refresh-token-value');
    expect(a.openSecret(sealed, 'owner-1')).toBe('refresh-token-value');
    expect(a.openSecret(sealed, 'owner-2')).toBeNull();
    // After a rotation the old KEK is a previous one: still opens; without it, nothing opens.
    expect(vault({ HOOKWARDEN_KEK: kekB, HOOKWARDEN_KEK_PREVIOUS: kekA }).openSecret(sealed, 'owner-1')).toBe(
      'refresh-token-value',
    );
    expect(vault({ HOOKWARDEN_KEK: kekB }).openSecret(sealed, 'owner-1')).toBeNull();
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(a.openSecret(parts.join('.'), 'owner-1')).toBeNull();
    expect(a.openSecret('v1.legacy.value.here', 'owner-1')).toBeNull();
    expect(a.openSecret('garbage', 'owner-1')).toBeNull();
  });
});
