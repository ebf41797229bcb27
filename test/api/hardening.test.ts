// Database errors a request can cause map to 4xx/503 (never a bare 500), exports fail before their first byte with an
// error answer (never a cut 200), deep JSON is refused, and versions read with content post back unchanged.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapDatabaseError } from '../../apps/api/src/common/db-errors';
import { PrismaService } from '../../apps/api/src/prisma/prisma.service';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';
import { enrollAgent } from '../support/identity';
import { createGroupWithPolicy, createVersion, requirementsToml } from '../support/sync-factories';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ AUTH_FAILURE_LIMIT: '100000' });
});
afterAll(async () => {
  await api?.close();
});

// The error a Prisma call throws.
async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('Prisma errors are mapped in the error filter', () => {
  it('P2002 (unique) → 409, P2025 (missing row) → 404, P2003 (missing reference) → 400', async () => {
    const prisma = api.app.get(PrismaService);
    const name = `unique-${randomUUID().slice(0, 8)}`;
    await prisma.group.create({ data: { name } });
    const dup = await failure(() => prisma.group.create({ data: { name } }));
    expect((dup as { code?: string }).code).toBe('P2002');
    expect(mapDatabaseError(dup)).toMatchObject({ status: 409, code: 'conflict' });
    const missing = await failure(() =>
      prisma.group.update({ where: { id: randomUUID() }, data: { description: 'x' } }),
    );
    expect((missing as { code?: string }).code).toBe('P2025');
    expect(mapDatabaseError(missing)).toMatchObject({ status: 404, code: 'not_found' });
    const dangling = await failure(() =>
      prisma.policy.create({ data: { name: `p-${randomUUID()}`, groupId: randomUUID() } }),
    );
    expect((dangling as { code?: string }).code).toBe('P2003');
    expect(mapDatabaseError(dangling)).toMatchObject({ status: 400, code: 'validation_failed' });
    // Anything else stays unmapped (a logged 500).
    expect(mapDatabaseError(new Error('boom'))).toBeNull();
  });

  it('a unique race on rename answers 409 in the one error shape', async () => {
    const a = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'race-a' } });
    const b = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'race-b' } });
    const renames = await Promise.all(
      [a.body.id, b.body.id].map((id: string) =>
        call(api.baseUrl, 'PATCH', `/v1/groups/${id}`, { token: api.adminToken, body: { name: 'race-same' } }),
      ),
    );
    expect(renames.map((r) => r.status).sort()).toEqual([200, 409]);
    const lost = renames.find((r) => r.status === 409)!;
    expect(lost.body.error).toMatchObject({ code: 'conflict', requestId: expect.any(String) });
  });
});

describe('exports that fail before their first byte', () => {
  let broken: TestApi;
  beforeAll(async () => {
    broken = await startTestApi({ DATABASE_READ_URL: 'postgresql://postgres@127.0.0.1:1/none' }, { sameAs: api });
  });
  afterAll(async () => {
    await broken?.close();
  });

  it('answer an error status with the error shape instead of a cut 200', async () => {
    // Auditor reads and exports use the read pool (DATABASE_READ_URL), which this instance cannot reach.
    for (const path of [
      '/v1/audit-log?format=csv',
      '/v1/audit-log?format=ndjson',
      '/v1/hook-runs/export?format=csv',
      '/v1/hook-runs/export?format=ndjson',
    ]) {
      const res = await call(broken.baseUrl, 'GET', path, { token: api.adminToken });
      expect(res.status, path).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'unavailable', requestId: expect.any(String) });
      expect(res.headers.get('retry-after')).toBe('5');
    }
    // Findings are an auditor read too (the read pool), and so is the audit log's JSON page.
    for (const path of ['/v1/findings', '/v1/audit-log']) {
      expect((await call(broken.baseUrl, 'GET', path, { token: api.adminToken })).status, path).toBe(503);
    }
    const ready = await call(broken.baseUrl, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(Object.keys(ready.body.error.details.failing)).toEqual(['postgresql_read']);
  });

  it('audit-log CSV with a NUL actor is a 400 naming actor, not a cut body', async () => {
    const res = await call(api.baseUrl, 'GET', '/v1/audit-log?format=csv&actor=%00', { token: api.adminToken });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ path: '$.actor', in: 'query' });
  });
});

describe('bounded-depth JSON', () => {
  it('a JSON array nested 10,000 deep to POST /v1/agent/hook-runs is a 400, as is any deep JSON body', async () => {
    const { groupId } = await createGroupWithPolicy(api);
    const secret = await call(api.baseUrl, 'POST', `/v1/groups/${groupId}/enrollment-secrets`, {
      token: api.adminToken,
      body: { name: 'deep' },
    });
    const agent = await enrollAgent(api.baseUrl, secret.body.secret, { machineId: 'deep-json-machine-1' });
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const upload = await agent.call('POST', '/v1/agent/hook-runs', {
      body: deep,
      headers: { 'content-type': 'application/json' },
    });
    expect(upload.status).toBe(400);
    expect(upload.body.error.code).toBe('bad_request');
    const ndjson = await agent.call('POST', '/v1/agent/hook-runs', {
      body: `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(ndjson.status).toBe(400);
    expect(ndjson.body.error.code).toBe('validation_failed');
    const admin = await call(api.baseUrl, 'POST', '/v1/groups', {
      token: api.adminToken,
      body: `{"name":"x","description":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    });
    expect(admin.status).toBe(400);
    // Brackets inside strings do not count.
    const fine = await call(api.baseUrl, 'POST', '/v1/groups', {
      token: api.adminToken,
      body: { name: 'brackets', description: '['.repeat(1500) },
    });
    expect(fine.status).toBe(201);
  });
});

describe('versions read with content round-trip', () => {
  it('?withContent=true returns base64 content with its encoding, and posting it back changes nothing', async () => {
    const { policyId } = await createGroupWithPolicy(api);
    const script = '#!/bin/sh\necho "héllo"\n';
    const v1 = await createVersion(api, policyId, requirementsToml('/opt/rt', 'one'), [
      { path: 'check.sh', content: script },
    ]);
    const read = await call(api.baseUrl, 'GET', `/v1/policies/${policyId}/versions/${v1.number}?withContent=true`, {
      token: api.adminToken,
    });
    expect(read.status).toBe(200);
    const file = read.body.files.find((f: { path: string }) => f.path === 'check.sh');
    expect(file).toMatchObject({ encoding: 'base64', content: Buffer.from(script).toString('base64') });
    const again = await call(api.baseUrl, 'POST', `/v1/policies/${policyId}/versions`, {
      token: api.adminToken,
      body: {
        toml: read.body.toml,
        files: read.body.files.map((f: any) => ({
          path: f.path,
          content: f.content,
          encoding: f.encoding,
          mode: f.mode,
        })),
        baseVersion: v1.number,
      },
    });
    expect(again.status).toBe(200); // identical content: no new version
    expect(again.body.digest).toBe(read.body.digest);
  });
});
