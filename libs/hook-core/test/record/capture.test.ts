// Redaction of record excerpts: linear time, applied to a bounded window, secrets at the cut still redacted.
import { describe, expect, it } from 'vitest';
import {
  captureOutput,
  compileRedactions,
  DEFAULT_REDACTIONS,
  redactExcerpt,
  redactPatternError,
} from '../support/core';

const defaults = compileRedactions({ redactPatterns: [], useDefaultRedact: true });

describe('redaction', () => {
  it('every default pattern compiles with the engine compiler', () => {
    expect(defaults.invalid).toEqual([]);
    expect(defaults.patterns).toHaveLength(DEFAULT_REDACTIONS.length);
  });

  it('a 1 MB single line is redacted within the bound (was quadratic: 100 KB took 6.9 s)', () => {
    for (const filler of ['x', 'a:', 'password', 'ab://c']) {
      const line = `token=abc123secret ${filler.repeat(Math.ceil((1024 * 1024) / filler.length))}`;
      const cap = captureOutput(line, false, { capture: 'excerpts', maxExcerptBytes: 2048 }, defaults.patterns);
      expect(cap?.excerpt).toMatch(/^\[REDACTED\] /);
      expect(cap?.excerpt).toMatch(/…\[\d+ bytes omitted\]$/);
      expect(Buffer.byteLength(cap!.excerpt!.replace(/…\[\d+ bytes omitted\]$/, ''))).toBeLessThanOrEqual(2048);
      expect(cap?.bytes).toBe(Buffer.byteLength(line));
    }
  });

  it('a secret straddling the excerpt bound is redacted, not cut into a visible prefix', () => {
    const text = `${'x'.repeat(2040)} ghp_${'A'.repeat(36)} tail`;
    const ex = redactExcerpt(text, 2048, defaults.patterns);
    expect(ex).not.toContain('ghp_');
    expect(ex.startsWith('x'.repeat(2040))).toBe(true);
    const omitted = Number(/…\[(\d+) bytes omitted\]$/.exec(ex)?.[1]);
    expect(omitted).toBeGreaterThan(0);
  });

  it('short texts are returned whole once redacted; the omitted count covers text past the window', () => {
    expect(redactExcerpt('password=a1 ok', 2048, defaults.patterns)).toBe('[REDACTED] ok');
    const long = 'y'.repeat(100_000);
    expect(redactExcerpt(long, 10, defaults.patterns)).toBe(`${'y'.repeat(10)}…[${100_000 - 10} bytes omitted]`);
  });

  it('invalid patterns are listed, never thrown; the rest still apply', () => {
    const c = compileRedactions({ useDefaultRedact: false, redactPatterns: ['(', 'MYCORP-\\d+', '(?=x)'] });
    expect(c.invalid.map((i) => i.pattern)).toEqual(['(', '(?=x)']);
    expect(c.patterns).toHaveLength(1);
    expect(redactPatternError('(')).toMatch(/missing closing \)/);
    expect(redactPatternError('MYCORP-\\d+')).toBeNull();
  });
});
