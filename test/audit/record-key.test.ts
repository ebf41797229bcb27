// A hook-run record is keyed by its endpoint: another endpoint re-using its ids (learned or guessed) never pre-empts
// or shadows it, the same endpoint re-sending stays exactly once, and evidence is stored only under the uploader's
// own identity.
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

beforeAll(async () => {
  api = await startTestApi({ HOOK_RUN_GAP_GRACE_SEC: '0', LOG_LEVEL: 'error' });
  worker = await startTestWorker(api.config);
  db = new pg.Pool({ connectionString: api.db.url, max: 2 });
  auditor = await auditorToken(api);
});
afterAll(async () => {
  await db?.end();
  await worker?.close();
  await api?.close();
});

type Rec = ReturnType<typeof runRecord>;

// Chains records as the spool does (seq from 1, each naming the previous line's hash) and returns the NDJSON lines.
function chain(recs: Rec[]): string[] {
  let prev: string | null = null;
  return recs.map((r, i) => {
    const line = canonicalJson({ ...r, seq: i + 1, prevHash: prev });
    prev = sha256Hex(line);
    return line;
  });
}

// Uploads NDJSON lines with an endpoint credential (202 expected).
async function upload(ep: TestEndpoint, lines: string[], path = '/v1/agent/hook-runs'): Promise<void> {
  const res = await call(api.baseUrl, 'POST', path, {
    token: ep.credential,
    body: lines.join('\n') + '\n',
    headers: { 'content-type': 'application/x-ndjson' },
  });
  expect(res.status).toBe(202);
}

// The stored rows of an endpoint: id → the record's hook key (what tells the two endpoints' records apart).
async function rowsOf(endpointId: string): Promise<Map<string, string>> {
  const res = await db.query<{ id: string; hook_key: string }>(
    'SELECT id, hook_key FROM hook_runs WHERE endpoint_id = $1',
    [endpointId],
  );
  return new Map(res.rows.map((r) => [r.id, r.hook_key]));
}

// Waits until no staged upload is left (every accepted batch stored or refused).
const drained = () => eventually(async () => (await db.query('SELECT 1 FROM hook_run_uploads')).rowCount === 0 && true);

