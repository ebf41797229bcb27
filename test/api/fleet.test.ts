// The fleet-wide routes on a seeded fleet (2,000 endpoints): every sort column pages through every row once in
// order, filters count what they name, bulk move/revoke audit each endpoint, the summary lists empty groups, the
// attention summary names endpoints and paused rollouts, search groups results by kind, saved views are personal or
// shared by admins.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { type FleetSeed, seedFleet } from '../support/fleet';
import { call } from '../support/http';

let api: TestApi;
let seed: FleetSeed;
let db: pg.Client;
let auditor: string;

beforeAll(async () => {
  api = await startTestApi();
  seed = await seedFleet(api.baseUrl, api.adminToken, api.db.url, { endpoints: 2000, runs: 2000 });
  db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  auditor = (
    await call(api.baseUrl, 'POST', '/v1/tokens', { token: api.adminToken, body: { name: 'aud', role: 'auditor' } })
  ).body.token;
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.close();
});

const get = (p: string, token = api.adminToken) => call(api.baseUrl, 'GET', p, { token });
const count = async (where: string): Promise<number> =>
  (await db.query(`SELECT count(*)::int AS n FROM endpoints e WHERE ${where}`)).rows[0].n;

// Every row of the list for a query, page by page.
async function all(query: string, limit = 200): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const res = await get(`/v1/fleet/endpoints?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('too many pages');
}

describe('fleet-wide endpoints list', () => {
  it.each([
    ['hostname', (e: any) => e.hostname],
    ['group', (e: any) => e.groupName],
    ['platform', (e: any) => e.platform],
    ['agentVersion', (e: any) => e.agentVersion],
    ['appliedRevision', (e: any) => e.appliedRevision ?? -1],
    ['state', (e: any) => e.state],
    ['lastSeenAt', (e: any) => (e.lastSeenAt ? Date.parse(e.lastSeenAt) : -Infinity)],
    ['openFindings', (e: any) => e.openFindings],
  ])('sorted by %s, both ways, every endpoint once in order', async (sort, key) => {
    for (const order of ['asc', 'desc'] as const) {
      const rows = await all(`sort=${sort}&order=${order}`, 150);
      expect(rows).toHaveLength(2000);
      expect(new Set(rows.map((r) => r.id)).size).toBe(2000);
      const cmp = (a: any, b: any) => {
        const x = key(a);
        const y = key(b);
        if (x !== y) return (typeof x === 'number' ? x - (y as number) : x < y ? -1 : 1) * (order === 'asc' ? 1 : -1);
        return (a.id < b.id ? -1 : 1) * (order === 'asc' ? 1 : -1);
      };
      expect(rows.map((r) => r.id)).toEqual([...rows].sort(cmp).map((r) => r.id));
    }
  });

  it('filters server-side and the total is what the filters match', async () => {
    const failed = await get('/v1/fleet/endpoints?state=failed&limit=5');
    expect(failed.body.total).toBe(
      await count(
        `state = 'failed' AND revoked_at IS NULL AND admission = 'active' AND last_seen_at > now() - interval '1 day'`,
      ),
    );
    expect(failed.body.items.every((e: any) => e.state === 'failed')).toBe(true);
    const stale = await all('state=stale');
    expect(stale.length).toBe(
      await count(`last_seen_at < now() - interval '1 day' AND revoked_at IS NULL AND admission = 'active'`),
    );
    const combo = await all(`groupId=${seed.groups.alpha}&platform=linux,darwin&agentVersion=1.1.0`);
    expect(combo.length).toBe(
      await count(`group_id = '${seed.groups.alpha}' AND platform IN ('linux','darwin') AND agent_version = '1.1.0'`),
    );
    const withFindings = await all('hasFindings=true');
    expect(withFindings.length).toBe(
      (await db.query(`SELECT count(DISTINCT endpoint_id)::int AS n FROM hook_run_findings WHERE resolved_at IS NULL`))
        .rows[0].n,
    );
    expect(withFindings.every((e) => e.openFindings > 0)).toBe(true);
    const v1 = await get(`/v1/fleet/endpoints?groupId=${seed.groups.alpha}&appliedVersion=1&inFleet=true&limit=1`);
    expect(v1.body.total).toBe(
      await count(
        `group_id = '${seed.groups.alpha}' AND applied_release_id IS NOT NULL AND admission = 'active' AND revoked_at IS NULL`,
      ),
    );
    const byName = await get('/v1/fleet/endpoints?q=BUILD-agent');
    expect(byName.body.total).toBe(40);
    const id = byName.body.items[0].id;
    expect((await get(`/v1/fleet/endpoints?q=${id}`)).body.items.map((e: any) => e.id)).toEqual([id]);
    // Wildcards are text.
    expect((await get('/v1/fleet/endpoints?q=%25')).body.total).toBe(0);
  });

  it('refuses bad input with a located 400', async () => {
    for (const q of ['sort=nope', 'state=sleepy', 'groupId=x', 'limit=0', 'order=up', 'appliedVersion=-1', 'x=1']) {
      const res = await get(`/v1/fleet/endpoints?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const page = await get('/v1/fleet/endpoints?sort=hostname&limit=1');
    const other = await get(`/v1/fleet/endpoints?sort=platform&limit=1&cursor=${page.body.nextCursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error.details[0].path).toBe('$.cursor');
  });
});

describe('bulk actions', () => {
  it('moves and revokes endpoints with an audit entry each; auditors may not', async () => {
    const some = (await get(`/v1/fleet/endpoints?groupId=${seed.groups.gamma}&limit=5`)).body.items.map(
      (e: any) => e.id,
    );
    const missing = '00000000-0000-4000-8000-000000000001';
    const denied = await call(api.baseUrl, 'POST', '/v1/fleet/endpoints/move', {
      token: auditor,
      body: { ids: some, groupId: seed.groups.empty },
    });
    expect(denied.status).toBe(403);
    const moved = await call(api.baseUrl, 'POST', '/v1/fleet/endpoints/move', {
      token: api.adminToken,
      body: { ids: [...some, missing], groupId: seed.groups.empty },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ changed: 5, unchanged: 0, notFound: [missing] });
    expect((await get(`/v1/fleet/endpoints?groupId=${seed.groups.empty}`)).body.total).toBe(5);
    const audit = await db.query(
      `SELECT target_id FROM audit_log WHERE action = 'endpoint.move' AND target_id = ANY($1::text[])`,
      [some],
    );
    expect(audit.rows.map((r) => r.target_id).sort()).toEqual([...some].sort());
    const again = await call(api.baseUrl, 'POST', '/v1/fleet/endpoints/move', {
      token: api.adminToken,
      body: { ids: some, groupId: seed.groups.empty },
    });
    expect(again.body).toEqual({ changed: 0, unchanged: 5, notFound: [] });
    const noGroup = await call(api.baseUrl, 'POST', '/v1/fleet/endpoints/move', {
      token: api.adminToken,
      body: { ids: some, groupId: missing },
    });
    expect(noGroup.status).toBe(404);

    const revoked = await call(api.baseUrl, 'POST', '/v1/fleet/endpoints/revoke', {
      token: api.adminToken,
      body: { ids: some.slice(0, 3) },
    });
    expect(revoked.body).toEqual({ changed: 3, unchanged: 0, notFound: [] });
    const rev = await db.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'endpoint.revoke' AND target_id = ANY($1::text[])`,
      [some.slice(0, 3)],
    );
    expect(rev.rows[0].n).toBe(3);
    const states = (await get(`/v1/fleet/endpoints?groupId=${seed.groups.empty}&state=revoked`)).body;
    expect(states.total).toBe(3);
    for (const body of [{ ids: [] }, { ids: [some[0], some[0]] }, { ids: ['x'] }, {}]) {
      const bad = await call(api.baseUrl, 'POST', '/v1/fleet/endpoints/revoke', { token: api.adminToken, body });
      expect(bad.status).toBe(400);
    }
  });
});

