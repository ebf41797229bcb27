// An endpoint's own views (GET /v1/endpoints, GET /v1/endpoints/:id) carry its fleet state and fleet membership by
// the same rule as the fleet views (GET /v1/fleet/endpoints state and inFleet filter), so that no client works the
// rule out for itself (the fleet summary's per-state membership agrees): checked on a seeded fleet with every fleet
// state.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { seedFleet } from '../support/fleet';
import { call } from '../support/http';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
  await seedFleet(api.baseUrl, api.adminToken, api.db.url, { endpoints: 600, runs: 50 });
  // The two final decisions the seed does not make.
  const db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  try {
    await db.query(`UPDATE endpoints SET admission = 'rejected' WHERE hostname IN (SELECT hostname FROM endpoints
      WHERE admission = 'active' AND revoked_at IS NULL ORDER BY hostname LIMIT 2)`);
    await db.query(`UPDATE endpoints SET admission = 'retired', revoked_at = now() WHERE hostname IN (SELECT hostname
      FROM endpoints WHERE admission = 'active' AND revoked_at IS NULL ORDER BY hostname DESC LIMIT 2)`);
  } finally {
    await db.end();
  }
}, 180_000);
afterAll(async () => {
  await api?.close();
});

// Every item of a paged list.
async function all(path: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const res: { status: number; body: any } = await call(
      api.baseUrl,
      'GET',
      `${path}${sep}limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      {
        token: api.adminToken,
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('too many pages');
}

describe("an endpoint's fleet state in its own views", () => {
  it('is the fleet views’ state and membership, for every endpoint and every state', async () => {
    const fleet = new Map((await all('/v1/fleet/endpoints?sort=hostname')).map((e) => [e.id, e.state as string]));
    const members = new Set((await all('/v1/fleet/endpoints?sort=hostname&inFleet=true')).map((e) => e.id as string));
    const endpoints = await all('/v1/endpoints');
    expect(endpoints).toHaveLength(fleet.size);
    const byState = new Map<string, string>();
    for (const e of endpoints) {
      expect(e.fleetState, `${e.hostname}`).toBe(fleet.get(e.id));
      expect(e.inFleet, `${e.hostname} (${e.fleetState})`).toBe(members.has(e.id));
      byState.set(e.fleetState, e.id);
    }
    // The seed reaches every fleet state the document names.
    const doc = (await call(api.baseUrl, 'GET', '/docs/openapi.json')).body;
    const documented = doc.components.schemas.EndpointViewDto.properties.fleetState.enum as string[];
    expect([...byState.keys()].sort()).toEqual([...documented].sort());
    // The summary's per-state membership is the endpoints' own.
    const summary = (await call(api.baseUrl, 'GET', '/v1/fleet/summary', { token: api.adminToken })).body;
    for (const s of summary.states as Array<{ state: string; inFleet: boolean }>) {
      const inState = endpoints.filter((e) => e.fleetState === s.state);
      expect(inState.length, s.state).toBeGreaterThan(0);
      for (const e of inState) expect(e.inFleet, `${s.state}: ${e.hostname}`).toBe(s.inFleet);
    }
    for (const [state, id] of byState) {
      const one = await call(api.baseUrl, 'GET', `/v1/endpoints/${id}`, { token: api.adminToken });
      expect(one.body, state).toMatchObject({ id, fleetState: state, inFleet: members.has(id) });
    }
  });
});
