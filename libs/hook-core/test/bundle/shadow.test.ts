// Shadow bundles (issue 27): the relocation of a version into the shadow directory, the domain-separated signature
// (a shadow bundle never verifies as the managed layer, nor the reverse) and the content rules of each layer.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkBundleText, managedDirProblem, SHADOW_MANAGED_DIRS } from '../../src/bundle/content';
import { buildManifest, serializeManifest } from '../../src/bundle/manifest';
import { bundleSigningText, SHADOW_SIGNING_CONTEXT, shadowRequirementsToml } from '../../src/bundle/shadow';
import { verifyBundle, verifyShadowBundle } from '../../src/bundle/verify';
import { rejection } from '../support/rejection';
import { parsePolicyToml } from '../../src/policy/parse';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const trusted = [{ kid: 'k1', publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }];

const VERSION = `[hooks]
managed_dir = "/opt/hw"
windows_managed_dir = 'C:\\hw'

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "/opt/hw/guard.sh --strict /opt/hw-old/x /srv/opt/hw/y"
command_windows = 'py -3 C:\\HW\\guard.py C:/hw/lib'
timeout = 5
`;

// A signed bundle: `signAs` picks the signing context, `shadow` the manifest's shadow release.
function bundle(toml: string, opts: { signAs: 'managed' | 'shadow'; shadow?: string; revision?: number }) {
  const manifest = serializeManifest(
    buildManifest({
      group: { id: 'g', name: 'default' },
      policyId: 'p',
      policyVersion: 1,
      policyVersionId: 'pv',
      revision: opts.revision ?? 4,
      issuedAt: new Date('2026-12-01T00:00:00Z'),
      requirementsToml: toml,
      files: [{ path: 'guard.sh', content: Buffer.from('#!/bin/sh\nexit 0\n'), mode: 0o755 }],
      ...(opts.shadow ? { shadow: { releaseId: opts.shadow } } : {}),
    }),
  );
  const signature = sign(null, Buffer.from(bundleSigningText(manifest, opts.signAs)), privateKey).toString('base64');
  return { manifest, signature, keyId: 'k1', releaseId: opts.shadow };
}

describe('shadowRequirementsToml', () => {
  it('moves both managed directories into the shadow directory and rewrites the commands naming them', () => {
    const text = shadowRequirementsToml(VERSION);
    const parsed = parsePolicyToml(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.policy.hooks?.managed_dir).toBe('/etc/zerotwo/shadow/managed');
    expect(parsed.policy.hooks?.windows_managed_dir).toBe(SHADOW_MANAGED_DIRS.win32);
    const handler = (parsed.policy.hooks as any).PreToolUse[0].hooks[0];
    // Whole paths only: /opt/hw-old and /srv/opt/hw are other directories.
    expect(handler.command).toBe('/etc/zerotwo/shadow/managed/guard.sh --strict /opt/hw-old/x /srv/opt/hw/y');
    // Windows paths compare case-insensitively, with either separator.
    expect(handler.command_windows).toBe(
      'py -3 C:\\ProgramData\\ZeroTwo\\shadow\\managed\\guard.py C:\\ProgramData\\ZeroTwo\\shadow\\managed/lib',
    );
    expect(handler.timeout).toBe(5);
    expect((parsed.policy.hooks as any).PreToolUse[0].matcher).toBe('^Bash$');
  });

  it('leaves a version without managed directories as it is, and refuses one that is not a policy', () => {
    const plain = '[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/usr/bin/true"\n';
    expect(parsePolicyToml(shadowRequirementsToml(plain))).toMatchObject({ ok: true });
    expect(shadowRequirementsToml(plain)).toContain('/usr/bin/true');
    expect(() => shadowRequirementsToml('[hooks\n')).toThrow(/requirements\.toml/);
  });
});

