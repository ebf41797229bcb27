// The engine's one regex compiler: RE2 syntax, linear time, shared by validation, matching and redaction.
import { describe, expect, it } from 'vitest';
import { compileLinearRegex, compileMatcher, regexError, validateMatcher } from '../support/core';

describe('compileLinearRegex', () => {
  it('accepts the RE2/Rust syntax matchers use and rejects what the reference engine rejects', () => {
    for (const ok of ['^Bash$', '(?i)bash', 'mcp__.*', 'a\\!b', '\\.(md|txt)$', '(?P<n>a)', '\\p{Greek}'])
      expect(regexError(ok)).toBeUndefined();
    for (const bad of ['(', 'Edit|*', '(?=Bash)', '(?<=a)b', '(a)\\1', 'a**', 'a{1001}'])
      expect(regexError(bad)).toBeDefined();
    expect(regexError('a'.repeat(5000))).toMatch(/longer than 4096/);
  });

  it('(a+)+$ against a crafted input runs in linear time (the backtracking engine took 7.4 s at 27 characters)', () => {
    const c = compileLinearRegex('(a+)+$');
    if (!c.ok) throw new Error(c.error);
    expect(c.regex.test(`${'a'.repeat(200_000)}!`)).toBe(false);
    expect(c.regex.test('aaa')).toBe(true);
    // Dispatch and validation use this same compiler.
    expect(validateMatcher('(a+)+$')).toBeUndefined();
    const fn = compileMatcher('(a+)+$');
    if (fn instanceof Error) throw fn;
    expect(fn([`${'a'.repeat(100_000)}!`])).toBe(false);
  });

  it('replaceAll inserts the replacement literally', () => {
    const c = compileLinearRegex('tok(en)?=\\S+');
    if (!c.ok) throw new Error(c.error);
    expect(c.regex.replaceAll('a token=x $1 b tok=y', '[$1]')).toBe('a [$1] $1 b [$1]');
  });
});
