// Capture policy per group: admin writes (audited), auditors read, the agent reads its own group's.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken } from '../support/audit-factories';
import { keyedEndpoints, type SignedAgent } from '../support/identity';
import { call } from '../support/http';

let api: TestApi;
let auditor: string;
let ep: SignedAgent;

beforeAll(async () => {
  api = await startTestApi();
  auditor = await auditorToken(api);
  [ep] = (await keyedEndpoints(api, 1)) as [SignedAgent];
});

afterAll(async () => {
  await api?.close();
});

it('defaults to redacted excerpts, and an admin change reaches the agent and the audit log', async () => {
  const path = `/v1/groups/${ep.groupId}/audit-settings`;
  const initial = await ep.call('GET', '/v1/agent/audit-settings');
  expect(initial.body).toEqual({
    capture: 'excerpts',
    maxExcerptBytes: 2048,
    redactPatterns: [],
    useDefaultRedact: true,
    inventoryCommands: 'program',
  });
  const body = {
    capture: 'digests',
    maxExcerptBytes: 100,
    redactPatterns: ['corp-[0-9]+'],
    useDefaultRedact: true,
    inventoryCommands: 'program',
  };
  expect((await call(api.baseUrl, 'PUT', path, { token: auditor, body })).status).toBe(403);
  const put = await call(api.baseUrl, 'PUT', path, { token: api.adminToken, body });
  expect(put.status).toBe(200);
  expect((await call(api.baseUrl, 'GET', path, { token: auditor })).body).toEqual(body);
  expect((await ep.call('GET', '/v1/agent/audit-settings')).body).toEqual(body);
  const bad = await call(api.baseUrl, 'PUT', path, { token: api.adminToken, body: { ...body, redactPatterns: ['('] } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.message).toContain('redactPatterns[0]');
  // Validated by the engine's RE2 compiler: a JavaScript-only look-ahead would make every endpoint drop excerpts.
  const lookahead = await call(api.baseUrl, 'PUT', path, {
    token: api.adminToken,
    body: { ...body, redactPatterns: ['secret(?=:)'] },
  });
  expect(lookahead.status).toBe(400);
  const missing = await call(api.baseUrl, 'PUT', '/v1/groups/00000000-0000-4000-8000-000000000000/audit-settings', {
    token: api.adminToken,
    body,
  });
  expect(missing.status).toBe(404);
  const db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  const audit = await db.query<{ target_id: string }>(
    "SELECT target_id FROM audit_log WHERE action = 'group.audit_settings.update'",
  );
  await db.end();
  expect(audit.rows).toEqual([{ target_id: ep.groupId }]);
});
