// The contract shared by the API and the agent: manifest schema and digest, key list, capture settings, wire limits.
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ASSIGNMENT_KIND,
  assignmentText,
  boundStatusErrors,
  buildManifest,
  bundleManifestSchema,
  captureSettingsSchema,
  DEFAULT_CAPTURE_SETTINGS,
  KEY_LIST_KIND,
  keyListSchema,
  keyListSigningPayload,
  manifestDigest,
  parseErrorBody,
  serializeManifest,
  verifyAssignment,
  STATUS_MAX_ERROR_CHARS,
  STATUS_MAX_ERRORS,
} from '../support/core';

describe('bundle manifest', () => {
  const manifest = buildManifest({
    group: { id: 'g', name: 'default' },
    policyId: 'p',
    policyVersion: 3,
    policyVersionId: 'pv',
    revision: 7,
    issuedAt: new Date('2026-12-01T00:00:00Z'),
    requirementsToml: 'allow_managed_hooks_only = true\n',
    files: [
      { path: 'b.sh', content: Buffer.from('b'), mode: 0o100755 },
      { path: 'a.sh', content: Buffer.from('a'), mode: 0o644 },
    ],
  });

  it('builds what its own schema accepts: files sorted, modes reduced to permission bits', () => {
    expect(bundleManifestSchema.parse(JSON.parse(serializeManifest(manifest)))).toEqual(manifest);
    expect(manifest.files.map((f) => [f.path, f.mode])).toEqual([
      ['a.sh', 0o644],
      ['b.sh', 0o755],
    ]);
  });

  it('digest is sha256 of the canonical text, stable across key order', () => {
    const text = serializeManifest(manifest);
    expect(manifestDigest(text)).toMatch(/^sha256:[0-9a-f]{64}$/);
    const { files, ...rest } = manifest;
    const reordered = JSON.parse(JSON.stringify({ files, ...rest })) as typeof manifest;
    expect(serializeManifest(reordered)).toBe(text);
  });
});

describe('key list', () => {
  it('the signature covers the keys, the sequence and the issue time (a changed sequence does not verify)', () => {
    const pair = generateKeyPairSync('ed25519');
    const keys = [
      { kid: 'ed25519:1', publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    ];
    const body = { keys, sequence: 3, issuedAt: '2026-12-01T12:00:00.000Z' };
    const signature = sign(null, keyListSigningPayload(body), pair.privateKey).toString('base64');
    const list = keyListSchema.parse({ ...body, keyId: 'ed25519:1', signature });
    expect(verify(null, keyListSigningPayload(list), pair.publicKey, Buffer.from(list.signature, 'base64'))).toBe(true);
    const replayed = { ...list, sequence: 4 };
    expect(verify(null, keyListSigningPayload(replayed), pair.publicKey, Buffer.from(list.signature, 'base64'))).toBe(
      false,
    );
    expect(JSON.parse(keyListSigningPayload(list).toString('utf8'))).toMatchObject({ kind: KEY_LIST_KIND });
    expect(keyListSchema.safeParse({ keys: [{ kid: '' }], keyId: 'x', signature: 's' }).success).toBe(false);
    expect(keyListSchema.safeParse({ keys, keyId: 'x', signature: 's' }).success).toBe(false); // no sequence
  });
});

describe('assignment statement', () => {
  it('round-trips signed canonical text and refuses tampering, unknown keys and other kinds', () => {
    const pair = generateKeyPairSync('ed25519');
    const trusted = [{ kid: 'k', publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() }];
    const statement = assignmentText({
      kind: ASSIGNMENT_KIND,
      format: 1,
      endpointId: 'e',
      groupId: 'g',
      epoch: 2,
      minRevision: null,
      issuedAt: '2026-12-01T12:00:00.000Z',
    });
    const signature = sign(null, Buffer.from(statement), pair.privateKey).toString('base64');
    expect(verifyAssignment({ statement, signature, keyId: 'k' }, trusted)).toMatchObject({ groupId: 'g', epoch: 2 });
    const tampered = statement.replace('"g"', '"h"');
    expect(() => verifyAssignment({ statement: tampered, signature, keyId: 'k' }, trusted)).toThrow(/bad signature/);
    expect(() => verifyAssignment({ statement, signature, keyId: 'x' }, trusted)).toThrow(/untrusted key x/);
    const manifestLike = '{"format":1}';
    const s2 = sign(null, Buffer.from(manifestLike), pair.privateKey).toString('base64');
    expect(() => verifyAssignment({ statement: manifestLike, signature: s2, keyId: 'k' }, trusted)).toThrow(/kind/);
  });
});

describe('capture settings', () => {
  it('one set of names and defaults', () => {
    expect(captureSettingsSchema.parse(DEFAULT_CAPTURE_SETTINGS)).toEqual({
      capture: 'excerpts',
      maxExcerptBytes: 2048,
      redactPatterns: [],
      useDefaultRedact: true,
      inventoryCommands: 'program',
    });
  });

  it('accepts every pattern the engine compiles (inline (?i: groups included) and refuses the others', () => {
    const ok = { ...DEFAULT_CAPTURE_SETTINGS, redactPatterns: ['(?i:corp)-[0-9]+'] };
    expect(captureSettingsSchema.safeParse(ok).success).toBe(true);
    const bad = captureSettingsSchema.safeParse({ ...DEFAULT_CAPTURE_SETTINGS, redactPatterns: ['('] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['redactPatterns', 0]);
    expect(captureSettingsSchema.safeParse({ ...DEFAULT_CAPTURE_SETTINGS, maxExcerptBytes: 65_537 }).success).toBe(
      false,
    );
  });
});

describe('wire', () => {
  it('status errors are cut to what the API accepts', () => {
    const long = 'x'.repeat(10_000);
    const out = boundStatusErrors([long, ...Array.from({ length: 80 }, (_, i) => `e${i}`)]);
    expect(out).toHaveLength(STATUS_MAX_ERRORS);
    expect(out.every((e) => e.length <= STATUS_MAX_ERROR_CHARS)).toBe(true);
    expect(out[0]).toMatch(/^x+ …\[10000 characters, cut\]$/);
    expect(out.at(-1)).toBe('… 32 more errors');
    // A surrogate pair is never split.
    const emoji = boundStatusErrors(['😀'.repeat(3000)])[0]!;
    expect(emoji.length).toBeLessThanOrEqual(STATUS_MAX_ERROR_CHARS);
    expect(emoji.endsWith('characters, cut]')).toBe(true);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(emoji)).toBe(false);
  });

  it('error bodies parse to code and message; anything else is not an error body', () => {
    expect(parseErrorBody({ error: { code: 'conflict', message: 'no', requestId: '1' } })).toMatchObject({
      code: 'conflict',
      message: 'no',
    });
    expect(parseErrorBody({ error: 'nope' })).toBeNull();
    expect(parseErrorBody('<html>')).toBeNull();
  });
});
