// The CLI's choices come from the OpenAPI document (the admin client's generated QUERY_ENUMS/SCHEMA_ENUMS), not from
// lists restated by hand: `tokens create --role metrics` works because the API accepts it (the hand-written list
// refused it before any request), and an enumerated filter given a value the document does not list is refused
// before any request with the document's values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_ENUMS, SCHEMA_ENUMS } from '@hookwarden/admin-client';
import { startTestApi, type TestApi } from '../support/api';
import { runCli } from '../support/cli';

let api: TestApi;
const cli = (args: string[], url = api.baseUrl) =>
  runCli(['--config', '/nonexistent/hookwarden.toml', ...args], {
    HOOKWARDEN_URL: url,
    HOOKWARDEN_TOKEN: api.adminToken,
  });

beforeAll(async () => {
  api = await startTestApi();
}, 120_000);
afterAll(async () => {
  await api?.close();
});

describe('CLI choices from the document', () => {
  it('tokens create takes every role the API creates tokens with (metrics too)', async () => {
    expect(SCHEMA_ENUMS['CreateTokenDto.role']).toContain('metrics');
    const r = await cli(['tokens', 'create', '--name', 'scraper', '--role', 'metrics', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'scraper', role: 'metrics' });
    const listed = await cli(['tokens', 'list', '--role', 'metrics', '-o', 'json']);
    expect(JSON.parse(listed.stdout).items.map((t: { name: string }) => t.name)).toEqual(['scraper']);
  });

  it('an enumerated filter outside the document is refused before any request, naming the values', async () => {
    const nowhere = 'http://127.0.0.1:1'; // nothing listens: a request would fail with a network error instead
    for (const [args, flag, values] of [
      [['endpoints', 'list', '--state', 'bogus'], '--state', QUERY_ENUMS['/v1/endpoints'].state],
      [['audit-log', 'list', '--target-type', 'bogus'], '--target-type', QUERY_ENUMS['/v1/audit-log'].targetType],
      [['tokens', 'list', '--role', 'bogus'], '--role', QUERY_ENUMS['/v1/tokens'].role],
      [['hook-runs', 'findings', '--kind', 'bogus'], '--kind', QUERY_ENUMS['/v1/findings'].kind],
      [['tokens', 'create', '--name', 'x', '--role', 'bogus'], '--role', SCHEMA_ENUMS['CreateTokenDto.role']],
    ] as const) {
      const r = await cli([...args], nowhere);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain(`${flag} must be one of ${values.join(', ')}`);
      expect(r.stderr).not.toMatch(/ECONNREFUSED|did not answer/);
    }
  });
});
