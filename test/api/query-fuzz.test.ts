// Query fuzz: hostile values (NUL and control characters, lone surrogates and bad UTF-8, extreme dates, huge numbers,
// crafted cursors, SQL fragments) in every query and path parameter of every GET route, discovered from the route
// table and the served OpenAPI document. No answer may be a 5xx or a cut body; every error has the one error shape.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoints } from '../support/audit-factories';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';
import { type AppRoute, appRoutes, rawRoutes } from '../support/routes';

/** Routes a browser opens (SSO sign-in and the console): their errors are HTML pages, not the JSON error shape. */
const BROWSER_PAGE = /^GET \/(v1\/auth\/|console)/;

/** At least this many requests in one run. */
const MIN_REQUESTS = 10_000;
const CONCURRENCY = 24;

/** A value as it goes on the wire: already percent-encoded text, or several values (a repeated parameter). */
type WireValue = string | { repeat: string[] };

const enc = (s: string): string => encodeURIComponent(s);
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');
const UUID = '00000000-0000-4000-8000-000000000001';

// Deterministic PRNG (mulberry32), so a failure reproduces.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Hand-picked hostile values (wire form). */
function corpus(validCursorOfAnotherList: string | null): WireValue[] {
  const text = [
    '',
    ' ',
    'true',
    'false',
    'null',
    '[]',
    '{}',
    '__proto__',
    'constructor',
    'a'.repeat(10_000),
    '../../etc/passwd',
    '00000000-0000-0000-0000-000000000000',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
    `${UUID}x`,
    `{${UUID}}`,
    // SQL fragments
    "' OR 1=1 --",
    "'; DROP TABLE groups; --",
    '") OR ("1"="1',
    '1; SELECT pg_sleep(10)',
    "%' --",
    '\\',
    '$1',
    "E'\\x00'",
    '::uuid',
    "' UNION SELECT NULL, NULL--",
    '1)) OR ((1=1',
    '%_%',
    // dates
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '1969-12-31T23:59:59Z',
    '-000001-01-01T00:00:00Z',
    '+275760-09-13T00:00:00Z',
    '2026-13-45T25:61:61Z',
    '2026-02-30T00:00:00Z',
    '1970-01-01T00:00:00+14:00',
    '8999-12-31T23:59:59-14:00',
    '9999-12-31T23:59:59.999999999Z',
    '2024-01-01',
    'now',
    'infinity',
    '-infinity',
    'epoch',
    'allballs',
    '2024-01-01T00:00:00.123456789Z',
    // numbers
    '0',
    '-1',
    '1e308',
    '1e309',
    '-1e309',
    '9007199254740993',
    '99999999999999999999999',
    '9223372036854775808',
    '2147483648',
    'NaN',
    'Infinity',
    '0x10',
    '1.5',
    '-0',
    ' 1',
    '00001',
    '1_000',
    // emoji and noncharacters
    '😀',
    '\uFFFF',
    '\uFEFF',
  ].map(enc);
  const raw = [
    '%00',
    'a%00b',
    '%00'.repeat(1000),
    '%01',
    '%1F',
    '%7F',
    '%C2%80',
    '%C2%9F',
    '%0A',
    '%0D%0A',
    '%09',
    '%1B%5B31m',
    // lone surrogates (WTF-8) and invalid UTF-8
    '%ED%A0%80',
    '%ED%BF%BF',
    'a%ED%B0%80b',
    '%FF',
    '%FE%FF',
    '%C0%80',
    '%E0%80',
    '%F4%90%80%80',
    '%F0%9F%98',
    // broken percent-encoding
    '%',
    '%G0',
    '%E',
    '%%32%35',
    // path tricks
    '%2F',
    '%2e%2e%2f',
    '..',
    '.',
  ];
  const cursorBodies = [
    '["1","00000000-0000-4000-8000-000000000001"]',
    `{"t":"0000-01-01T00:00:00Z","id":"${UUID}"}`,
    `{"t":"9999-12-31T23:59:59Z","i":"${UUID}"}`,
    `{"t":"2024-01-01T00:00:00Z","id":"x\\u0000"}`,
    `{"t":"2024-01-01T00:00:00Z","id":"' OR 1=1 --"}`,
    '{"s":"99999999999999999999"}',
    '{"s":"-1"}',
    '{"n":1e300}',
    '{"n":-5}',
    '{"__proto__":{"admin":true}}',
    '"just a string"',
    '[]',
    'null',
    '1',
    '{"t":1,"id":2}',
  ];
  const cursors = cursorBodies.flatMap((j) => [b64(j), `${b64(j)}.AAAAAAAAAAAAAAAAAAAAAA`, `${b64(j)}.`]);
  cursors.push('not base64!', '....', 'A'.repeat(600), `${'A'.repeat(40)}.${'B'.repeat(22)}`);
  if (validCursorOfAnotherList) cursors.push(validCursorOfAnotherList);
  const repeats: WireValue[] = [{ repeat: ['1', '2'] }, { repeat: ['a', '%00'] }, { repeat: [UUID, UUID] }];
  return [...text, ...raw, ...cursors.map(enc), ...repeats];
}