describe('overview summary and attention', () => {
  it('counts every state and every group, empty ones included', async () => {
    const s = (await get('/v1/fleet/summary', auditor)).body;
    expect(s.states.reduce((n: number, x: any) => n + x.count, 0)).toBe(2000);
    const empty = s.groups.find((g: any) => g.name === 'fleet-empty');
    expect(empty).toBeDefined();
    for (const g of s.groups) {
      const total = (await get(`/v1/fleet/endpoints?groupId=${g.id}&inFleet=true&limit=1`)).body.total;
      expect(g.total, g.name).toBe(total);
      for (const v of g.versions) {
        const n = (
          await get(`/v1/fleet/endpoints?groupId=${g.id}&inFleet=true&appliedVersion=${v.version ?? 'none'}&limit=1`)
        ).body.total;
        expect(v.count).toBe(n);
      }
    }
    for (const st of s.states) {
      const n = (await get(`/v1/fleet/endpoints?state=${encodeURIComponent(st.state)}&limit=1`)).body.total;
      expect(st.count, st.state).toBe(n);
    }
  });

  it('names failed, stale and never-seen endpoints, paused rollouts with their reason, open findings', async () => {
    const a = (await get('/v1/fleet/attention', auditor)).body;
    expect(a.failed.total).toBe((await get('/v1/fleet/endpoints?state=failed&limit=1')).body.total);
    expect(a.failed.items.length).toBe(Math.min(10, a.failed.total));
    expect(a.stale.items[0].hostname).toMatch(/^(dev|build-agent)-\d{4}$/);
    expect(a.neverCheckedIn.total).toBeGreaterThan(0);
    expect(a.rollouts[0]).toMatchObject({
      status: 'paused',
      pausedReason: seed.pausedReason,
      groupName: 'fleet-alpha',
      policyName: 'alpha-baseline',
      policyVersion: 2,
    });
    expect(a.rollouts.some((r: any) => r.status === 'rolling' && r.groupName === 'fleet-beta')).toBe(true);
    const open = (await db.query('SELECT count(*)::int AS n FROM hook_run_findings WHERE resolved_at IS NULL')).rows[0];
    expect(a.findings.total).toBe(open.n);
  });
});

