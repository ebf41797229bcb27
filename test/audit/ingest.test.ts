// Upload → queue → worker → hook_runs: validation, idempotency, chain findings, gzip and size caps.
import { gzipSync } from 'node:zlib';
import { canonicalJson } from '@hookwarden/hook-core';
import pg from 'pg';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, chainedLines, eventually, runRecord } from '../support/audit-factories';
import { keyedEndpoints, type SignedAgent } from '../support/identity';
import { startTestWorker } from '../support/worker';
import { call } from '../support/http';

let api: TestApi;
let worker: INestApplicationContext;
let db: pg.Pool;
let auditor: string;
let endpoints: SignedAgent[];

beforeAll(async () => {
  api = await startTestApi({ HOOK_RUN_GAP_GRACE_SEC: '0', HOOK_RUN_UPLOAD_MAX_BYTES: '200000', LOG_LEVEL: 'error' });
  worker = await startTestWorker(api.config);
  db = new pg.Pool({ connectionString: api.db.url, max: 2 });
  auditor = await auditorToken(api);
  endpoints = await keyedEndpoints(api, 4);
});

afterAll(async () => {
  await db?.end();
  await worker?.close();
  await api?.close();
});

// Uploads NDJSON lines (gzip by default) signed by an endpoint.
async function upload(ep: SignedAgent, lines: string[], opts: { gzip?: boolean; dropped?: number } = {}) {
  const text = lines.join('\n') + '\n';
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
  if (opts.gzip !== false) headers['content-encoding'] = 'gzip';
  if (opts.dropped !== undefined) headers['x-hookwarden-records-dropped'] = String(opts.dropped);
  return ep.call('POST', '/v1/agent/hook-runs', { headers, body: opts.gzip !== false ? gzipSync(text) : text });
}

// Counts stored rows of an endpoint.
async function countRows(endpointId: string): Promise<number> {
  const res = await db.query<{ n: string }>('SELECT count(*) AS n FROM hook_runs WHERE endpoint_id = $1', [endpointId]);
  return Number(res.rows[0]!.n);
}

describe('POST /v1/agent/hook-runs', () => {
  it('accepts a gzip NDJSON batch with 202 and the worker stores every record with its columns', async () => {
    const ep = endpoints[0]!;
    const { lines } = chainedLines(20, 1, { decision: 'deny', toolName: 'Bash' });
    const res = await upload(ep, lines);
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(20);
    await eventually(async () => (await countRows(ep.id)) === 20);
    const row = await db.query('SELECT * FROM hook_runs WHERE endpoint_id = $1 AND seq = 5', [ep.id]);
    expect(row.rows[0]).toMatchObject({
      group_id: ep.groupId,
      event: 'PreToolUse',
      tool_name: 'Bash',
      decision: 'deny',
      status: 'ran',
      managed: true,
      policy_revision: '1',
    });
    expect((row.rows[0] as { record: { seq: number } }).record.seq).toBe(5);
    const findings = await call(api.baseUrl, 'GET', `/v1/findings?endpointId=${ep.id}`, { token: auditor });
    expect(findings.body.items).toEqual([]);
  });

  it('re-sent batches create no duplicate rows', async () => {
    const ep = endpoints[1]!;
    const { lines } = chainedLines(10);
    expect((await upload(ep, lines)).status).toBe(202);
    await eventually(async () => (await countRows(ep.id)) === 10);
    expect((await upload(ep, lines, { gzip: false })).status).toBe(202);
    expect((await upload(ep, lines.slice(3, 7))).status).toBe(202);
    // Wait until both re-sent uploads have been ingested (a staged upload is deleted once stored), then count.
    await eventually(async () => {
      const r = await db.query('SELECT count(*)::int AS n FROM hook_run_uploads WHERE endpoint_id = $1', [ep.id]);
      return (r.rows[0] as { n: number }).n === 0;
    });
    expect(await countRows(ep.id)).toBe(10);
    // The hourly counts follow the rows actually inserted: re-sent records are not counted again.
    const sums = await db.query<{ rollup: number; runs: number }>(
      `SELECT (SELECT coalesce(sum(n), 0) FROM hook_run_hourly WHERE group_id = $1)::int AS rollup,
              (SELECT count(*) FROM hook_runs WHERE group_id = $1)::int AS runs`,
      [ep.groupId],
    );
    expect(sums.rows[0]!.runs).toBeGreaterThanOrEqual(10);
    expect(sums.rows[0]!.rollup).toBe(sums.rows[0]!.runs);
  });

  it('stores text with backslashes, tabs, newlines and quotes exactly (the bulk COPY path escapes them)', async () => {
    const [ep] = await keyedEndpoints(api, 1);
    const odd = 'C:\\tools\\x\ta "b"\nnext\r\\N';
    const rec = runRecord({ seq: 1, startedAt: new Date(), toolName: odd, sessionId: '\\N', stdout: odd });
    expect((await upload(ep!, [canonicalJson(rec)])).status).toBe(202);
    await eventually(async () => (await countRows(ep!.id)) === 1);
    const row = await db.query<{ tool_name: string; session_id: string; record: { stdout: { excerpt: string } } }>(
      'SELECT tool_name, session_id, record FROM hook_runs WHERE endpoint_id = $1',
      [ep!.id],
    );
    expect(row.rows[0]).toEqual({ tool_name: odd, session_id: '\\N', record: expect.objectContaining({}) });
    expect(row.rows[0]!.record.stdout.excerpt).toBe(odd);
    const rollup = await db.query<{ n: number }>(
      `SELECT sum(n)::int AS n FROM hook_run_hourly WHERE group_id = $1 AND event = 'PreToolUse'`,
      [ep!.groupId],
    );
    expect(rollup.rows[0]!.n).toBe(1);
  });

  it('rejects an invalid record with 400 naming the line and the field, storing nothing', async () => {
    const ep = endpoints[2]!;
    const { lines } = chainedLines(3);
    const bad = JSON.parse(lines[1]!) as Record<string, unknown>;
    bad.status = 'exploded';
    const res = await upload(ep, [lines[0]!, JSON.stringify(bad), lines[2]!]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.message).toMatch(/^line 2: \$\.status: /);
    const notJson = await upload(ep, [lines[0]!, '{oops']);
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.message).toMatch(/^line 2: invalid JSON/);
    expect(await countRows(ep.id)).toBe(0);
  });

  it('takes the endpoint from the credential, never from the body, and refuses other callers', async () => {
    const res = await call(api.baseUrl, 'POST', '/v1/agent/hook-runs', {
      token: auditor,
      body: [runRecord({ seq: 1 })],
    });
    expect(res.status).toBe(403);
    const anon = await call(api.baseUrl, 'POST', '/v1/agent/hook-runs', { body: [] });
    expect(anon.status).toBe(401);
    const ep = endpoints[3]!;
    const rec = { ...runRecord({ seq: 1 }), endpointId: endpoints[0]!.id };
    const ok = await ep.call('POST', '/v1/agent/hook-runs', { body: [rec] });
    expect(ok.status).toBe(202);
    await eventually(async () => (await countRows(ep.id)) === 1);
  });

  it('refuses a decompression bomb with 413 and an unknown encoding with 415', async () => {
    const ep = endpoints[3]!;
    const bomb = gzipSync(Buffer.alloc(5_000_000, 0x20));
    const res = await ep.call('POST', '/v1/agent/hook-runs', {
      headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(bomb.length).toBeLessThan(200_000);
    expect(res.status).toBe(413);
    const br = await ep.call('POST', '/v1/agent/hook-runs', {
      headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'br' },
      body: 'x',
    });
    expect(br.status).toBe(415);
    // Other routes keep their JSON parser.
    const health = await call(api.baseUrl, 'GET', '/healthz');
    expect(health.status).toBe(200);
  });
});

