// The audit action table: the audit-log filters take its actions and target types (documented as enums), refuse
// anything else with a located 400, and the entries the API writes carry the target type the table gives them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_ACTION_NAMES, AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '../../apps/api/src/audit-log/audit-actions';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(async () => {
  await api?.close();
});

describe('audit actions', () => {
  it('documents the action and targetType filters as the table’s enums', async () => {
    const doc = (await call(api.baseUrl, 'GET', '/docs/openapi.json')).body;
    const params = doc.paths['/v1/audit-log'].get.parameters as Array<{ name: string; schema: { enum?: string[] } }>;
    expect(params.find((p) => p.name === 'action')?.schema.enum).toEqual(AUDIT_ACTION_NAMES);
    expect(params.find((p) => p.name === 'targetType')?.schema.enum).toEqual([...AUDIT_TARGET_TYPES]);
  });

  it('refuses an action outside the table with a located 400, and filters by one inside it', async () => {
    const bad = await call(api.baseUrl, 'GET', '/v1/audit-log?action=group.created', { token: api.adminToken });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('action');
    const badType = await call(api.baseUrl, 'GET', '/v1/audit-log?targetType=planet', { token: api.adminToken });
    expect(badType.status).toBe(400);

    const created = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'audited' } });
    expect(created.status).toBe(201);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?action=group.create&targetType=group`, {
      token: api.adminToken,
    });
    expect(audit.status).toBe(200);
    expect(audit.body.items.map((e: { targetId: string }) => e.targetId)).toContain(created.body.id);
    const all = await call(api.baseUrl, 'GET', '/v1/audit-log?limit=200', { token: api.adminToken });
    for (const e of all.body.items as Array<{ action: keyof typeof AUDIT_ACTIONS; targetType: string }>) {
      expect(AUDIT_ACTIONS[e.action]?.target, e.action).toBe(e.targetType);
    }
  });
});
