import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

describe('endpoint groups', () => {
  let api: TestApi;
  let auditor: string;
  beforeAll(async () => {
    api = await startTestApi();
    const t = await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'auditor', role: 'auditor' },
    });
    auditor = t.body.token;
  });
  afterAll(async () => {
    await api?.close();
  });

  it('has a default group that cannot be deleted or renamed', async () => {
    const list = await call(api.baseUrl, 'GET', '/v1/groups?namePrefix=def', { token: auditor });
    expect(list.status).toBe(200);
    const def = list.body.items.find((g: any) => g.isDefault);
    expect(def.name).toBe('default');
    const del = await call(api.baseUrl, 'DELETE', `/v1/groups/${def.id}`, { token: api.adminToken });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toContain('default');
    const rename = await call(api.baseUrl, 'PATCH', `/v1/groups/${def.id}`, {
      token: api.adminToken,
      body: { name: 'other' },
    });
    expect(rename.status).toBe(409);
  });

  it('creates, reads, updates and deletes a group, audited; auditors cannot change groups', async () => {
    const created = await call(api.baseUrl, 'POST', '/v1/groups', {
      token: api.adminToken,
      body: { name: 'engineering', description: 'devs' },
    });
    expect(created.status).toBe(201);
    const dup = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'engineering' } });
    expect(dup.status).toBe(409);
    expect((await call(api.baseUrl, 'POST', '/v1/groups', { token: auditor, body: { name: 'x' } })).status).toBe(403);
    const got = await call(api.baseUrl, 'GET', `/v1/groups/${created.body.id}`, { token: auditor });
    expect(got.body.name).toBe('engineering');
    const patched = await call(api.baseUrl, 'PATCH', `/v1/groups/${created.body.id}`, {
      token: api.adminToken,
      body: { name: 'eng' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('eng');
    const del = await call(api.baseUrl, 'DELETE', `/v1/groups/${created.body.id}`, { token: api.adminToken });
    expect(del.status).toBe(200);
    expect((await call(api.baseUrl, 'GET', `/v1/groups/${created.body.id}`, { token: auditor })).status).toBe(404);
    const audit = await call(api.baseUrl, 'GET', `/v1/audit-log?targetId=${created.body.id}`, { token: auditor });
    expect(audit.body.items.map((e: any) => e.action)).toEqual(['group.delete', 'group.update', 'group.create']);
  });

  it('refuses to delete a group with endpoints, naming why', async () => {
    const g = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'contractors' } });
    const client = new pg.Client({ connectionString: api.db.url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO endpoints (id, group_id, machine_id, hostname, platform, agent_version, credential_hash)
         VALUES (gen_random_uuid(), $1, 'm-1', 'host-1', 'linux', '0.1.0', 'h-1')`,
        [g.body.id],
      );
    } finally {
      await client.end();
    }
    const del = await call(api.baseUrl, 'DELETE', `/v1/groups/${g.body.id}`, { token: api.adminToken });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toContain('1 endpoints');
    expect(del.body.error.details.usage.endpoints).toBe(1);
  });
});
