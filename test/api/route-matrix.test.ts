// Every route × every kind of caller, derived from the running app: a route without an authorization rule fails.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../apps/api/src/auth/principal';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { type AppRoute, appRoutes, concretePath, openApiPath, rawRoutes } from '../support/routes';

type Caller = 'anonymous' | 'admin' | 'auditor' | 'agent' | 'revoked' | 'expired';
const CALLERS: Caller[] = ['anonymous', 'admin', 'auditor', 'agent', 'revoked', 'expired'];

let api: TestApi;
let routes: AppRoute[];
const tokens: Partial<Record<Caller, string>> = {};

beforeAll(async () => {
  api = await startTestApi({ AUTH_FAILURE_LIMIT: '1000000' });
  const controllerRoutes = appRoutes(api.app);
  routes = [...controllerRoutes, ...rawRoutes(api.app, controllerRoutes)];
  tokens.admin = api.adminToken;
  const auditor = await call(api.baseUrl, 'POST', '/v1/tokens', {
    token: api.adminToken,
    body: { name: 'a', role: 'auditor' },
  });
  tokens.auditor = auditor.body.token;
  const revoked = await call(api.baseUrl, 'POST', '/v1/tokens', {
    token: api.adminToken,
    body: { name: 'r', role: 'admin' },
  });
  await call(api.baseUrl, 'DELETE', `/v1/tokens/${revoked.body.id}`, { token: api.adminToken });
  tokens.revoked = revoked.body.token;
  tokens.expired = 'hwt_expired_matrix_token_0123456789abcdefghijk';
  tokens.agent = 'hwe_matrix_agent_credential_0123456789abcdefghij';
  const db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO api_tokens (id, name, role, token_hash, prefix, expires_at)
       VALUES (gen_random_uuid(), 'expired', 'admin', $1, 'hwt_expire', now() - interval '1 minute')`,
      [hashSecret(tokens.expired)],
    );
    await db.query(
      `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
       SELECT gen_random_uuid(), id, 'matrix-machine', 'matrix-host', 'linux', '0.1.0', $1 FROM groups WHERE is_default`,
      [hashSecret(tokens.agent)],
    );
  } finally {
    await db.end();
  }
});
afterAll(async () => {
  await api?.close();
});

// What a caller must get from a route with this rule: 'pass' means neither 401 nor 403.
function expected(route: AppRoute, caller: Caller): 401 | 403 | 'pass' {
  const rule = route.rule!;
  if (rule.kind === 'public') return 'pass';
  // Only a request signed with an endpoint's own key opens a session: every bearer is refused.
  if (rule.kind === 'agent-key') return 401;
  if (caller === 'anonymous' || caller === 'revoked' || caller === 'expired') return 401;
  if (rule.kind === 'agent') return caller === 'agent' ? 'pass' : 403;
  if (caller === 'agent') return 403;
  return rule.roles.includes(caller) ? 'pass' : 403;
}

describe('route × role matrix', () => {
  it('finds the routes of every feature', () => {
    const paths = routes.map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /healthz',
        'POST /v1/tokens',
        'GET /v1/groups',
        'POST /v1/policies/:id/versions',
        'GET /v1/policies/:id/versions/:a/diff/:b',
        'GET /v1/audit-log/verify',
        'GET /v1/audit-log/head',
        'GET /v1/signing-keys/trusted',
        'GET /v1/agent/bundle',
        'POST /v1/agent/hook-runs',
        'GET /v1/hook-runs',
        'GET /v1/signing-keys',
        'POST /v1/signing-keys',
        'POST /v1/signing-keys/:kid/activate',
        'POST /v1/signing-keys/:kid/retire',
        'GET /v1/streaming/destinations',
        'POST /v1/streaming/destinations',
        'GET /v1/streaming/destinations/:id',
        'PATCH /v1/streaming/destinations/:id',
        'DELETE /v1/streaming/destinations/:id',
        'POST /v1/streaming/destinations/:id/rotate-secret',
        'POST /v1/streaming/destinations/:id/replay',
        'GET /v1/alerts',
        'GET /v1/alerts/rules',
        'POST /v1/alerts/rules',
        'PATCH /v1/alerts/rules/:id',
        'DELETE /v1/alerts/rules/:id',
      ]),
    );
    // Raw routes are served in front of Fastify; every other route must be one Fastify knows.
    for (const r of routes.filter((x) => x.controller !== '(raw)'))
      expect(api.app.getHttpAdapter().getInstance().hasRoute({ method: r.method, url: r.path })).toBe(true);
    expect(routes.filter((r) => r.controller === '(raw)').map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/agent/bundle',
      'GET /v1/agent/shadow-bundle',
    ]);
  });

  it('every route carries exactly one authorization rule', () => {
    const missing = routes.filter((r) => !r.rule).map((r) => `${r.method} ${r.path} (${r.controller}.${r.handler})`);
    expect(missing).toEqual([]);
  });

  it('every route answers every caller as its rule says (never a 5xx)', async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of routes) {
      if (!route.rule) continue;
      for (const caller of CALLERS) {
        const token = tokens[caller];
        const res = await call(api.baseUrl, route.method, concretePath(route.path), {
          ...(token ? { token } : {}),
          ...(['POST', 'PUT', 'PATCH'].includes(route.method) ? { body: {} } : {}),
        });
        checked++;
        const want = expected(route, caller);
        const ok =
          res.status < 500 && (want === 'pass' ? res.status !== 401 && res.status !== 403 : res.status === want);
        if (!ok) failures.push(`${route.method} ${route.path} as ${caller}: got ${res.status}, want ${want}`);
        if (res.status === 401 || res.status === 403) {
          // Agent routes tell a caller without a valid signature (or legacy bearer) to sign.
          const agentRoute = route.rule.kind === 'agent' || route.rule.kind === 'agent-key';
          expect(res.body.error.code).toBe(
            res.status === 403 ? 'forbidden' : agentRoute ? 'signature_required' : 'unauthorized',
          );
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(routes.length * CALLERS.length);
  });
});

describe('OpenAPI document', () => {
  it('documents every route with a response schema and bearer auth on protected routes', async () => {
    const res = await call(api.baseUrl, 'GET', '/docs/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as { paths: Record<string, Record<string, any>> };
    const problems: string[] = [];
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      if (!op) {
        problems.push(`${route.method} ${route.path}: not documented`);
        continue;
      }
      const ok = Object.entries(op.responses ?? {}).some(
        ([code, r]: [string, any]) =>
          (/^2/.test(code) && Object.values(r.content ?? {}).some((c: any) => c.schema !== undefined)) ||
          // Browser legs of sign-in answer redirects, documented as such.
          /^30[23]$/.test(code),
      );
      if (!ok) problems.push(`${route.method} ${route.path}: no 2xx response schema`);
      if (
        route.rule?.kind !== 'public' &&
        !(op.security ?? []).some((s: any) => 'bearer' in s || 'agentSignature' in s)
      ) {
        problems.push(`${route.method} ${route.path}: no bearer security`);
      }
      if (route.takesBody && !op.requestBody) {
        problems.push(`${route.method} ${route.path}: no request body schema`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('OpenAPI document quality', () => {
  it('gives every operation a summary, documents its errors with the error schema, and types nullable fields', async () => {
    const doc = (await call(api.baseUrl, 'GET', '/docs/openapi.json')).body;
    const problems: string[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        operations++;
        if (!op.summary) problems.push(`${method} ${path}: no summary`);
        for (const [status, r] of Object.entries<any>(op.responses)) {
          if (
            /^[45]/.test(status) &&
            r.content?.['application/json']?.schema?.$ref !== '#/components/schemas/ErrorBody'
          ) {
            problems.push(`${method} ${path} ${status}: not the error schema`);
          }
        }
        if ((op.security ?? []).some((s: any) => 'bearer' in s || 'cookie' in s)) {
          for (const status of ['401', '403', '429'])
            if (!op.responses[status]) problems.push(`${method} ${path}: no ${status}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(operations).toBeGreaterThanOrEqual(80);
    expect(doc.components.securitySchemes.bearer.bearerFormat).toBeUndefined();
    const s = doc.components.schemas;
    expect(s.CreateGroupDto.properties.name.type).toBe('string');
    expect(s.UpdateGroupDto.properties.name.type).toBe('string');
    const nullable: Array<[string, string]> = [
      ['ReleaseViewDto', 'pausedReason'],
      ['HookRunDto', 'toolName'],
      ['EndpointViewDto', 'appliedDigest'],
    ];
    for (const [schema, prop] of nullable) {
      expect(s[schema].properties[prop]).toMatchObject({ type: 'string', nullable: true });
    }
    const releases = doc.paths['/v1/groups/{groupId}/releases'].post.responses;
    expect(Object.keys(releases)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '404', '409', '429']));
  });
});
