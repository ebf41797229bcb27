// Pure rules of SSO: group claims → role, cookie parsing, refresh-token sealing, and the SSO configuration checks.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../apps/api/src/config/config.schema';
import { parseCookies, serializeCookie } from '../../../apps/api/src/sso/cookies';
import { claimAt, groupsOf, isDowngrade, roleFor } from '../../../apps/api/src/sso/role-mapping';

const mapping = { adminGroups: ['hw-admins'], auditorGroups: ['security', 'hw-auditors'] };

describe('role mapping', () => {
  it('grants the strongest mapped role and refuses people in no mapped group', () => {
    expect(roleFor(['eng', 'hw-admins', 'security'], mapping)).toBe('admin');
    expect(roleFor(['security'], mapping)).toBe('auditor');
    expect(roleFor(['eng'], mapping)).toBeNull();
    expect(roleFor([], mapping)).toBeNull();
    // Case and whitespace are significant: "HW-Admins" is another group.
    expect(roleFor(['HW-Admins', ' hw-admins'], mapping)).toBeNull();
  });

  it('reads groups from arrays, strings and nested claims (Keycloak realm_access.roles)', () => {
    expect(groupsOf({ groups: ['a', 'b', 'a', 7, ''] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ groups: 'a b,c' }, 'groups')).toEqual(['a', 'b', 'c']);
    expect(groupsOf({ realm_access: { roles: ['hw-admins'] } }, 'realm_access.roles')).toEqual(['hw-admins']);
    expect(groupsOf({ 'https://example.com/groups': ['x'] }, 'https://example.com/groups')).toEqual(['x']);
    expect(groupsOf({ groups: { nested: true } }, 'groups')).toEqual([]);
    expect(groupsOf({}, 'groups')).toEqual([]);
    expect(claimAt({ a: { b: 1 } }, 'a.c')).toBeUndefined();
    expect(claimAt({ __proto__: { polluted: ['hw-admins'] } }, 'polluted')).toBeUndefined();
  });

  it('bounds what one claim may carry', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `g${i}`);
    expect(groupsOf({ groups: many }, 'groups')).toHaveLength(1000);
    expect(groupsOf({ groups: ['x'.repeat(600), 'ok'] }, 'groups')).toEqual(['ok']);
  });

  it('knows a downgrade', () => {
    expect(isDowngrade('admin', 'auditor')).toBe(true);
    expect(isDowngrade('auditor', null)).toBe(true);
    expect(isDowngrade('auditor', 'admin')).toBe(false);
    expect(isDowngrade('admin', 'admin')).toBe(false);
  });
});

describe('cookies', () => {
  it('parses the first occurrence of each cookie and ignores junk', () => {
    const c = parseCookies('a=1; b="two"; a=3; junk; =x; c=');
    expect(c.get('a')).toBe('1');
    expect(c.get('b')).toBe('two');
    expect(c.get('c')).toBe('');
    expect(c.has('junk')).toBe(false);
  });

  it('reads a huge Cookie header in bounded time and size', () => {
    const c = parseCookies(`${'x=1;'.repeat(200_000)}late=1`);
    expect(c.has('late')).toBe(false);
    expect(c.get('x')).toBe('1');
  });

  it('serializes secure, HttpOnly, SameSite cookies and refuses unsafe values', () => {
    expect(serializeCookie('__Host-s', 'abc', { secure: true, sameSite: 'Lax', maxAgeSec: 60 })).toBe(
      '__Host-s=abc; Path=/; SameSite=Lax; HttpOnly; Secure; Max-Age=60',
    );
    expect(() => serializeCookie('s', 'a;b', { secure: true, sameSite: 'Lax' })).toThrow(/encoding/);
  });
});

describe('SSO configuration', () => {
  const sso = {
    OIDC_ISSUER_URL: 'https://idp.example.com',
    OIDC_CLIENT_ID: 'hookwarden',
    OIDC_CLIENT_SECRET: 's3cret',
    OIDC_REDIRECT_URL: 'https://hookwarden.example.com/v1/auth/oidc/callback',
    OIDC_ADMIN_GROUPS: 'hw-admins, platform ',
  };

  it('parses a complete configuration', () => {
    const c = loadConfig(sso);
    expect(c.OIDC_ADMIN_GROUPS).toEqual(['hw-admins', 'platform']);
    expect(c.OIDC_AUDITOR_GROUPS).toEqual([]);
    expect(c.OIDC_SCOPES).toContain('openid');
    expect(c.SESSION_COOKIE_SECURE).toBe(true);
  });

  // The problems loadConfig reports for an environment.
  const problemsOf = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
      return '';
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems.join('\n');
    }
  };

  it('names what is missing or unsafe, variable by variable', () => {
    expect(problemsOf({ OIDC_ISSUER_URL: 'https://idp.example.com' })).toMatch(/OIDC_CLIENT_ID: required/);
    expect(problemsOf({ ...sso, OIDC_ADMIN_GROUPS: '' })).toMatch(/OIDC_ADMIN_GROUPS: name at least one/);
    expect(problemsOf({ ...sso, OIDC_ISSUER_URL: 'http://idp.example.com' })).toMatch(/OIDC_ISSUER_URL: must be https/);
    expect(
      problemsOf({
        ...sso,
        OIDC_ISSUER_URL: 'http://idp',
        OIDC_ALLOW_INSECURE_ISSUER: 'true',
        NODE_ENV: 'production',
        HOOKWARDEN_KEK: Buffer.alloc(32, 7).toString('base64'),
      }),
    ).toMatch(/OIDC_ALLOW_INSECURE_ISSUER: not allowed/);
    expect(problemsOf({ ...sso, OIDC_SCOPES: 'email profile' })).toMatch(/OIDC_SCOPES: must include openid/);
    expect(problemsOf({ OIDC_CLIENT_ID: 'x' })).toMatch(/OIDC_CLIENT_ID: set OIDC_ISSUER_URL too/);
    expect(
      problemsOf({
        SESSION_COOKIE_SECURE: 'false',
        NODE_ENV: 'production',
        HOOKWARDEN_KEK: Buffer.alloc(32, 7).toString('base64'),
      }),
    ).toMatch(/SESSION_COOKIE_SECURE/);
    expect(problemsOf({ SESSION_IDLE_TIMEOUT_SEC: '7200', SESSION_ABSOLUTE_TIMEOUT_SEC: '3600' })).toMatch(
      /SESSION_IDLE_TIMEOUT_SEC: must not exceed/,
    );
    expect(problemsOf({ ...sso, OIDC_ISSUER_URL: 'ftp://idp' })).toMatch(/OIDC_ISSUER_URL: must be an http/);
  });
});
