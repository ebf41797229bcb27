import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { canonicalJson } from '@hookwarden/hook-core';
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

const verify = (api: TestApi, query = '') =>
  call(api.baseUrl, 'GET', `/v1/audit-log/verify${query}`, { token: api.adminToken });

interface Checkpoint {
  kind: string;
  seq: string;
  hash: string;
  at: string;
  keyId: string;
  signature: string;
}

// Whether a checkpoint's signature verifies with its key from the signing-key list route.
async function signatureValid(api: TestApi, token: string, c: Checkpoint): Promise<boolean> {
  const list = await call(api.baseUrl, 'GET', '/v1/signing-keys/trusted', { token });
  expect(list.status).toBe(200);
  const key = (list.body.keys as Array<{ kid: string; publicKeyPem: string }>).find((k) => k.kid === c.keyId);
  expect(key).toBeDefined();
  const { keyId: _k, signature, ...signed } = c;
  return verifySignature(
    null,
    Buffer.from(canonicalJson(signed), 'utf8'),
    createPublicKey(key!.publicKeyPem),
    Buffer.from(signature, 'base64'),
  );
}

// The verify query for a kept checkpoint.
const against = (c: Checkpoint): string => `?checkpointSeq=${c.seq}&checkpointHash=${c.hash}`;