/** Values sent to every parameter (wire form): NUL, a lone surrogate, the extreme dates, a crafted cursor, SQL. */
const ALWAYS = new Set([
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  encodeURIComponent('0000-01-01T00:00:00Z'),
  encodeURIComponent('9999-12-31T23:59:59Z'),
  encodeURIComponent('99999999999999999999999'),
  encodeURIComponent(Buffer.from(`["1","${UUID}"]`, 'utf8').toString('base64url')),
  encodeURIComponent("' OR 1=1 --"),
]);

/** Random hostile values: mixes of control bytes, bad UTF-8, digits, date parts, quotes and base64url junk. */
function randomValue(rand: () => number): WireValue {
  const pieces = [
    '%00',
    '%01',
    '%1F',
    '%7F',
    '%ED%A0%80',
    '%FF',
    '%C0%80',
    '0',
    '9',
    '-',
    ':',
    'T',
    'Z',
    '+',
    '.',
    "'",
    '"',
    ';',
    '%27',
    '%5C',
    'a',
    'Z',
    '_',
    '%2C',
    ',',
    '%F0%9F%98%80',
    '%E2%80%AE',
    'e',
  ];
  const kind = Math.floor(rand() * 5);
  if (kind === 0) {
    const year = Math.floor(rand() * 100_000)
      .toString()
      .padStart(4, '0');
    const two = (n: number) => String(Math.floor(rand() * n)).padStart(2, '0');
    const zone = ['Z', '+14:00', '-14:00', '+99:99', ''][Math.floor(rand() * 5)]!;
    return enc(`${year}-${two(14)}-${two(33)}T${two(26)}:${two(62)}:${two(62)}${zone}`);
  }
  if (kind === 1) {
    let digits = '';
    const len = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < len; i++) digits += String(Math.floor(rand() * 10));
    return (rand() < 0.3 ? '-' : '') + digits + (rand() < 0.2 ? 'e999' : '');
  }
  if (kind === 2) {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let s = '';
    const len = 4 + Math.floor(rand() * 120);
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
    return rand() < 0.5 ? `${s}.${s.slice(0, 22).padEnd(22, 'A')}` : s;
  }
  let s = '';
  const len = 1 + Math.floor(rand() * 30);
  for (let i = 0; i < len; i++) s += pieces[Math.floor(rand() * pieces.length)];
  return s;
}

interface Probe {
  route: string;
  param: string;
  where: 'query' | 'path';
  value: WireValue;
  url: string;
  token: string;
}

interface Outcome {
  status: number;
  body: string;
  contentType: string;
  error?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

// One GET on the keep-alive agent, reading the whole body (a cut body is an error).
function get(baseUrl: string, path: string, token: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request(
      new URL(baseUrl),
      { method: 'GET', path, agent, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) =>
          resolve({ status: res.statusCode ?? 0, body: '', contentType: '', error: err.message }),
        );
        res.on('aborted', () => resolve({ status: res.statusCode ?? 0, body: '', contentType: '', error: 'aborted' }));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            contentType: String(res.headers['content-type'] ?? ''),
          }),
        );
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, body: '', contentType: '', error: err.message }));
    req.end();
  });
}

let api: TestApi;
let agentCredential: string;
let routes: AppRoute[];
let queryParams: Map<string, string[]>;
const realPathValues: Record<string, string> = {};
let otherCursor: string | null = null;

