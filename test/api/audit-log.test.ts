import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { call } from '../support/http';

// A fresh API with a few audited changes, so each test owns its chain.
async function apiWithChanges(n: number): Promise<{ api: TestApi; db: pg.Client }> {
  const api = await startTestApi();
  for (let i = 0; i < n; i++) {
    const r = await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: `g${i}` } });
    expect(r.status).toBe(201);
  }
  const db = new pg.Client({ connectionString: api.db.url });
  await db.connect();
  return { api, db };
}

const verify = (api: TestApi) => call(api.baseUrl, 'GET', '/v1/audit-log/verify', { token: api.adminToken });

describe('admin audit log', () => {
  let api: TestApi;
  let db: pg.Client;
  beforeAll(async () => {
    ({ api, db } = await apiWithChanges(5));
  });
  afterAll(async () => {
    await db?.end();
    await api?.close();
  });

  it('records actor, role, action, target, request id and client address; filters and paginates', async () => {
    const page = await call(api.baseUrl, 'GET', '/v1/audit-log?actionPrefix=group.&limit=2', {
      token: api.adminToken,
    });
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(2);
    const e = page.body.items[0];
    expect(e).toMatchObject({
      action: 'group.create',
      targetType: 'group',
      actorName: 'bootstrap admin',
      role: 'admin',
    });
    expect(e.requestId).toBeTruthy();
    expect(e.clientIp).toBe('127.0.0.1');
    expect(e.details.name).toBe('g4');
    const next = await call(
      api.baseUrl,
      'GET',
      `/v1/audit-log?actionPrefix=group.&limit=2&cursor=${page.body.nextCursor}`,
      {
        token: api.adminToken,
      },
    );
    expect(next.body.items.map((x: any) => x.details.name)).toEqual(['g2', 'g1']);
    const none = await call(api.baseUrl, 'GET', `/v1/audit-log?from=${new Date(Date.now() + 60_000).toISOString()}`, {
      token: api.adminToken,
    });
    expect(none.body).toEqual({ items: [], nextCursor: null });
    const byActor = await call(api.baseUrl, 'GET', '/v1/audit-log?actor=system', { token: api.adminToken });
    expect(byActor.body.items.map((x: any) => x.action)).toEqual(['token.bootstrap']);
  });

  it('exports NDJSON and CSV, oldest first', async () => {
    const nd = await fetch(`${api.baseUrl}/v1/audit-log?format=ndjson`, {
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    expect(nd.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await nd.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.action)).toEqual(['token.bootstrap', ...Array(5).fill('group.create')]);
    expect(lines.map((l) => Number(l.seq))).toEqual([1, 2, 3, 4, 5, 6]);
    const csv = await fetch(`${api.baseUrl}/v1/audit-log?format=csv&action=group.create`, {
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const rows = (await csv.text()).trim().split('\r\n');
    expect(rows[0]).toBe(
      'seq,id,at,actorId,actorName,role,action,targetType,targetId,beforeDigest,afterDigest,details,requestId,clientIp,prevHash,hash',
    );
    expect(rows).toHaveLength(6);
    expect(rows[1]).toContain('"{""name"":""g0""}"');
  });

  it('verifies an intact chain', async () => {
    const res = await verify(api);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, checked: 6 });
  });
});

describe('audit chain verification detects tampering', () => {
  it('an edited row shows as a hash mismatch at its sequence number', async () => {
    const { api, db } = await apiWithChanges(4);
    try {
      await db.query(`UPDATE audit_log SET actor_name = 'mallory' WHERE seq = 3`);
      const res = await verify(api);
      expect(res.body).toMatchObject({ ok: false, firstBrokenSeq: '3', checked: 2 });
      expect(res.body.reason).toContain('altered');
    } finally {
      await db.end();
      await api.close();
    }
  });

  it('an edited row with a recomputed hash breaks the next link', async () => {
    const { api, db } = await apiWithChanges(4);
    try {
      await db.query(`UPDATE audit_log SET details = '{"name":"x"}', hash = 'sha256:${'1'.repeat(64)}' WHERE seq = 2`);
      const res = await verify(api);
      expect(res.body).toMatchObject({ ok: false, firstBrokenSeq: '2' });
    } finally {
      await db.end();
      await api.close();
    }
  });

  it('a deleted row shows as a gap / broken link', async () => {
    const { api, db } = await apiWithChanges(4);
    try {
      await db.query(`DELETE FROM audit_log WHERE seq = 4`);
      const res = await verify(api);
      expect(res.body).toMatchObject({ ok: false, firstBrokenSeq: '5', checked: 3 });
      expect(res.body.reason).toContain('missing');
    } finally {
      await db.end();
      await api.close();
    }
  });

  it('a deleted first row is detected too', async () => {
    const { api, db } = await apiWithChanges(2);
    try {
      await db.query(`DELETE FROM audit_log WHERE seq = 1`);
      const res = await verify(api);
      expect(res.body).toMatchObject({ ok: false, firstBrokenSeq: '2', checked: 0 });
    } finally {
      await db.end();
      await api.close();
    }
  });
});
