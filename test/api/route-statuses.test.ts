// Every status a route answers is one its OpenAPI operation documents: each route (derived from the running app) is
// driven with no credential, a wrong-role credential, malformed path ids, query and body, unknown ids and a body
// built from its documented request schema; a status outside the operation's `responses` fails (a generated client
// can only be as true as the document).
import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../apps/api/src/auth/principal';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { type AppRoute, appRoutes, concretePath, openApiPath, rawRoutes } from '../support/routes';

type Json = Record<string, any>;
type Token = 'admin' | 'auditor' | 'agent';

let api: TestApi;
let routes: AppRoute[];
let doc: { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };
const tokens: Record<Token, string> = { admin: '', auditor: '', agent: '' };
const UNKNOWN_ID = '00000000-0000-4000-8000-0000000000ff';

beforeAll(async () => {
  api = await startTestApi({ AUTH_FAILURE_LIMIT: '1000000' });
  const controllerRoutes = appRoutes(api.app);
  routes = [...controllerRoutes, ...rawRoutes(api.app, controllerRoutes)];
  doc = (await call(api.baseUrl, 'GET', '/docs/openapi.json')).body;
  tokens.admin = api.adminToken;
  tokens.auditor = (
    await call(api.baseUrl, 'POST', '/v1/tokens', { token: api.adminToken, body: { name: 'a', role: 'auditor' } })
  ).body.token;
  tokens.agent = 'hwe_statuses_agent_credential_0123456789abcdef';
  const db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
       SELECT gen_random_uuid(), id, 'statuses-machine', 'statuses-host', 'linux', '0.1.0', $1 FROM groups WHERE is_default`,
      [hashSecret(tokens.agent)],
    );
  } finally {
    await db.end();
  }
}, 120_000);
afterAll(async () => {
  await api?.close();
});

// Resolves a local `$ref` of the document.
function deref(schema: Json | undefined): Json | undefined {
  if (!schema?.$ref) return schema;
  return deref(doc.components.schemas[String(schema.$ref).split('/').pop()!]);
}

// A minimal value satisfying the schema's types, required properties, enums, lengths and formats (no patterns).
function sample(schema: Json | undefined, depth = 0): unknown {
  const s = deref(schema);
  if (!s || depth > 6) return null;
  if (s.enum) return s.enum[0];
  if (s.anyOf ?? s.oneOf) return sample((s.anyOf ?? s.oneOf)[0], depth + 1);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((x: Json) => sample(x, depth + 1)));
  switch (s.type) {
    case 'string':
      if (s.format === 'uuid') return UNKNOWN_ID;
      if (s.format === 'date-time') return new Date().toISOString();
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, depth + 1));
    default: {
      const out: Json = {};
      for (const k of s.required ?? []) out[k] = sample(s.properties?.[k], depth + 1);
      return out;
    }
  }
}

// The caller a route's rule admits, and one it refuses because of the role (undefined: no such caller).
function callers(route: AppRoute): { right: Token | undefined; wrong: Token | undefined } {
  const rule = route.rule!;
  if (rule.kind === 'public') return { right: undefined, wrong: undefined };
  if (rule.kind === 'agent') return { right: 'agent', wrong: 'admin' };
  // Only an endpoint key's own signature opens a session: no bearer is the right caller, an agent's is refused (401).
  if (rule.kind === 'agent-key') return { right: undefined, wrong: 'agent' };
  const right = rule.roles.includes('admin') ? 'admin' : (rule.roles[0] as Token);
  return { right, wrong: rule.roles.includes('auditor') ? 'agent' : 'auditor' };
}

interface Probe {
  name: string;
  token?: Token;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Announce a body over the API's 32 MiB limit (only the headers are sent; the server answers before the body). */
  oversized?: boolean;
}

const BODY_LIMIT = 32 * 1024 * 1024;

// Sends only the headers of a request announcing a body larger than the limit; the status the server answers.
function oversized(method: string, path: string, token: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, api.baseUrl), {
      method,
      headers: {
        'content-type': 'application/json',
        'content-length': String(BODY_LIMIT + 1024),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

// The probes of one route: unauthenticated, wrong role, then as the right caller with malformed and unknown input.
function probes(route: AppRoute, op: Json): Probe[] {
  const { right, wrong } = callers(route);
  const withBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const good = concretePath(route.path).replace(/00000000-0000-4000-8000-000000000001/g, UNKNOWN_ID);
  const malformedPath = route.path.replace(/:([A-Za-z0-9_]+)/g, 'not%20an%20id');
  const body = (b: unknown) => (withBody ? { body: b } : {});
  const list: Probe[] = [
    { name: 'no credential', path: good, ...body({}) },
    ...(wrong ? [{ name: `wrong role (${wrong})`, token: wrong, path: good, ...body({}) }] : []),
    { name: 'unknown ids, empty body', token: right, path: good, ...body({}) },
    { name: 'malformed query', token: right, path: `${good}?limit=-1&cursor=%00bad&unknownParam=1`, ...body({}) },
  ];
  if (route.path.includes(':')) list.push({ name: 'malformed ids', token: right, path: malformedPath, ...body({}) });
  if (withBody) {
    list.push(
      { name: 'body from the documented schema', token: right, path: good, body: sample(bodySchema) ?? {} },
      { name: 'body of the wrong type', token: right, path: good, body: [1, 'two'] },
      { name: 'body that is not JSON', token: right, path: good, body: '{"unterminated' },
      {
        name: 'body of an unsupported content type',
        token: right,
        path: good,
        body: 'plain text',
        headers: { 'content-type': 'text/plain' },
      },
      { name: 'body over the size limit', token: right, path: good, oversized: true },
    );
  }
  return list;
}

describe('answered statuses are documented', () => {
  it('every status every route answers is among its operation’s documented responses (never a 5xx)', async () => {
    const problems: string[] = [];
    let sent = 0;
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      if (!op) {
        problems.push(`${route.method} ${route.path}: not documented`);
        continue;
      }
      const documented = new Set(Object.keys(op.responses ?? {}));
      for (const p of probes(route, op)) {
        const res = p.oversized
          ? { status: await oversized(route.method, p.path, p.token && tokens[p.token]) }
          : await call(api.baseUrl, route.method, p.path, {
              ...(p.token ? { token: tokens[p.token] } : {}),
              ...(p.body !== undefined ? { body: p.body } : {}),
              ...(p.headers ? { headers: p.headers } : {}),
            });
        sent++;
        if (res.status >= 500 || !(documented.has(String(res.status)) || documented.has('default'))) {
          problems.push(
            `${route.method} ${route.path} (${p.name}): answered ${res.status}, documents ${[...documented].join(' ')}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThan(routes.length * 3);
  }, 300_000);
});
