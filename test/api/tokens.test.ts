import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

describe('API tokens over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('creates a token once, lists it without the secret, and revokes it', async () => {
    const created = await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'ci auditor', role: 'auditor' },
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^hwt_[A-Za-z0-9_-]{43}$/);
    expect(created.body.prefix).toBe(created.body.token.slice(0, 10));

    const asAuditor = await call(api.baseUrl, 'GET', '/v1/groups', { token: created.body.token });
    expect(asAuditor.status).toBe(200);
    const forbidden = await call(api.baseUrl, 'GET', '/v1/tokens', { token: created.body.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');

    const list = await call(api.baseUrl, 'GET', '/v1/tokens', { token: api.adminToken });
    expect(list.status).toBe(200);
    expect(list.body.items.map((t: any) => t.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);

    const revoked = await call(api.baseUrl, 'DELETE', `/v1/tokens/${created.body.id}`, { token: api.adminToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const after = await call(api.baseUrl, 'GET', '/v1/groups', { token: created.body.token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
  });

  it('rejects a past expiry and unknown fields with located errors', async () => {
    const past = await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'x', role: 'admin', expiresAt: '2000-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(400);
    expect(past.body.error.details[0].path).toBe('$.expiresAt');
    const extra = await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'x', role: 'root' },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details[0].path).toBe('$.role');
  });

  it('paginates with an opaque cursor, stably, and rejects a bad cursor naming it', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await call(api.baseUrl, 'POST', '/v1/tokens', {
        token: api.adminToken,
        body: { name: `page ${i}`, role: 'auditor' },
      });
      expect(r.status).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `/v1/tokens?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await call(api.baseUrl, 'GET', q, { token: api.adminToken });
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((t: any) => t.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const all = await call(api.baseUrl, 'GET', '/v1/tokens?limit=200', { token: api.adminToken });
    expect(seen).toEqual(all.body.items.map((t: any) => t.id));
    expect(new Set(seen).size).toBe(seen.length);

    const bad = await call(api.baseUrl, 'GET', '/v1/tokens?cursor=!!nope', { token: api.adminToken });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('$.cursor');
    const badLimit = await call(api.baseUrl, 'GET', '/v1/tokens?limit=500', { token: api.adminToken });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.details[0].path).toBe('$.limit');
  });
});

// The authentication failure limit (per client address, proxies, Redis down) is tested in credentials.test.ts.
