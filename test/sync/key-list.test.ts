// Keys only move forward: real agent processes against a hostile server replaying old signed key lists. A list with
// a lower sequence, or issued too long ago, is refused, so a retired key (and a bundle forged with its private half)
// is never trusted again; a newer list is adopted.
import { promises as fs } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyListSigningPayload } from '@hookwarden/hook-core';
import { readCredentials } from '../../apps/agent-sync/src/state/credentials';
import { runAgent, visibleLayer } from '../support/agent';
import {
  FakeBundleServer,
  manifestObject,
  SigningKeyPair,
  signManifest,
  fakeEnrolledAgent,
} from '../support/fake-bundle-server';

const MANAGED = '/opt/hw-keys';
const retiredKey = new SigningKeyPair('ed25519:retired');
const currentKey = new SigningKeyPair('ed25519:current');
const newKey = new SigningKeyPair('ed25519:new');
const toml = `[hooks]\nmanaged_dir = "${MANAGED}"\n`;
let server: FakeBundleServer;
let tmp: string;
let root: string;
let stateDir: string;

// A key list signed by `signer`, as the server sends it.
function keyList(signer: SigningKeyPair, keys: SigningKeyPair[], sequence: number, issuedAt = new Date()) {
  const list = {
    keys: keys.map((k) => ({ kid: k.kid, publicKeyPem: k.publicKeyPem })),
    sequence,
    issuedAt: issuedAt.toISOString(),
  };
  return { ...list, keyId: signer.kid, signature: signer.sign(keyListSigningPayload(list).toString('utf8')) };
}

const once = () => runAgent(['run', '--once', '--state-dir', stateDir, '--root', root]);

beforeAll(async () => {
  server = new FakeBundleServer();
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  // The agent already adopted list 3, in which `retiredKey` was retired: it trusts only `currentKey`.
  ({ tmp, root, stateDir } = await fakeEnrolledAgent(server, currentKey, 'hw-keys-', { keyListSequence: 3 }));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('key list replay', () => {
  it('refuses an old list that still names a retired key, and the bundle forged with that key', async () => {
    server.keyList = keyList(currentKey, [retiredKey, currentKey], 2); // validly signed, but sequence 2 < 3
    server.bundle = signManifest(retiredKey, manifestObject(1, toml, [{ path: 'evil.sh', content: 'echo pwned\n' }]));
    const r = await once();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('sequence 2 is older than the held sequence 3 (replay)');
    expect(r.stderr).toContain('untrusted key ed25519:retired');
    expect(await visibleLayer(root, MANAGED)).toBeNull();
    expect((await readCredentials(stateDir))!.publicKeys.map((k) => k.kid)).toEqual([currentKey.kid]);
  });

  it('refuses a list issued longer ago than the bound, even with a higher sequence', async () => {
    server.keyList = keyList(currentKey, [retiredKey, currentKey], 9, new Date(Date.now() - 3 * 24 * 3600_000));
    server.bundle = signManifest(retiredKey, manifestObject(1, toml, []));
    const r = await once();
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/key list: issued at .* \(stale, replayed\?\)/);
    expect((await readCredentials(stateDir))!.keyListSequence).toBe(3);
  });

  it('refuses a list signed by a key it does not trust', async () => {
    server.keyList = keyList(retiredKey, [retiredKey, newKey], 4);
    server.bundle = signManifest(newKey, manifestObject(1, toml, []));
    const r = await once();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('key list: signed by untrusted key ed25519:retired');
  });

  it('adopts a newer fresh list signed by a trusted key and applies the bundle of the new key', async () => {
    server.keyList = keyList(currentKey, [currentKey, newKey], 4);
    server.bundle = signManifest(newKey, manifestObject(1, toml, [{ path: 'ok.sh', content: 'echo ok\n' }]));
    const r = await once();
    expect(r.code, r.stderr).toBe(0);
    expect(await visibleLayer(root, MANAGED)).toMatchObject({ 'ok.sh': '755:echo ok\n' });
    const creds = (await readCredentials(stateDir))!;
    expect(creds.keyListSequence).toBe(4);
    expect(creds.publicKeys.map((k) => k.kid)).toEqual([currentKey.kid, newKey.kid]);
  });
});