// A signed checkpoint of the current end from GET /v1/audit-log/head.
async function headCheckpoint(api: TestApi): Promise<Checkpoint> {
  const res = await call(api.baseUrl, 'GET', '/v1/audit-log/head', { token: api.adminToken });
  expect(res.status).toBe(200);
  return res.body as Checkpoint;
}

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
      'seq,id,at,actorId,actorName,role,action,targetType,targetId,beforeDigest,afterDigest,details,requestId,clientIp,prevHash,hash,person',
    );
    expect(rows).toHaveLength(6);
    expect(rows[1]).toContain('"{""name"":""g0""}"');
  });

  it('verifies an intact chain and returns a signed checkpoint of its end', async () => {
    const res = await verify(api);
    expect(res.status).toBe(200);
    const last = (await db.query<{ hash: string }>('SELECT hash FROM audit_log WHERE seq = 6')).rows[0]!;
    expect(res.body).toEqual({
      ok: true,
      checked: 6,
      checkpoint: {
        kind: 'hookwarden.audit-log.checkpoint',
        seq: '6',
        hash: last.hash,
        at: expect.any(String),
        keyId: expect.stringMatching(/^ed25519:/),
        signature: expect.any(String),
      },
    });
    expect(await signatureValid(api, api.adminToken, res.body.checkpoint)).toBe(true);
    // The signature covers seq, hash, time and kind: a checkpoint moved back one entry no longer verifies.
    expect(await signatureValid(api, api.adminToken, { ...res.body.checkpoint, seq: '5' })).toBe(false);
    expect((await verify(api, against(res.body.checkpoint))).body).toMatchObject({ ok: true, checked: 6 });
  });

  it('GET /v1/audit-log/head: a signed checkpoint of the newest entry, for auditors too', async () => {
    const auditor = await call(api.baseUrl, 'POST', '/v1/tokens', {
      token: api.adminToken,
      body: { name: 'head-auditor', role: 'auditor' },
    });
    const res = await call(api.baseUrl, 'GET', '/v1/audit-log/head', { token: auditor.body.token });
    expect(res.status).toBe(200);
    const last = (await db.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC'))
      .rows[0]!;
    expect(res.body).toMatchObject({ kind: 'hookwarden.audit-log.checkpoint', seq: last.seq, hash: last.hash });
    expect(await signatureValid(api, auditor.body.token, res.body)).toBe(true);
  });

  it('rejects a half or malformed checkpoint with 400 naming the field', async () => {
    const half = await verify(api, '?checkpointSeq=3');
    expect(half.status).toBe(400);
    expect(half.body.error.message).toContain('checkpointHash');
    const bad = await verify(api, `?checkpointSeq=x&checkpointHash=sha256:${'a'.repeat(64)}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('checkpointSeq');
  });
});

it('CSV export prefixes text a spreadsheet would run as a formula with a quote; NDJSON is verbatim', async () => {
  const { api, db } = await apiWithChanges(0);
  try {
    const created = await call(api.baseUrl, 'POST', '/v1/groups', {
      token: api.adminToken,
      body: { name: 'csv' },
      headers: { 'x-request-id': '-1-1' },
    });
    expect(created.status).toBe(201);
    const get = (format: string) =>
      fetch(`${api.baseUrl}/v1/audit-log?format=${format}&action=group.create`, {
        headers: { authorization: `Bearer ${api.adminToken}` },
      }).then((r) => r.text());
    const [head, row] = (await get('csv')).trim().split('\r\n');
    const fields = Object.fromEntries(head!.split(',').map((h, i) => [h, row!.split(',')[i]]));
    expect(fields).toMatchObject({ seq: '2', requestId: "'-1-1", action: 'group.create' });
    expect(JSON.parse(await get('ndjson'))).toMatchObject({ seq: '2', requestId: '-1-1' });
  } finally {
    await db.end();
    await api.close();
  }
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

  it('deleting the newest entries: the chain falls short of audit_log_head (truncated); head answers 409', async () => {
    const { api, db } = await apiWithChanges(4);
    try {
      await db.query('DELETE FROM audit_log WHERE seq >= 4');
      const res = await verify(api);
      expect(res.body).toMatchObject({ ok: false, checked: 3, firstBrokenSeq: '4', problem: 'truncated' });
      expect(res.body.reason).toContain(
        'the chain ends at entry 3 but the recorded head (audit_log_head) names entry 5',
      );
      expect(res.body.checkpoint).toBeUndefined();
      const head = await call(api.baseUrl, 'GET', '/v1/audit-log/head', { token: api.adminToken });
      expect(head.status).toBe(409);
      expect(head.body.error.message).toContain('ends at entry 3 but audit_log_head records entry 5');
      // The next change continues from the head, so the removal stays visible as a gap.
      await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'later' } });
      const after = await verify(api);
      expect(after.body).toMatchObject({ ok: false, firstBrokenSeq: '6', problem: 'missing_entries' });
      expect(after.body.reason).toContain('entries 4..5 are missing');
    } finally {
      await db.end();
      await api.close();
    }
  });

  it('deleting the newest entries and moving audit_log_head back: a kept checkpoint still catches it', async () => {
    const { api, db } = await apiWithChanges(4);
    try {
      const kept = await headCheckpoint(api);
      expect(kept.seq).toBe('5');
      await db.query('DELETE FROM audit_log WHERE seq >= 4');
      await db.query('UPDATE audit_log_head SET seq = 3, hash = (SELECT hash FROM audit_log WHERE seq = 3)');
      expect((await verify(api)).body).toMatchObject({ ok: true, checked: 3 }); // the server alone cannot tell
      const res = await verify(api, against(kept));
      expect(res.body).toMatchObject({ ok: false, checked: 3, firstBrokenSeq: '4', problem: 'truncated' });
      expect(res.body.reason).toBe(
        'the chain ends at entry 3 but your checkpoint names entry 5: entries 4..5 were removed',
      );
    } finally {
      await db.end();
      await api.close();
    }
  });

  it('rewriting the end after a checkpoint (delete, move the head back, append anew) is reported as rewritten', async () => {
    const { api, db } = await apiWithChanges(3);
    try {
      const kept = await headCheckpoint(api);
      await db.query(`DELETE FROM audit_log WHERE seq = ${kept.seq}`);
      await db.query(
        `UPDATE audit_log_head SET seq = ${Number(kept.seq) - 1}, hash = (SELECT hash FROM audit_log WHERE seq = ${Number(kept.seq) - 1})`,
      );
      await call(api.baseUrl, 'POST', '/v1/groups', { token: api.adminToken, body: { name: 'replacement' } });
      const fresh = await headCheckpoint(api);
      expect(fresh.seq).toBe(kept.seq);
      expect(fresh.hash).not.toBe(kept.hash);
      expect((await verify(api)).body.ok).toBe(true);
      const res = await verify(api, against(kept));
      expect(res.body).toMatchObject({ ok: false, firstBrokenSeq: kept.seq, problem: 'rewritten' });
      expect(res.body.reason).toContain('your checkpoint');
    } finally {
      await db.end();
      await api.close();
    }
  });

  it('a missing audit_log_head row is reported', async () => {
    const { api, db } = await apiWithChanges(1);
    try {
      await db.query('DELETE FROM audit_log_head');
      expect((await verify(api)).body).toMatchObject({ ok: false, problem: 'head_missing' });
      expect((await call(api.baseUrl, 'GET', '/v1/audit-log/head', { token: api.adminToken })).status).toBe(409);
    } finally {
      await db.end();
      await api.close();
    }
  });
});