describe('global search', () => {
  it('finds endpoints, hooks, policies, versions and releases, grouped and bounded', async () => {
    const r = (await get('/v1/search?q=build-agent-01', auditor)).body;
    expect(r.endpoints.items.length).toBe(2);
    expect(r.endpoints.more).toBe(false);
    const many = (await get('/v1/search?q=dev-&limit=3')).body;
    expect(many.endpoints.items).toHaveLength(3);
    expect(many.endpoints.more).toBe(true);
    const hooks = (await get(`/v1/search?q=${encodeURIComponent('check-7.py')}`)).body;
    expect(hooks.hooks.items[0]).toMatchObject({ command: 'python3 ~/hooks/check-7.py --fleet', endpoints: 200 });
    const hash = hooks.hooks.items[0].hash.slice(7, 19);
    expect((await get(`/v1/search?q=${hash}`)).body.hooks.items[0].hash).toBe(hooks.hooks.items[0].hash);
    const pol = (await get('/v1/search?q=guardrails')).body;
    expect(pol.policies.items.map((p: any) => p.name)).toEqual(['beta-guardrails']);
    expect(pol.versions.items.map((v: any) => v.message)).toEqual(['beta guardrails']);
    const ver = (await get(`/v1/search?q=${encodeURIComponent('alpha-baseline v2')}`)).body;
    expect(ver.versions.items.map((v: any) => [v.policyName, v.number])).toEqual([['alpha-baseline', 2]]);
    const rel = (await get(`/v1/search?q=${seed.releases.alphaPaused}`)).body;
    expect(rel.releases.items.map((x: any) => x.id)).toEqual([seed.releases.alphaPaused]);
    const byRev = (await get(`/v1/search?q=${encodeURIComponent('fleet-alpha r2')}`)).body;
    expect(byRev.releases.items.map((x: any) => x.id)).toEqual([seed.releases.alphaPaused]);
    for (const q of ['', '%20%20', 'x'.repeat(201)]) expect((await get(`/v1/search?q=${q}`)).status).toBe(400);
  });
});

describe('saved views', () => {
  it('are personal unless an admin shares them', async () => {
    const mine = await call(api.baseUrl, 'POST', '/v1/saved-views', {
      token: auditor,
      body: { name: 'My failing', kind: 'endpoints', query: { state: 'failed', sort: 'lastSeenAt' } },
    });
    expect(mine.status).toBe(201);
    expect(mine.body).toMatchObject({ mine: true, shared: false, query: { state: 'failed' } });
    const share = await call(api.baseUrl, 'POST', '/v1/saved-views', {
      token: auditor,
      body: { name: 'x', kind: 'endpoints', query: {}, shared: true },
    });
    expect(share.status).toBe(403);
    const shared = await call(api.baseUrl, 'POST', '/v1/saved-views', {
      token: api.adminToken,
      body: { name: 'Denied this week', kind: 'explorer', query: { decision: 'deny' }, shared: true },
    });
    expect(shared.status).toBe(201);
    const adminPrivate = await call(api.baseUrl, 'POST', '/v1/saved-views', {
      token: api.adminToken,
      body: { name: 'Admin only', kind: 'explorer', query: {} },
    });
    const auditorSees = (await get('/v1/saved-views', auditor)).body.items.map((v: any) => v.name);
    expect(auditorSees).toEqual(['Denied this week', 'My failing']);
    expect((await get('/v1/saved-views?kind=explorer', auditor)).body.items.map((v: any) => v.name)).toEqual([
      'Denied this week',
    ]);
    const del = (id: string, token: string) => call(api.baseUrl, 'DELETE', `/v1/saved-views/${id}`, { token });
    expect((await del(shared.body.id, auditor)).status).toBe(403);
    expect((await del(adminPrivate.body.id, auditor)).status).toBe(404);
    expect((await del(mine.body.id, api.adminToken)).status).toBe(404);
    expect((await del(mine.body.id, auditor)).status).toBe(200);
    expect((await del(shared.body.id, api.adminToken)).status).toBe(200);
    for (const body of [
      { name: '', kind: 'endpoints', query: {} },
      { name: 'a', kind: 'other', query: {} },
      { name: 'a', kind: 'endpoints', query: { 'bad key': 'x' } },
      { name: 'a', kind: 'endpoints', query: { a: 1 } },
    ]) {
      expect((await call(api.baseUrl, 'POST', '/v1/saved-views', { token: auditor, body })).status).toBe(400);
    }
  });
});