describe('the hook_runs key includes the endpoint', () => {
  it("an endpoint uploading another's record ids and times first pre-empts nothing: both keep theirs", async () => {
    const [victim, copier] = await createEndpoints(api.db.url, 2);
    const startedAt = new Date(Date.now() - 60_000);
    const own = Array.from({ length: 5 }, (_, i) =>
      runRecord({ seq: i + 1, startedAt, hookKey: `victim-hook-${i}`, status: 'ran' }),
    );
    // The copier learned the ids (and start times) first and uploads them before the victim does.
    const copies = own.map((r, i) => ({
      ...r,
      hook: { ...r.hook, key: `copied-hook-${i}` },
      status: 'failed' as const,
    }));
    await upload(copier!, chain(copies));
    await eventually(async () => (await rowsOf(copier!.id)).size === 5);
    await upload(victim!, chain(own));
    const stored = await eventually(async () => {
      const m = await rowsOf(victim!.id);
      return m.size === 5 ? m : null;
    });
    expect([...stored.keys()].sort()).toEqual(own.map((r) => r.id).sort());
    expect([...stored.values()].sort()).toEqual(own.map((r) => r.hook.key).sort());
    expect([...(await rowsOf(copier!.id)).values()].every((k) => k.startsWith('copied-hook-'))).toBe(true);
    // Neither chain saw the other's records: no findings for either.
    const findings = await db.query('SELECT kind FROM hook_run_findings WHERE endpoint_id = ANY($1::uuid[])', [
      [victim!.id, copier!.id],
    ]);
    expect(findings.rows).toEqual([]);

    // The same endpoint re-sending its batch, or a batch overlapping it, stays exactly once.
    await upload(victim!, chain(own));
    const more = chain([...own, runRecord({ seq: 6, startedAt, hookKey: 'victim-hook-5' })]);
    await upload(victim!, more.slice(3));
    await drained();
    const after = await db.query<{ id: string; n: number }>(
      'SELECT id, count(*)::int AS n FROM hook_runs WHERE endpoint_id = $1 GROUP BY id',
      [victim!.id],
    );
    expect(after.rows).toHaveLength(6);
    expect(after.rows.every((r) => r.n === 1)).toBe(true);
    expect((await rowsOf(copier!.id)).size).toBe(5);

    // One record by id names both endpoints until the auditor picks one.
    const id = own[0]!.id;
    const ambiguous = await call(api.baseUrl, 'GET', `/v1/hook-runs/${id}`, { token: auditor });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.message).toContain(victim!.id);
    expect(ambiguous.body.error.message).toContain(copier!.id);
    expect(ambiguous.body.error.message).toContain('endpointId');
    const mine = await call(api.baseUrl, 'GET', `/v1/hook-runs/${id}?endpointId=${victim!.id}`, { token: auditor });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id, endpointId: victim!.id, hookKey: 'victim-hook-0', status: 'ran' });
    const theirs = await call(api.baseUrl, 'GET', `/v1/hook-runs/${id}?endpointId=${copier!.id}`, { token: auditor });
    expect(theirs.body).toMatchObject({ id, endpointId: copier!.id, hookKey: 'copied-hook-0', status: 'failed' });
    const other = await call(api.baseUrl, 'GET', `/v1/hook-runs/${own[5 - 1]!.id}?endpointId=${crypto.randomUUID()}`, {
      token: auditor,
    });
    expect(other.status).toBe(404);
    const bad = await call(api.baseUrl, 'GET', `/v1/hook-runs/${id}?endpointId=nope`, { token: auditor });
    expect(bad.status).toBe(400);

    // Paging one run at a time lists every record once, both of each pair sharing a time and id included.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `/v1/hook-runs?groupId=${victim!.groupId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await call(api.baseUrl, 'GET', q, { token: auditor });
      expect(page.status).toBe(200);
      for (const r of page.body.items as Array<{ id: string; endpointId: string }>)
        seen.push(`${r.endpointId}/${r.id}`);
      cursor = page.body.nextCursor;
    } while (cursor && seen.length < 50);
    expect(seen).toHaveLength(11);
    expect(new Set(seen).size).toBe(11);
  });

  it('stores records only under the uploading endpoint, whatever the body or query string claims', async () => {
    const [victim, uploader] = await createEndpoints(api.db.url, 2);
    const rec = {
      ...runRecord({ seq: 1 }),
      endpointId: victim!.id,
      groupId: victim!.groupId,
      endpoint: { id: victim!.id },
    };
    await upload(uploader!, [canonicalJson(rec)], `/v1/agent/hook-runs?endpointId=${victim!.id}`);
    await eventually(async () => (await rowsOf(uploader!.id)).size === 1);
    expect((await rowsOf(victim!.id)).size).toBe(0);
    const stored = await db.query('SELECT endpoint_id, group_id FROM hook_runs WHERE id = $1', [rec.id]);
    expect(stored.rows).toEqual([{ endpoint_id: uploader!.id, group_id: uploader!.groupId }]);
    expect((await db.query('SELECT 1 FROM hook_run_chains WHERE endpoint_id = $1', [victim!.id])).rowCount).toBe(0);
  });

  it('every partition, the ones created later included, carries the key with the endpoint', async () => {
    const [ep] = await createEndpoints(api.db.url, 1);
    // A month with no partition yet: ingest creates it on demand.
    const startedAt = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 6, 15));
    const rec = runRecord({ seq: 1, startedAt });
    await upload(ep!, chain([rec]));
    await eventually(async () => (await rowsOf(ep!.id)).size === 1);
    const keys = await db.query<{ table: string; columns: string[] }>(
      `SELECT c.relname AS table, array_agg(a.attname ORDER BY k.ord)::text[] AS columns
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
        WHERE i.indisprimary AND (c.relname = 'hook_runs' OR c.relname LIKE 'hook\\_runs\\_p%')
        GROUP BY c.relname`,
    );
    const month = `hook_runs_p${startedAt.getUTCFullYear()}07`;
    expect(keys.rows.map((r) => r.table)).toContain(month);
    for (const r of keys.rows) expect(r.columns).toEqual(['id', 'endpoint_id', 'started_at']);
  });
});