describe('shadow bundle verification', () => {
  const shadowToml = shadowRequirementsToml(VERSION);

  it('verifies a shadow bundle as the shadow layer, naming its release', () => {
    const v = verifyShadowBundle(bundle(shadowToml, { signAs: 'shadow', shadow: 'rel-1' }), trusted, 'linux');
    expect(v).toMatchObject({ layer: 'shadow', shadowReleaseId: 'rel-1', managedDir: '/etc/zerotwo/shadow/managed' });
    expect(v.files.map((f) => f.path)).toEqual(['guard.sh']);
  });

  it('never verifies a shadow bundle as the managed layer, nor a managed bundle as the shadow layer', () => {
    const shadow = bundle(shadowToml, { signAs: 'shadow', shadow: 'rel-1' });
    expect(rejection(() => verifyBundle(shadow, trusted, null, null, 'linux'))).toMatch(
      /signed as a shadow bundle, refused as the managed layer/,
    );
    const managed = bundle(VERSION, { signAs: 'managed' });
    expect(rejection(() => verifyShadowBundle(managed, trusted, 'linux'))).toMatch(
      /signed as a managed bundle, refused as the shadow layer/,
    );
    // The signed manifest says which it is, too: a shadow manifest signed as managed is still refused as managed.
    const mislabeled = bundle(shadowToml, { signAs: 'managed', shadow: 'rel-1' });
    expect(rejection(() => verifyBundle(mislabeled, trusted, null, null, 'linux'))).toMatch(
      /a shadow bundle is not the managed layer/,
    );
    const unnamed = bundle(shadowToml, { signAs: 'shadow' });
    expect(rejection(() => verifyShadowBundle(unnamed, trusted, 'linux'))).toMatch(/names no shadow release/);
    // The served release id must be the signed one.
    const relabeled = { ...bundle(shadowToml, { signAs: 'shadow', shadow: 'rel-1' }), releaseId: 'rel-2' };
    expect(rejection(() => verifyShadowBundle(relabeled, trusted, 'linux'))).toMatch(/shadow release rel-1/);
    // An old agent checks the signature over the manifest text alone: the shadow context makes it fail there.
    expect(SHADOW_SIGNING_CONTEXT.startsWith('{')).toBe(false);
  });

  it('refuses a validly signed shadow bundle whose managed_dir is the enforced one (or anything outside shadow/)', () => {
    const hostile = bundle(VERSION, { signAs: 'shadow', shadow: 'rel-1' });
    expect(rejection(() => verifyShadowBundle(hostile, trusted, 'linux'))).toMatch(
      /managed_dir "\/opt\/hw" is outside the shadow directory/,
    );
  });
});

describe('content rules per layer', () => {
  it('keeps managed bundles out of the shadow directory', () => {
    expect(managedDirProblem('/etc/zerotwo/shadow/managed', 'posix')?.message).toMatch(/would replace shadow/);
    expect(managedDirProblem('C:\\ProgramData\\ZeroTwo\\Shadow\\x', 'win32')?.message).toMatch(/would replace/);
    expect(managedDirProblem('/etc/zerotwo/other', 'posix')).toBeNull();
  });

  it('confines shadow bundles to the shadow directory, away from its own files', () => {
    const shadow = (dir: string, platform: 'posix' | 'win32' = 'posix') =>
      managedDirProblem(dir, platform, undefined, 'shadow');
    expect(shadow('/etc/zerotwo/shadow/managed')).toBeNull();
    expect(shadow('/etc/zerotwo/shadow/managed/deeper')).toBeNull();
    expect(shadow(SHADOW_MANAGED_DIRS.win32, 'win32')).toBeNull();
    expect(shadow('/etc/zerotwo/shadow')?.code).toBe('shadow_managed_dir');
    expect(shadow('/etc/zerotwo/shadow/.hookwarden-layer')?.message).toMatch(/belongs to the agent/);
    expect(shadow('/etc/zerotwo/shadow/shadow-release.json')?.message).toMatch(/belongs to the agent/);
    expect(shadow('/etc/zerotwo/managed')?.message).toMatch(/outside the shadow directory/);
    expect(shadow('/opt/hw')?.message).toMatch(/outside the shadow directory/);
    // The general rules still hold.
    expect(shadow('/tmp/x')?.code).toBe('managed_dir_overlap');
    expect(checkBundleText(shadowRequirementsToml(VERSION), [], { layer: 'shadow' })).toEqual([]);
    expect(checkBundleText(shadowRequirementsToml(VERSION), []).map((p) => p.code)).toEqual([
      'managed_dir_overlap',
      'managed_dir_overlap',
    ]);
  });
});
