// The per-event sha256 and ids (record/canonical): the JavaScript SHA-256 used for small inputs gives node:crypto's
// digest, at every length around the padding boundaries and on the FIPS 180-4 vectors; a short process hashes in
// JavaScript without loading node:crypto, a process that hashes a lot (or has node:crypto already) hashes natively;
// ids are RFC 4122 version 4.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  JS_BUDGET_BYTES,
  osRandomBytes,
  randomUuid,
  sha256Hex,
  sha256Small,
  SMALL_INPUT_BYTES,
} from '../../src/record/canonical';

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

describe('where a process hashes', () => {
  const repo = resolve(__dirname, '../../../..');
  const compiled = resolve(repo, 'libs/hook-core/dist/record/canonical.js');
  beforeAll(() => {
    execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: repo, stdio: 'ignore' });
  }, 120_000);
  // Runs `body` as a script file in a fresh Node process (`node -e` loads node:crypto itself), the compiled module as
  // `c`; returns what it pushed to `out`.
  const inProcess = (body: string): unknown => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-canonical-'));
    try {
      const script = join(dir, 'hash.cjs');
      writeFileSync(
        script,
        `const c = require(${JSON.stringify(compiled)});\nconst out = [];\n${body}\nconsole.log(JSON.stringify(out));\n`,
      );
      return JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const loaded = "process.moduleLoadList.includes('NativeModule crypto')";

  it('a hook event (a few small texts) does not load node:crypto; a process past the budget does, same digests', () => {
    const [few, past, digests] = inProcess(`
      const texts = ['abc', 'x'.repeat(2000), '日本語'];
      const a = texts.map((t) => c.sha256Hex(t));
      out.push(${loaded});
      let n = 0;
      while (!${loaded}) { c.sha256Hex('y'.repeat(1000) + n); n++; if (n > 10000) break; }
      out.push(n);
      out.push([...a, ...texts.map((t) => c.sha256Hex(t))]);
    `) as [boolean, number, string[]];
    expect(few).toBe(false);
    // Strings count as up to 3 bytes per UTF-16 unit: the switch comes once about JS_BUDGET_BYTES were hashed.
    expect(past).toBeGreaterThan(Math.floor(JS_BUDGET_BYTES / 3003) - 2);
    expect(past).toBeLessThanOrEqual(Math.ceil(JS_BUDGET_BYTES / 3003) + 1);
    const expected = ['abc', 'x'.repeat(2000), '日本語'].map((t) => nodeSha(t));
    expect(digests).toEqual([...expected, ...expected]);
  });

  it('a process that loaded node:crypto hashes natively from the first input', () => {
    const [, before, after] = inProcess(`
      require('node:crypto');
      const k = require('node:crypto').createHash;
      let calls = 0;
      require('node:crypto').createHash = (...a) => { calls++; return k(...a); };
      out.push(c.sha256Hex('abc'));
      out.push(calls);
      c.sha256Hex('def');
      out.push(calls);
    `) as [string, number, number];
    expect(before).toBe(1);
    expect(after).toBe(2);
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
