// Credentials: only the Authorization header counts; the failure limit cannot be dodged or turned against others by
// X-Forwarded-For unless a configured proxy sent it; every credential route is limited; valid credentials always pass.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../apps/api/src/auth/auth.service';
import { presentedCredential } from '../../apps/api/src/auth/credential-sources';
import { ConfigError, loadConfig } from '../../apps/api/src/config/config.schema';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { enrollBody } from '../support/identity';
import { ownedRedis } from '../support/redis-server';

/** One request from a chosen loopback address (127.0.0.x are all local on Linux), without keep-alive. */
function from(
  baseUrl: string,
  localAddress: string,
  method: string,
  path: string,
  options: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  const url = new URL(path, baseUrl);
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        localAddress,
        agent: false,
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          if (String(res.headers['content-type'] ?? '').includes('json') && text) body = JSON.parse(text);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('credential sources', () => {
  const cookie = 'hw_session';
  const secret = 'A'.repeat(43);

  it('takes the Authorization header first, the session cookie only without one, nothing else', () => {
    expect(presentedCredential({ authorization: 'Bearer hwt_abc' }, { sessionCookie: cookie })).toEqual({
      source: 'authorization',
      secret: 'hwt_abc',
    });
    expect(presentedCredential({ cookie: `${cookie}=${secret}` }, { sessionCookie: cookie })).toEqual({
      source: 'session',
      secret,
    });
    // A header present decides, even when it is malformed (no fallback to the cookie).
    expect(
      presentedCredential({ authorization: 'Basic x', cookie: `${cookie}=${secret}` }, { sessionCookie: cookie }),
    ).toEqual({ source: 'authorization', secret: '' });
    // The cookie counts only where the caller accepts sessions (not on the agents' routes).
    expect(presentedCredential({ cookie: `${cookie}=${secret}` })).toBeNull();
    // A malformed session cookie is presented but empty (refused, never looked up).
    expect(presentedCredential({ cookie: `${cookie}=bad!` }, { sessionCookie: cookie })).toEqual({
      source: 'session',
      secret: '',
    });
    expect(presentedCredential({}, { sessionCookie: cookie })).toBeNull();
    expect(presentedCredential({ authorization: `Bearer ${'a'.repeat(2000)}` })).toEqual({
      source: 'authorization',
      secret: '',
    });
  });
});

describe('credentials are read from the Authorization header only', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ AUTH_FAILURE_LIMIT: '1000' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('refuses a token in the query string or in a JSON body, accepts it in the header', async () => {
    const token = encodeURIComponent(api.adminToken);
    expect((await call(api.baseUrl, 'GET', `/v1/groups?access_token=${token}`)).status).toBe(401);
    const body = await call(api.baseUrl, 'POST', '/v1/groups', { body: { access_token: api.adminToken, name: 'x' } });
    expect(body.status).toBe(401);
    expect(body.body.error.code).toBe('unauthorized');
    expect(body.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: api.adminToken })).status).toBe(200);
    // The scheme is case-insensitive (RFC 7235); other schemes and malformed values are not credentials.
    const lower = await call(api.baseUrl, 'GET', '/v1/groups', {
      headers: { authorization: `bearer ${api.adminToken}` },
    });
    expect(lower.status).toBe(200);
    for (const authorization of [
      `Basic ${api.adminToken}`,
      `Bearer`,
      `Bearer ${api.adminToken} extra`,
      api.adminToken,
    ]) {
      expect((await call(api.baseUrl, 'GET', '/v1/groups', { headers: { authorization } })).status).toBe(401);
    }
  });

  it('refuses a token in a cookie other than the session cookie, and a session-cookie that is not a session', async () => {
    const cookie = await call(api.baseUrl, 'GET', '/v1/groups', {
      headers: { cookie: `access_token=${api.adminToken}; token=${api.adminToken}` },
    });
    expect(cookie.status).toBe(401);
    const asSession = await call(api.baseUrl, 'GET', '/v1/groups', {
      headers: { cookie: `__Host-hw_session=${api.adminToken}` },
    });
    expect(asSession.status).toBe(401);
  });

  it('refuses a query-string credential on the agents’ bundle route', async () => {
    const res = await call(api.baseUrl, 'GET', `/v1/agent/bundle?access_token=hwe_${'a'.repeat(43)}`);
    expect(res.status).toBe(401);
  });
});

