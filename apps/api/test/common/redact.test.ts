// Log redaction by parameter name, for values that do not look like a Hookwarden credential (an OIDC access token,
// an opaque API key): every spelling of a credential parameter's name — array and index forms (`access_token[]`),
// percent-encoded, case and separator variants, nested — has its value replaced in the URL and the parsed query.
import { describe, expect, it } from 'vitest';
import { isSecretParam, redactQuery, redactUrl } from '../../src/common/redact';

const OPAQUE = 'eyJhbGciOiJSUzI1NiJ9.opaque-value-0123';

describe('redactUrl', () => {
  it.each([
    'access_token[]',
    'access_token[0]',
    'access_token%5B%5D',
    'access_token%255B%255D',
    'access_token[a][b]',
    'ACCESS_TOKEN',
    'Access-Token',
    'accessToken',
    'access%5Ftoken',
    'filter[token]',
    'client_secret',
    'id_token',
    'code',
  ])('%s=… is redacted', (name) => {
    const out = redactUrl(`/v1/groups?limit=5&${name}=${OPAQUE}&q=kept`)!;
    expect(out).not.toContain(OPAQUE);
    expect(out).toBe(`/v1/groups?limit=5&${name}=[REDACTED]&q=kept`);
  });

  it('keeps ordinary parameters and a URL without a query as they are', () => {
    expect(redactUrl('/v1/hook-runs?toolName=Bash&limit=10')).toBe('/v1/hook-runs?toolName=Bash&limit=10');
    expect(redactUrl('/v1/groups')).toBe('/v1/groups');
    expect(isSecretParam('toolCommand')).toBe(false);
    expect(isSecretParam('cursor')).toBe(false);
  });
});

describe('redactQuery', () => {
  it('replaces credential entries of a parsed query, nested and in arrays', () => {
    expect(
      redactQuery({ 'access_token[]': [OPAQUE], filter: { token: OPAQUE, name: 'n' }, list: [{ apiKey: OPAQUE }] }),
    ).toEqual({
      'access_token[]': '[REDACTED]',
      filter: { token: '[REDACTED]', name: 'n' },
      list: [{ apiKey: '[REDACTED]' }],
    });
  });
});
