// The console's pure rules: ring counts, the enroll command, file encoding, checkpoint signatures.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../src/api/client';
import { canonicalJson } from '@hookwarden/hook-core/browser';
import { type Checkpoint, checkSignature } from '../src/checkpoint';
import { enrollCommand, ringCounts } from '../src/domain';
import { asText, fileFromBytes, fromBase64, octal, toBase64 } from '../src/files';

describe('ringCounts', () => {
  it("counts the rollout's own revision and sums the others", () => {
    const rollout = {
      release: { id: 'r2', revision: 2 },
      rings: [],
      gate: {},
    } as unknown as Schemas['RolloutDto'];
    const ring = {
      ring: 0,
      percent: 50,
      active: true,
      versions: [
        { releaseId: 'r1', revision: 1, policyVersion: 1, assigned: 3, applied: 3, failed: 0, stale: 0 },
        { releaseId: 'r2', revision: 2, policyVersion: 2, assigned: 4, applied: 2, failed: 1, stale: 1 },
      ],
    };
    expect(ringCounts(rollout, ring)).toEqual({ assigned: 4, applied: 2, failed: 1, stale: 1, others: 3 });
    expect(ringCounts(rollout, { ...ring, versions: [] })).toEqual({
      assigned: 0,
      applied: 0,
      failed: 0,
      stale: 0,
      others: 0,
    });
  });
});

describe('enrollCommand', () => {
  it('is the exact agent command for the server', () => {
    expect(enrollCommand('hws_abc', 'https://hw.example:8443')).toBe(
      'hookwarden-agent enroll --server https://hw.example:8443 --secret hws_abc',
    );
  });
});

describe('files', () => {
  it('keeps UTF-8 text as text and anything else (NUL, invalid UTF-8) as base64, losslessly', () => {
    expect(fileFromBytes('a.sh', 0o755, new TextEncoder().encode('#!/bin/sh\necho é\n'))).toEqual({
      path: 'a.sh',
      mode: 0o755,
      encoding: 'utf8',
      content: '#!/bin/sh\necho é\n',
    });
    const binary = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0xff, 0xfe]);
    const f = fileFromBytes('bin', 0o644, binary);
    expect(f.encoding).toBe('base64');
    expect([...fromBase64(f.content)]).toEqual([...binary]);
    expect(asText(new Uint8Array([0xc3, 0x28]))).toBeNull();
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    expect([...fromBase64(toBase64(big))]).toEqual([...big]);
    expect(octal(0o755)).toBe('755');
    expect(octal(0o44)).toBe('044');
  });
});

describe('checkpoint signatures', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const body = {
    kind: 'hookwarden.audit-log.checkpoint' as const,
    seq: '42',
    hash: 'sha256:ab',
    at: '2026-12-01T00:00:00.000Z',
  };
  const signature = sign(null, Buffer.from(canonicalJson(body)), privateKey).toString('base64');
  const checkpoint: Checkpoint = { ...body, keyId: 'ed25519:k1', signature };
  const keys = [{ kid: 'ed25519:k1', publicKeyPem: pem }];

  it('canonical JSON sorts keys and drops undefined, like the server', () => {
    expect(canonicalJson({ b: 1, a: [2, { d: undefined, c: 'x' }] })).toBe('{"a":[2,{"c":"x"}],"b":1}');
  });

  it('accepts a checkpoint signed by a trusted key, refuses a tampered one, cannot check an unknown key', async () => {
    expect(await checkSignature(checkpoint, keys)).toBe(true);
    expect(await checkSignature({ ...checkpoint, seq: '43' }, keys)).toBe(false);
    expect(await checkSignature({ ...checkpoint, keyId: 'ed25519:other' }, keys)).toBeNull();
  });
});
