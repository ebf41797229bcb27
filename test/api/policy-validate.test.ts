// POST /v1/policies/:id/versions/validate: the create checks without the write (the console editor's live lint).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { createPolicy, SCRIPT, VALID_TOML } from '../support/policies';

let api: TestApi;
let db: pg.Client;
let auditor: string;
beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  auditor = (
    await call(api.baseUrl, 'POST', '/v1/tokens', { token: api.adminToken, body: { name: 'aud', role: 'auditor' } })
  ).body.token;
});
afterAll(async () => {
  await db?.end();
  await api?.close();
});

const validate = (policyId: string, body: unknown, token = api.adminToken) =>
  call(api.baseUrl, 'POST', `/v1/policies/${policyId}/versions/validate`, { token, body });

// Rows that would show a write: versions of the policy and audit-log entries about it.
async function writes(policyId: string): Promise<{ versions: number; audit: number }> {
  const v = await db.query('SELECT count(*)::int AS n FROM policy_versions WHERE policy_id = $1', [policyId]);
  const a = await db.query('SELECT count(*)::int AS n FROM audit_log WHERE target_id = $1', [policyId]);
  return { versions: v.rows[0].n, audit: a.rows[0].n };
}

describe('validate a policy version', () => {
  it('answers the canonical TOML, digest and warnings of valid content, and stores nothing', async () => {
    const id = await createPolicy(api.baseUrl, api.adminToken, 'validate-ok');
    const before = await writes(id);
    const res = await validate(id, { toml: VALID_TOML, files: [SCRIPT] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, errors: [] });
    expect(res.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await writes(id)).toEqual(before);
    // The digest and TOML are the ones a real create then stores.
    const created = await call(api.baseUrl, 'POST', `/v1/policies/${id}/versions`, {
      token: api.adminToken,
      body: { toml: VALID_TOML, files: [SCRIPT], baseVersion: 0 },
    });
    expect(created.status).toBe(201);
    expect(created.body.digest).toBe(res.body.digest);
    expect(created.body.toml).toBe(res.body.toml);
    expect(created.body.warnings).toEqual(res.body.warnings);
  });

  it('locates a TOML syntax error at its line and column, and lint errors too, as a create would', async () => {
    const id = await createPolicy(api.baseUrl, api.adminToken, 'validate-bad');
    const broken = VALID_TOML.replace('timeout = 30', 'timeout = = 30');
    const res = await validate(id, { toml: broken, files: [SCRIPT] });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(false);
    const line = broken.split('\n').findIndex((l) => l.startsWith('timeout')) + 1;
    expect(res.body.errors[0]).toMatchObject({ severity: 'error', line, field: '$.toml' });
    expect(res.body.errors[0].column).toBeGreaterThan(0);
    const create = await call(api.baseUrl, 'POST', `/v1/policies/${id}/versions`, {
      token: api.adminToken,
      body: { toml: broken, files: [SCRIPT], baseVersion: 0 },
    });
    expect(create.status).toBe(400);
    expect(create.body.error.details).toEqual(res.body.errors);

    const unsafe = await validate(id, { toml: VALID_TOML, files: [{ path: '../escape.sh', content: 'x' }] });
    expect(unsafe.body.ok).toBe(false);
    expect(unsafe.body.errors.some((e: any) => e.field?.startsWith('$.files[0]'))).toBe(true);
    expect(await writes(id)).toEqual({ versions: 0, audit: 1 }); // only the policy's creation
  });

  it('is for admins; an unknown policy is a 404 and a malformed body a located 400', async () => {
    const id = await createPolicy(api.baseUrl, api.adminToken, 'validate-auth');
    expect((await validate(id, { toml: VALID_TOML }, auditor)).status).toBe(403);
    const missing = await validate('00000000-0000-4000-8000-000000000009', { toml: VALID_TOML });
    expect(missing.status).toBe(404);
    const both = await validate(id, { toml: VALID_TOML, policy: {} });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('validation_failed');
    expect(JSON.stringify(both.body.error.details)).toContain('toml');
  });
});