describe('chain continuity', () => {
  it('records a missing range when a record never arrives, and a broken link when a record was altered', async () => {
    const [ep] = await keyedEndpoints(api, 1);
    const { lines } = chainedLines(10);
    // seq 4 is lost; seq 8 was edited after the next record hashed it.
    const edited = JSON.parse(lines[7]!) as Record<string, unknown>;
    edited.decision = 'allow';
    const sent = [...lines.slice(0, 3), ...lines.slice(4, 7), JSON.stringify(edited), ...lines.slice(8)];
    expect((await upload(ep!, sent)).status).toBe(202);
    const findings = await eventually(async () => {
      const r = await call(api.baseUrl, 'GET', `/v1/findings?endpointId=${ep!.id}`, { token: auditor });
      return r.body.items.length >= 2
        ? (r.body.items as Array<{ kind: string; fromSeq: number; toSeq: number }>)
        : null;
    });
    const kinds = findings.map((f) => `${f.kind}:${f.fromSeq}-${f.toSeq}`).sort();
    // The gap hides the 3→5 link; the edit of seq 8 breaks the 8→9 link.
    expect(kinds).toEqual(['broken_link:8-9', 'missing_range:4-4']);
  });

  it('records records the spool dropped (cap reached) as a dropped finding, keeping the chain link', async () => {
    const [ep] = await keyedEndpoints(api, 1);
    const { lines, lastHash } = chainedLines(2);
    // The spool dropped seq 3..5; record 6 carries the gap and links to record 2 (the last one written).
    const next = canonicalJson(runRecord({ seq: 6, prevHash: lastHash, gap: { dropped: 3, fromSeq: 3, toSeq: 5 } }));
    expect((await upload(ep!, [...lines, next], { dropped: 3 })).status).toBe(202);
    const items = await eventually(async () => {
      const r = await call(api.baseUrl, 'GET', `/v1/findings?endpointId=${ep!.id}`, { token: auditor });
      return r.body.items.length ? (r.body.items as Array<{ kind: string; fromSeq: number; toSeq: number }>) : null;
    });
    expect(items).toEqual([expect.objectContaining({ kind: 'dropped', fromSeq: 3, toSeq: 5 })]);
  });
});
