// Poisoned records: text PostgreSQL cannot store is kept escaped and served back exactly; a record PostgreSQL still
// refuses in the worker is quarantined on its own (a finding), never costing its neighbours.
import { gzipSync } from 'node:zlib';
import { canonicalJson, sha256Hex } from '@hookwarden/hook-core';
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, createEndpoints, eventually, runRecord, type TestEndpoint } from '../support/audit-factories';
import { call } from '../support/http';
import { startTestWorker } from '../support/worker';

let api: TestApi;
let worker: INestApplicationContext;
let db: pg.Pool;
let auditor: string;
let eps: TestEndpoint[];

beforeAll(async () => {
  api = await startTestApi({ HOOK_RUN_GAP_GRACE_SEC: '0', HOOK_RUN_DRAIN_INTERVAL_SEC: '1', LOG_LEVEL: 'silent' });
  worker = await startTestWorker(api.config);
  db = new pg.Pool({ connectionString: api.db.url, max: 2 });
  auditor = await auditorToken(api);
  eps = await createEndpoints(api.db.url, 3);
});

afterAll(async () => {
  await db?.end();
  await worker?.close();
  await api?.close();
});

// Chains records as the spool would (canonical lines, prevHash links).
function chain(recs: Array<Record<string, unknown>>): string[] {
  let prev: string | null = null;
  return recs.map((r, i) => {
    const line = canonicalJson({ ...r, seq: i + 1, prevHash: prev });
    prev = sha256Hex(line);
    return line;
  });
}

// Uploads gzip NDJSON lines.
async function upload(ep: TestEndpoint, lines: string[]): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api.baseUrl}/v1/agent/hook-runs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ep.credential}`,
      'content-type': 'application/x-ndjson',
      'content-encoding': 'gzip',
    },
    body: gzipSync(lines.join('\n') + '\n'),
  });
  return { status: res.status, body: await res.json() };
}

describe('poisoned records', () => {
  it('stores NUL and lone surrogates losslessly: every record of the batch, served back exactly', async () => {
    const ep = eps[0]!;
    const lines = chain([
      runRecord({ seq: 1 }),
      { ...runRecord({ seq: 1 }), sessionId: 'sess\u0000ion' },
      { ...runRecord({ seq: 1 }), matcherInput: 'Ba\u0000sh', reason: 'because\u0000', decision: 'deny' },
      { ...runRecord({ seq: 1 }), turnId: 'turn\ud800' },
      runRecord({ seq: 1 }),
    ]);
    expect((await upload(ep, lines)).status).toBe(202);
    const page = await eventually(async () => {
      const res = await call(api.baseUrl, 'GET', `/v1/hook-runs?endpointId=${ep.id}`, { token: auditor });
      return res.body.items?.length === 5 ? res.body : null;
    }, 20_000);
    const bySeq = new Map<number, any>(page.items.map((i: any) => [i.seq, i]));
    for (const [i, line] of lines.entries()) {
      const item = bySeq.get(i + 1);
      expect(item.record).toEqual(JSON.parse(line));
      // What was stored hashes to what the endpoint chained: no broken link.
      expect(sha256Hex(canonicalJson(item.record))).toBe(sha256Hex(line));
    }
    expect(bySeq.get(2).sessionId).toBe('sess\u0000ion');
    expect(bySeq.get(2).escaped).toBe(true);
    expect(bySeq.get(3).toolName).toBe('Ba\u0000sh');
    expect(bySeq.get(4).turnId).toBe('turn\ud800');
    const one = await call(api.baseUrl, 'GET', `/v1/hook-runs/${bySeq.get(3).id}`, { token: auditor });
    expect(one.body.record.reason).toBe('because\u0000');
    const exp = await fetch(`${api.baseUrl}/v1/hook-runs/export?format=ndjson&endpointId=${ep.id}`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    const exported = (await exp.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    exported.sort((a, b) => (a.seq as number) - (b.seq as number)); // same start times: the export's id order
    expect(exported.map((r) => canonicalJson(r))).toEqual(lines);
    const findings = await call(api.baseUrl, 'GET', `/v1/findings?endpointId=${ep.id}`, { token: auditor });
    expect(findings.body.items).toEqual([]);
  });

  it('rejects a time PostgreSQL cannot store before 202, naming the line and field', async () => {
    const ep = eps[1]!;
    const lines = chain([runRecord({ seq: 1 }), { ...runRecord({ seq: 1 }), recordedAt: '0000-06-01T00:00:00.000Z' }]);
    const res = await upload(ep, lines);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^line 2: \$\.recordedAt: time out of range/);
    expect(res.body.error.details[0]).toMatchObject({ line: 2, path: '$.recordedAt' });
  });

  it('quarantines a record PostgreSQL refuses in the worker, stores its neighbours and reports it', async () => {
    const ep = eps[2]!;
    // A constraint only this test's database has stands for any refusal the door cannot foresee.
    await db.query(`ALTER TABLE hook_runs ADD CONSTRAINT test_poison CHECK (session_id IS DISTINCT FROM 'poison')`);
    try {
      const lines = chain([
        runRecord({ seq: 1 }),
        runRecord({ seq: 1, sessionId: 'poison' }),
        runRecord({ seq: 1 }),
        runRecord({ seq: 1 }),
      ]);
      expect((await upload(ep, lines)).status).toBe(202);
      const stored = await eventually(async () => {
        const r = await db.query<{ seq: number }>('SELECT seq FROM hook_runs WHERE endpoint_id = $1 ORDER BY seq', [
          ep.id,
        ]);
        return r.rows.length === 3 ? r.rows.map((x) => Number(x.seq)) : null;
      }, 20_000);
      expect(stored).toEqual([1, 3, 4]);
      const q = await db.query<{ seq: number; error: string; line: Buffer; sqlstate: string }>(
        'SELECT seq, error, line, sqlstate FROM hook_run_quarantine WHERE endpoint_id = $1',
        [ep.id],
      );
      expect(q.rows).toHaveLength(1);
      expect(Number(q.rows[0]!.seq)).toBe(2);
      expect(q.rows[0]!.sqlstate).toBe('23514');
      expect(q.rows[0]!.error).toMatch(/test_poison/);
      expect(q.rows[0]!.line.toString('utf8')).toBe(lines[1]);
      const findings = await call(api.baseUrl, 'GET', `/v1/findings?endpointId=${ep.id}`, { token: auditor });
      expect(findings.body.items).toEqual([
        expect.objectContaining({ kind: 'quarantined', fromSeq: 2, toSeq: 2, details: expect.anything() }),
      ]);
      // The chain continues past the quarantined record: no gap, no broken link.
      const staged = await db.query('SELECT count(*)::int AS n FROM hook_run_uploads');
      expect(staged.rows[0].n).toBe(0);
    } finally {
      await db.query('ALTER TABLE hook_runs DROP CONSTRAINT test_poison');
    }
  });
});
