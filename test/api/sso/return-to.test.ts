// The sign-in returnTo rule (pure): one normal form of a path on this server, or a refusal.
import { describe, expect, it } from 'vitest';
import { normaliseReturnTo } from '../../../apps/api/src/sso/return-to';

describe('normaliseReturnTo', () => {
  it('resolves dot segments and collapses repeated slashes, keeping the query as given', () => {
    expect(normaliseReturnTo('/console/')).toEqual({ ok: true, path: '/console/' });
    expect(normaliseReturnTo('/console')).toEqual({ ok: true, path: '/console' });
    expect(normaliseReturnTo('/')).toEqual({ ok: true, path: '/' });
    expect(normaliseReturnTo('/console//a///b')).toEqual({ ok: true, path: '/console/a/b' });
    expect(normaliseReturnTo('/console/a/./b/../c/')).toEqual({ ok: true, path: '/console/a/c/' });
    expect(normaliseReturnTo('/console/a/%2E%2e/b')).toEqual({ ok: true, path: '/console/b' });
    expect(normaliseReturnTo('/console/a/..')).toEqual({ ok: true, path: '/console/' });
    expect(normaliseReturnTo('/v1/../console/x?next=/../..//y#f')).toEqual({
      ok: true,
      path: '/console/x?next=/../..//y#f',
    });
  });

  it('refuses URLs, backslashes, climbing above / and leaving the console it names', () => {
    for (const bad of [
      '/console/../..//evil.example',
      '/console/..//evil.example',
      '/console/../v1/me',
      '/..',
      '/a/../../b',
      '//evil.example/',
      '/\\evil.example',
      '/%5cevil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      'console/',
      '/console/ x',
    ]) {
      expect(normaliseReturnTo(bad).ok, bad).toBe(false);
    }
  });
});
