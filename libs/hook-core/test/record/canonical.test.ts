// The per-event sha256 and ids (record/canonical): the JavaScript SHA-256 used for small inputs gives node:crypto's
// digest, at every length around the padding boundaries and on the FIPS 180-4 vectors; ids are RFC 4122 version 4.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { osRandomBytes, randomUuid, sha256Hex, sha256Small, SMALL_INPUT_BYTES } from '../../src/record/canonical';

const nodeSha = (d: string | Uint8Array): string => createHash('sha256').update(d).digest('hex');

describe('sha256 for small inputs', () => {
  it('matches the FIPS 180-4 vectors', () => {
    expect(sha256Small(Buffer.from(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Small(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Small(Buffer.from('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('matches node:crypto at every length from 0 to 300 bytes and on random inputs up to the bound', () => {
    for (let n = 0; n <= 300; n++) {
      const b = randomBytes(n);
      expect(sha256Small(b)).toBe(nodeSha(b));
    }
    for (const n of [1023, 1024, 4095, 8191, SMALL_INPUT_BYTES - 1, SMALL_INPUT_BYTES]) {
      const b = randomBytes(n);
      expect(sha256Small(b)).toBe(nodeSha(b));
    }
  });

  it('hashes strings as UTF-8, below and above the small-input bound, and byte views at an offset', () => {
    for (const s of ['', 'é', '日本語 ✓ 🎉', 'x'.repeat(5000), '€'.repeat(6000), 'y'.repeat(100_000)])
      expect(sha256Hex(s)).toBe(nodeSha(s));
    const big = randomBytes(SMALL_INPUT_BYTES + 10);
    expect(sha256Hex(big)).toBe(nodeSha(big));
    const view = big.subarray(3, 200);
    expect(sha256Hex(view)).toBe(nodeSha(view));
  });
});

describe('random ids', () => {
  it('are version 4 UUIDs, all different', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = randomUuid();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
  });

  it('reads the number of bytes asked for', () => {
    expect(osRandomBytes(0)).toHaveLength(0);
    expect(osRandomBytes(33)).toHaveLength(33);
    expect(osRandomBytes(16).equals(osRandomBytes(16))).toBe(false);
  });
});
