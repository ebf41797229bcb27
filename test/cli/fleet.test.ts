// `hookwarden fleet endpoints` through the built CLI against a real API on a seeded fleet: each filter combination
// (groups by name, fleet states, membership, findings, applied version, sort and order) lists exactly what
// GET /v1/fleet/endpoints answers for the same query, in the same order, across pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { type FleetSeed, seedFleet } from '../support/fleet';
import { runCli } from '../support/cli';
import { call } from '../support/http';

let api: TestApi;
let seed: FleetSeed;

beforeAll(async () => {
  api = await startTestApi();
  seed = await seedFleet(api.baseUrl, api.adminToken, api.db.url, { endpoints: 450, runs: 50 });
}, 180_000);
afterAll(async () => {
  await api?.close();
});

const cli = (args: string[]) =>
  runCli(['--config', '/nonexistent/hookwarden.toml', ...args], {
    HOOKWARDEN_URL: api.baseUrl,
    HOOKWARDEN_TOKEN: api.adminToken,
  });

// The ids the API lists for a query, every page, in order.
async function apiIds(query: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const res: { status: number; body: any } = await call(
      api.baseUrl,
      'GET',
      `/v1/fleet/endpoints?${query}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token: api.adminToken },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.items.map((e: { id: string }) => e.id));
    cursor = res.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('too many pages');
}

describe('hookwarden fleet endpoints', () => {
  it('lists what the API lists for every filter combination, in order', async () => {
    const { alpha, beta } = seed.groups;
    const cases: Array<[string[], string]> = [
      [
        ['--state', 'stale,failed', '--sort', 'lastSeenAt', '--order', 'desc'],
        'state=stale,failed&sort=lastSeenAt&order=desc',
      ],
      [['--group', 'fleet-alpha,fleet-beta', '--outside-fleet'], `groupId=${alpha},${beta}&inFleet=false`],
      [['--group', alpha, '--in-fleet', '--sort', 'group'], `groupId=${alpha}&inFleet=true&sort=group`],
      [
        ['--has-findings', '--sort', 'openFindings', '--order', 'desc'],
        'hasFindings=true&sort=openFindings&order=desc',
      ],
      [['--without-findings', '--applied-version', 'none'], 'hasFindings=false&appliedVersion=none'],
      [
        ['--state', 'never checked in,revoked', '--admission', 'active'],
        'state=never%20checked%20in,revoked&admission=active',
      ],
      [['--search', 'dev-01', '--platform', 'linux,darwin', '--limit', '7', '--all'], 'q=dev-01&platform=linux,darwin'],
    ];
    for (const [args, query] of cases) {
      const want = await apiIds(query);
      const r = await cli(['fleet', 'endpoints', ...args, ...(args.includes('--all') ? [] : ['--all']), '-o', 'json']);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const got = JSON.parse(r.stdout).items.map((e: { id: string }) => e.id);
      expect(got, args.join(' ')).toEqual(want);
      expect(want.length, `${query} should match something`).toBeGreaterThan(0);
    }
    const table = await cli(['fleet', 'endpoints', '--state', 'failed', '--limit', '3']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+HOSTNAME\s+GROUP\s+STATE\s+PLATFORM\s+AGENT\s+APPLIED\s+FINDINGS\s+LAST SEEN/);
    expect(table.stdout.split('\n').filter((l) => / failed /.test(l))).toHaveLength(3);
  });

  it('refuses an unknown sort column and an unknown group before listing', async () => {
    const sort = await cli(['fleet', 'endpoints', '--sort', 'bogus']);
    expect(sort.code).toBe(1);
    expect(sort.stderr).toContain('--sort must be one of hostname, group,');
    const group = await cli(['fleet', 'endpoints', '--group', 'fleet-alpha,no-such-group']);
    expect(group.code).toBe(1);
    expect(group.stderr).toContain('no group named "no-such-group"');
  });
});
