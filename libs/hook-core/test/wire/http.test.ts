// The HTTP rules every client shares: the one error-body decoder and the one Retry-After rule.
import { describe, expect, it } from 'vitest';
import { parseErrorBody, parseRetryAfter } from '@hookwarden/hook-core/http';

describe('parseErrorBody', () => {
  it('decodes the error body with its details and request id', () => {
    expect(
      parseErrorBody({ error: { code: 'conflict', message: 'no', details: [{ message: 'x' }], requestId: 'r1' } }),
    ).toEqual({
      code: 'conflict',
      message: 'no',
      details: [{ message: 'x' }],
      requestId: 'r1',
    });
  });

  it('refuses what is not the error body', () => {
    for (const v of [
      null,
      'x',
      1,
      {},
      { error: 'nope' },
      { error: { code: 1, message: 'm' } },
      { error: { code: 'c' } },
    ])
      expect(parseErrorBody(v), JSON.stringify(v)).toBeNull();
    expect(parseErrorBody({ error: { code: 'c', message: 'm', requestId: 5 } })).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-12-01T00:00:00Z');
  it('reads delay-seconds (up to 9 digits) and HTTP dates', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('1234567', now)).toBe(1_234_567_000);
    expect(parseRetryAfter('Tue, 01 Dec 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 00:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent, invalid and oversized values', () => {
    for (const v of [null, undefined, '', 'soon', '-1', '1.5', '1234567890', `${'x'.repeat(65)}`])
      expect(parseRetryAfter(v, now), String(v)).toBeNull();
  });
});
