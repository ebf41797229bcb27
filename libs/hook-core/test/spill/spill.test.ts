import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approxTokens, sanitizeSessionId, spillIfNeeded } from '../support/core';

/** 40,000 characters in 42-character lines (like the reference case ss_large_plain_40k). */
function big(n = 40_000): string {
  let s = '';
  let i = 0;
  while (s.length < n) s += `line ${i++} `.padEnd(41, '.') + '\n';
  return s.slice(0, n);
}
// A path of the same length as the reference run's, so the preview sizes are comparable.
const sessionId = '019a0000-0000-7000-8000-000000000000';
const uuid = (): string => '019a0000-0000-7000-8000-000000000001';

describe('spilling', () => {
  it('tokens are UTF-8 bytes / 4', () => {
    expect(approxTokens('a'.repeat(40_000))).toBe(10_000);
    expect(approxTokens('é')).toBe(1);
  });

  it('under the limit: unchanged, no file', async () => {
    const r = await spillIfNeeded('short', 2500, { tempDir: '/nonexistent', sessionId });
    expect(r).toMatchObject({ text: 'short', spilled: false });
  });

  it('limit 0: the full text, no file', async () => {
    const t = big();
    const r = await spillIfNeeded(t, 0, { tempDir: '/nonexistent', sessionId });
    expect(r.text).toBe(t);
  });

  it('40k at the default limit: file 0600 in dir 0700 holding the full text, reference-shaped preview', async () => {
    // Reference: 10,102 characters with its 116-character path; the preview is (limit*4 + 102) whatever the path.
    const tempDir = mkdtempSync(join(tmpdir(), 'hc-spill-'));
    const t = big();
    const r = await spillIfNeeded(t, 2500, { tempDir, sessionId, uuid });
    expect(r.spilled).toBe(true);
    const path = join(tempDir, 'hook_outputs', sessionId, `${uuid()}.txt`);
    expect(r.spillPath).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe(t);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(tempDir, 'hook_outputs', sessionId)).mode & 0o777).toBe(0o700);
    expect(
      r.text.startsWith('Warning: truncated output (original token count: 10000)\nTotal output lines: 953\n\n'),
    ).toBe(true);
    expect(r.text.endsWith(`\n\nFull hook output saved to: ${path}`)).toBe(true);
    expect(r.text).toMatch(/…\d+ tokens truncated…/);
    const footer = `\n\nFull hook output saved to: ${path}`.length;
    const expected =
      81 +
      (10_000 - Math.ceil(footer / 4) * 4) +
      `…${Math.ceil((40_000 - (10_000 - Math.ceil(footer / 4) * 4)) / 4)} tokens truncated…`.length +
      footer;
    expect(r.text.length).toBe(expected);
    // With the reference's path length (116) this is exactly its 10,102 characters.
    expect(81 + (10_000 - Math.ceil((30 + 116) / 4) * 4) + 23 + 30 + 116).toBe(10_102);
    expect(r.text.slice(81, 81 + 100)).toBe(t.slice(0, 100));
  });

  it('limit 1000 gives the reference 4,102-character shape', async () => {
    const tempDir = mkdtempSync(join(tmpdir(), 'hc-spill-'));
    const r = await spillIfNeeded(big(), 1000, { tempDir, sessionId, uuid });
    const footer = `\n\nFull hook output saved to: ${r.spillPath}`.length;
    expect(r.text.length).toBe(81 + (4000 - Math.ceil(footer / 4) * 4) + 23 + footer);
    expect(81 + (4000 - Math.ceil((30 + 116) / 4) * 4) + 23 + 30 + 116).toBe(4102);
  });

  it('when the file cannot be written: a truncated preview alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hc-spill-'));
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'not a dir');
    const r = await spillIfNeeded(big(), 2500, { tempDir: blocker, sessionId, uuid });
    expect(r.spilled).toBe(false);
    expect(r.spillError).toBeDefined();
    expect(r.text).toContain('tokens truncated');
    expect(r.text).not.toContain('Full hook output saved to');
    expect(r.text.length).toBeLessThan(10_200);
  });

  it('session ids cannot escape the temp dir', async () => {
    expect(sanitizeSessionId('../../etc')).toBe('.._.._etc');
    expect(sanitizeSessionId('..')).toBe('___');
    expect(sanitizeSessionId('a/b\\c')).toBe('a_b_c');
    const tempDir = mkdtempSync(join(tmpdir(), 'hc-spill-'));
    const r = await spillIfNeeded(big(), 100, { tempDir, sessionId: '../../x', uuid });
    expect(r.spillPath!.startsWith(join(tempDir, 'hook_outputs') + '/')).toBe(true);
  });
});