beforeAll(async () => {
  api = await startTestApi({ AUTH_FAILURE_LIMIT: '100000000' });
  const controllerRoutes = appRoutes(api.app);
  routes = [...controllerRoutes, ...rawRoutes(api.app, controllerRoutes)].filter((r) => r.method === 'GET');
  // Real ids, so path parameters other than the fuzzed one lead somewhere.
  const { groupId, policyId } = await createGroupWithPolicy(api);
  await createGroupWithPolicy(api);
  await createVersion(api, policyId, requirementsToml('/opt/fuzz', 'one'), [{ path: 'check.sh', content: 'exit 0\n' }]);
  await createVersion(api, policyId, requirementsToml('/opt/fuzz', 'two'), [{ path: 'check.sh', content: 'exit 0\n' }]);
  Object.assign(realPathValues, { id: policyId, groupId, n: '1', a: '1', b: '2' });
  const groups = await call(api.baseUrl, 'GET', '/v1/groups?limit=1', { token: api.adminToken });
  otherCursor = groups.body.nextCursor;
  const secret = await call(api.baseUrl, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
    token: api.adminToken,
    body: { name: 'fuzz' },
  });
  void secret;
  // Agent routes are probed with a legacy bearer endpoint (the query parsing under test is the same for signed ones).
  agentCredential = (await createEndpoints(api.db.url, 1, groupId))[0]!.credential;
  // Query parameters of each operation, as the served OpenAPI document declares them.
  const doc = (await call(api.baseUrl, 'GET', '/docs/openapi.json')).body as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
  };
  queryParams = new Map();
  for (const [path, ops] of Object.entries(doc.paths)) {
    const params = (ops.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    queryParams.set(path, params);
  }
}, 120_000);

afterAll(async () => {
  agent.destroy();
  await api?.close();
});

// Builds every probe: each route × each parameter × each corpus value, then random values until MIN_REQUESTS.
function probes(): Probe[] {
  const out: Probe[] = [];
  const targets: Array<{ route: AppRoute; param: string; where: 'query' | 'path' }> = [];
  for (const route of routes) {
    const openApi = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const m of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) targets.push({ route, param: m[1]!, where: 'path' });
    for (const q of queryParams.get(openApi) ?? []) targets.push({ route, param: q, where: 'query' });
    targets.push({ route, param: 'unknownParam', where: 'query' });
  }
  const build = (t: (typeof targets)[number], value: WireValue): Probe => {
    const token = t.route.rule?.kind === 'agent' ? agentCredential : api.adminToken;
    const fill = (name: string): string => {
      if (t.where === 'path' && name === t.param) {
        return typeof value === 'string' ? value : value.repeat.join(',');
      }
      return realPathValues[name] ?? UUID;
    };
    const path = t.route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => fill(name));
    let query = '';
    if (t.where === 'query') {
      const values = typeof value === 'string' ? [value] : value.repeat;
      query = `?${values.map((v) => `${t.param}=${v}`).join('&')}`;
    }
    return {
      route: `${t.route.method} ${t.route.path}`,
      param: t.param,
      where: t.where,
      value,
      url: path + query,
      token,
    };
  };
  // Every target gets the values every parameter must survive, and a rotating share of the rest of the corpus, so
  // the run stays near MIN_REQUESTS (bounded time) while each value still meets many parameters.
  const fixed = corpus(otherCursor);
  const always = new Set<WireValue>(fixed.filter((v) => typeof v === 'string' && ALWAYS.has(v)));
  const rest = targets.length * (fixed.length - always.size);
  const share = Math.min(1, Math.max(0, MIN_REQUESTS * 0.98 - targets.length * (always.size + 2)) / Math.max(1, rest));
  targets.forEach((t, k) => {
    fixed.forEach((v, i) => {
      if (always.has(v) || ((i * 37 + k * 61) % 1000) / 1000 < share) out.push(build(t, v));
    });
  });
  const rand = prng(0x5eed);
  let i = 0;
  while (out.length < MIN_REQUESTS || i < targets.length * 2) {
    out.push(build(targets[i % targets.length]!, randomValue(rand)));
    i++;
  }
  return out;
}