describe('X-Forwarded-For is ignored unless a configured proxy sent it', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SEC: '30' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('rotating X-Forwarded-For does not dodge the limit; a valid token from the blocked address still passes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await from(api.baseUrl, '127.0.0.11', 'GET', '/v1/groups', {
        token: 'hwt_wrong_wrong_wrong_wrong_wrong_wrong',
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    const limited = await from(api.baseUrl, '127.0.0.11', 'GET', '/v1/groups', { token: 'hwt_nope' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
    // Others' failures never lock out a valid credential, even from the same address.
    expect((await from(api.baseUrl, '127.0.0.11', 'GET', '/v1/groups', { token: api.adminToken })).status).toBe(200);
    // Another address is unaffected.
    expect((await from(api.baseUrl, '127.0.0.12', 'GET', '/v1/groups', { token: 'hwt_nope' })).status).toBe(401);
    // Public routes are never limited.
    expect((await from(api.baseUrl, '127.0.0.11', 'GET', '/healthz')).status).toBe(200);
  });

  it('spoofing a victim’s address in X-Forwarded-For locks out neither the victim nor its valid token', async () => {
    for (let i = 0; i < 10; i++) {
      await from(api.baseUrl, '127.0.0.13', 'GET', '/v1/groups', {
        token: 'hwt_wrong',
        headers: { 'x-forwarded-for': '127.0.0.14' },
      });
    }
    // The victim's own failures are still its own: it gets 401, not 429.
    expect((await from(api.baseUrl, '127.0.0.14', 'GET', '/v1/groups', { token: 'hwt_wrong' })).status).toBe(401);
    expect((await from(api.baseUrl, '127.0.0.14', 'GET', '/v1/groups', { token: api.adminToken })).status).toBe(200);
  });

  it('the admin audit log stores the socket address, not a spoofed one', async () => {
    const res = await from(api.baseUrl, '127.0.0.15', 'POST', '/v1/groups', {
      token: api.adminToken,
      headers: { 'x-forwarded-for': '203.0.113.99' },
      body: { name: 'spoof-audit' },
    });
    expect(res.status).toBe(201);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?action=group.create`, { token: api.adminToken });
    const entry = (audit.body.items as Array<{ targetId: string; clientIp: string }>).find(
      (e) => e.targetId === res.body.id,
    );
    expect(entry?.clientIp).toBe('127.0.0.15');
  });
});

describe('with TRUST_PROXY, the address a trusted proxy forwards is the client', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ AUTH_FAILURE_LIMIT: '2', AUTH_FAILURE_WINDOW_SEC: '30', TRUST_PROXY: '127.0.0.21' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('counts failures per forwarded address from the proxy, and per socket address from anyone else', async () => {
    const viaProxy = (client: string) =>
      from(api.baseUrl, '127.0.0.21', 'GET', '/v1/groups', { token: 'hwt_x', headers: { 'x-forwarded-for': client } });
    expect([(await viaProxy('198.51.100.1')).status, (await viaProxy('198.51.100.1')).status]).toEqual([401, 401]);
    expect((await viaProxy('198.51.100.1')).status).toBe(429);
    expect((await viaProxy('198.51.100.2')).status).toBe(401);
    // Not the proxy: its X-Forwarded-For is ignored, so rotating it does not help.
    const direct = async (i: number) =>
      (
        await from(api.baseUrl, '127.0.0.22', 'GET', '/v1/groups', {
          token: 'hwt_x',
          headers: { 'x-forwarded-for': `198.51.100.${50 + i}` },
        })
      ).status;
    expect([await direct(1), await direct(2), await direct(3)]).toEqual([401, 401, 429]);
  });

  it('records the forwarded client address in the admin audit log', async () => {
    const res = await from(api.baseUrl, '127.0.0.21', 'POST', '/v1/groups', {
      token: api.adminToken,
      headers: { 'x-forwarded-for': '198.51.100.77' },
      body: { name: 'proxied-audit' },
    });
    expect(res.status).toBe(201);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?action=group.create`, { token: api.adminToken });
    const entry = (audit.body.items as Array<{ targetId: string; clientIp: string }>).find(
      (e) => e.targetId === res.body.id,
    );
    expect(entry?.clientIp).toBe('198.51.100.77');
  });
});

