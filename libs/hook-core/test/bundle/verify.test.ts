// Bundle verification (hook-core's one implementation; the agent verifies every bundle with it).
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildManifest, serializeManifest } from '../../src/bundle/manifest';
import { managedDirOf, verifyBundle } from '../../src/bundle/verify';
import { rejection } from '../support/rejection';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const trusted = [{ kid: 'k1', publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }];

// A signed bundle of one script at `revision`, its manifest text optionally edited before signing.
function bundle(revision: number, edit: (text: string) => string = (t) => t) {
  const manifest = edit(
    serializeManifest(
      buildManifest({
        group: { id: 'g', name: 'default' },
        policyId: 'p',
        policyVersion: 1,
        policyVersionId: 'pv',
        revision,
        issuedAt: new Date('2026-12-01T00:00:00Z'),
        requirementsToml: '[hooks]\nmanaged_dir = "/opt/hw"\nwindows_managed_dir = \'C:\\hw\'\n',
        files: [{ path: 'check.sh', content: Buffer.from('#!/bin/sh\n'), mode: 0o755 }],
      }),
    ),
  );
  const signature = sign(null, Buffer.from(manifest), privateKey).toString('base64');
  return { manifest, signature, keyId: 'k1' };
}

describe('verifyBundle', () => {
  it('returns the decoded content of a bundle signed by a trusted key', () => {
    const v = verifyBundle(bundle(3), trusted, null, null, 'linux');
    expect(v.revision).toBe(3);
    expect(v.managedDir).toBe('/opt/hw');
    expect(v.files.map((f) => [f.path, f.mode, f.content.toString()])).toEqual([['check.sh', 0o755, '#!/bin/sh\n']]);
    expect(verifyBundle(bundle(3), trusted, null, null, 'win32').managedDir).toBe('C:\\hw');
  });

  it('refuses untrusted keys, bad signatures, replays and content that does not match its hashes', () => {
    expect(rejection(() => verifyBundle({ ...bundle(1), keyId: 'other' }, trusted, null, null))).toMatch(/untrusted/);
    const forged = { ...bundle(1), manifest: bundle(2).manifest };
    expect(rejection(() => verifyBundle(forged, trusted, null, null))).toMatch(/bad signature/);
    expect(rejection(() => verifyBundle(bundle(1), trusted, 2, null))).toMatch(/replay/);
    expect(rejection(() => verifyBundle(bundle(2), trusted, 2, 'sha256:other'))).toMatch(/already applied/);
    const tampered = bundle(1, (t) => t.replace('"size":10', '"size":11'));
    expect(rejection(() => verifyBundle(tampered, trusted, null, null))).toMatch(/size/);
    expect(rejection(() => verifyBundle({ nope: 1 }, trusted, null, null))).toMatch(/not a signed bundle/);
  });

  it('reads managed_dir per platform', () => {
    expect(managedDirOf('[hooks]\nmanaged_dir = "/x"\n', 'darwin')).toBe('/x');
    expect(managedDirOf('[hooks]\nmanaged_dir = "/x"\n', 'win32')).toBeNull();
  });
});