describe('query fuzz over every GET route', () => {
  it('answers every hostile query or path value without a 5xx, a cut body or a malformed error', async () => {
    const all = probes();
    expect(all.length).toBeGreaterThanOrEqual(MIN_REQUESTS);
    const byStatus = new Map<number, number>();
    const failures: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const probe = all[next++];
        if (!probe) return;
        const res = await get(api.baseUrl, probe.url, probe.token);
        byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
        const where = `${probe.route} ${probe.where} ${probe.param}=${JSON.stringify(probe.value).slice(0, 80)}`;
        if (res.error || res.status === 0) {
          failures.push(`${where}: transport error ${res.error}`);
        } else if (res.status >= 500) {
          failures.push(`${where}: ${res.status} ${res.body.slice(0, 200)}`);
        } else if (res.status >= 400 && BROWSER_PAGE.test(probe.route) && res.contentType.startsWith('text/html')) {
          // Browser pages (SSO sign-in, console) answer their errors as HTML pages by design.
        } else if (res.status >= 400) {
          let body: any;
          try {
            body = JSON.parse(res.body);
          } catch {
            failures.push(`${where}: ${res.status} with a non-JSON body`);
            continue;
          }
          const e = body?.error;
          if (typeof e?.code !== 'string' || typeof e?.message !== 'string' || typeof e?.requestId !== 'string') {
            failures.push(`${where}: ${res.status} without the error shape: ${res.body.slice(0, 200)}`);
          } else if (e.code === 'validation_failed' && (!Array.isArray(e.details) || e.details.length === 0)) {
            failures.push(`${where}: validation_failed without located details`);
          } else if (res.status === 401 || res.status === 403 || res.status === 429) {
            failures.push(`${where}: unexpected ${res.status} (${e.code})`);
          }
        }
        if (failures.length > 50) return;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const summary = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`);
    // Recorded for the issue's closing note (request count and status distribution).
    console.log(`query fuzz: ${all.length} requests over ${routes.length} GET routes; ${summary.join(', ')}`);
    expect(failures).toEqual([]);
    expect([...byStatus.keys()].some((s) => s >= 500)).toBe(false);
  }, 240_000);

  it('names the parameter of a bad path UUID (not `$`) and the query parameter of a bad filter', async () => {
    const bad = await call(api.baseUrl, 'GET', '/v1/endpoints/not-a-uuid', { token: api.adminToken });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: '$.id', in: 'path' })]);
    const groups = await call(api.baseUrl, 'GET', '/v1/groups/%00', { token: api.adminToken });
    expect(groups.status).toBe(400);
    expect(groups.body.error.details[0]).toMatchObject({ path: '$.id', in: 'path' });
    const nul = await call(api.baseUrl, 'GET', '/v1/hook-runs?toolName=%00', { token: api.adminToken });
    expect(nul.status).toBe(400);
    expect(nul.body.error.details[0]).toMatchObject({ path: '$.toolName', in: 'query' });
    const date = await call(api.baseUrl, 'GET', '/v1/hook-runs/stats?from=9999-12-31T23:59:59Z', {
      token: api.adminToken,
    });
    expect(date.status).toBe(400);
    expect(date.body.error.details[0]).toMatchObject({ path: '$.from', in: 'query' });
  });

  it('refuses a cursor of another list, a tampered cursor and a crafted one, naming `cursor`', async () => {
    expect(otherCursor).toBeTruthy();
    const forged = Buffer.from(JSON.stringify({ t: '2024-01-01T00:00:00.000Z', id: UUID })).toString('base64url');
    for (const cursor of [otherCursor!, `${otherCursor!.slice(0, -2)}AA`, forged, `${forged}.AAAAAAAAAAAAAAAAAAAAAA`]) {
      for (const path of ['/v1/hook-runs', '/v1/findings', '/v1/endpoints', '/v1/policies', '/v1/audit-log']) {
        const res = await call(api.baseUrl, 'GET', `${path}?cursor=${encodeURIComponent(cursor)}`, {
          token: api.adminToken,
        });
        expect(res.status, `${path} ${cursor}`).toBe(400);
        expect(res.body.error.details[0]).toMatchObject({ path: '$.cursor', code: 'invalid_cursor' });
      }
    }
    // The list's own cursor works.
    const page = await call(api.baseUrl, 'GET', `/v1/groups?limit=1&cursor=${otherCursor}`, { token: api.adminToken });
    expect(page.status).toBe(200);
  });

  it('applies one page-size range to every list', async () => {
    for (const path of [
      '/v1/hook-runs',
      '/v1/findings',
      '/v1/endpoints',
      '/v1/groups',
      '/v1/tokens',
      '/v1/audit-log',
    ]) {
      expect((await call(api.baseUrl, 'GET', `${path}?limit=200`, { token: api.adminToken })).status, path).toBe(200);
      const over = await call(api.baseUrl, 'GET', `${path}?limit=201`, { token: api.adminToken });
      expect(over.status, path).toBe(400);
      expect(over.body.error.details[0]).toMatchObject({ path: '$.limit', in: 'query' });
    }
  });
});