describe('every credential route counts failures', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SEC: '30' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('GET /v1/agent/bundle (raw route): 401 up to the limit, then 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await from(api.baseUrl, '127.0.0.31', 'GET', '/v1/agent/bundle', { token: `hwe_bad${i}` })).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const limited = await from(api.baseUrl, '127.0.0.31', 'GET', '/v1/agent/bundle');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('POST /v1/agent/enroll: bad secrets count, then 429; a valid secret still enrolls', async () => {
    const machineId = 'enroll-limit-machine-0001';
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (
          await from(api.baseUrl, '127.0.0.32', 'POST', '/v1/agent/enroll', {
            body: enrollBody(`hws_bad${i}`, { machineId }).body,
          })
        ).status,
      );
    }
    const { secret: _none, ...body } = enrollBody('hws_bad', { machineId }).body;
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Bearer form counts too.
    const bearer = await from(api.baseUrl, '127.0.0.32', 'POST', '/v1/agent/enroll', { token: 'hws_bad', body });
    expect(bearer.status).toBe(429);
    const groups = await call(api.baseUrl, 'GET', '/v1/groups', { token: api.adminToken });
    const groupId = (groups.body.items as Array<{ id: string; isDefault: boolean }>).find((g) => g.isDefault)!.id;
    const secret = await call(api.baseUrl, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
      token: api.adminToken,
      body: { name: 'limit' },
    });
    expect(secret.status).toBe(201);
    const ok = await from(api.baseUrl, '127.0.0.32', 'POST', '/v1/agent/enroll', {
      body: enrollBody(secret.body.secret, { machineId }).body,
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ admission: 'active', reenrolled: false });
  });

  it('Nest routes (admin and agent): 401 up to the limit, then 429', async () => {
    const statuses: number[] = [];
    for (const path of ['/v1/tokens', '/v1/agent/keys', '/v1/hook-runs', '/v1/audit-log', '/v1/signing-keys']) {
      statuses.push((await from(api.baseUrl, '127.0.0.33', 'GET', path, { token: 'hwt_bad' })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe('the failure limit without Redis', () => {
  it('keeps limiting in memory when Redis is down, and valid tokens keep working', async () => {
    const redis = await ownedRedis();
    const api = await startTestApi({ AUTH_FAILURE_LIMIT: '2', REDIS_URL: redis.url });
    try {
      await redis.stop();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await call(api.baseUrl, 'GET', '/v1/groups', { token: 'hwt_wrong' })).status);
      }
      expect(statuses).toEqual([401, 401, 429, 429]);
      expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: api.adminToken })).status).toBe(200);
    } finally {
      await api.close();
      await redis.stop();
    }
  });
});

describe('principal cache', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('revoking one token drops only that token from the cache', async () => {
    const a = await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'a', role: 'auditor' },
    });
    const b = await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'b', role: 'auditor' },
    });
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: a.body.token })).status).toBe(200);
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: b.body.token })).status).toBe(200);
    const auth = api.app.get(AuthService);
    expect(auth.cached(a.body.token)).toBeDefined();
    expect(auth.cached(b.body.token)).toBeDefined();
    expect((await call(api.baseUrl, 'DELETE', `/v1/tokens/${a.body.id}`, { token: api.adminToken })).status).toBe(200);
    expect(auth.cached(a.body.token)).toBeUndefined();
    expect(auth.cached(b.body.token)).toBeDefined();
    expect(auth.cached(api.adminToken)).toBeDefined();
    expect((await call(api.baseUrl, 'GET', '/v1/groups', { token: a.body.token })).status).toBe(401);
  });
});

describe('HOOKWARDEN_BOOTSTRAP_TOKEN forms', () => {
  const base = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x' };

  it('refuses at start a value that is not an hwt_ token, naming the variable and the expected form, not the value', () => {
    for (const value of ['x'.repeat(40), 'hwe_' + 'a'.repeat(40), 'hwt_short', 'hwt_' + 'a'.repeat(30) + ' space']) {
      let error: unknown;
      try {
        loadConfig({ ...base, HOOKWARDEN_BOOTSTRAP_TOKEN: value });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toContain('HOOKWARDEN_BOOTSTRAP_TOKEN');
      expect(message).toContain('hwt_');
      expect(message).not.toContain(value);
    }
  });

  it('accepts hwt_ tokens, which then authenticate', async () => {
    const token = `hwt_${'Ab9_-'.repeat(8)}`;
    expect(loadConfig({ ...base, HOOKWARDEN_BOOTSTRAP_TOKEN: token }).HOOKWARDEN_BOOTSTRAP_TOKEN).toBe(token);
    const api = await startTestApi({ HOOKWARDEN_BOOTSTRAP_TOKEN: token });
    try {
      expect((await call(api.baseUrl, 'GET', '/v1/groups', { token })).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});

describe('TRUST_PROXY', () => {
  it('is off by default and refuses entries that are not addresses or ranges', () => {
    const base = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x' };
    expect(loadConfig(base).TRUST_PROXY).toEqual([]);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,loopback' }).TRUST_PROXY).toEqual([
      '10.0.0.1',
      '192.168.0.0/16',
      'loopback',
    ]);
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ ...base, TRUST_PROXY: '10.0.0.1,example.com' })).toThrow(/TRUST_PROXY/);
  });
});
