// Auditor API over hook runs: filters, keyset pagination, one record, stats, top, export, roles.
import { canonicalJson, type RunRecord } from '@hookwarden/hook-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestRepository } from '../../apps/api/src/ingest/ingest.repository';
import { parseUpload } from '../../apps/api/src/ingest/ingest.parse';
import { startTestApi, type TestApi } from '../support/api';
import { auditorToken, createEndpoints, runRecord, type TestEndpoint } from '../support/audit-factories';
import { call } from '../support/http';

let api: TestApi;
let db: pg.Pool;
let auditor: string;
let eps: TestEndpoint[];
/** Every stored record with its group, for expected counts. */
const stored: Array<{ groupId: string; rec: RunRecord }> = [];
const base = Date.parse('2026-11-20T12:00:00.000Z');

// Stores records through the ingest repository (the worker's bulk insert: rows, chain and hourly counts).
async function insert(ep: TestEndpoint, records: RunRecord[]): Promise<void> {
  for (const rec of records) stored.push({ groupId: ep.groupId, rec });
  await api.app.get(IngestRepository).ingestBatch({
    endpointId: ep.id,
    groupId: ep.groupId,
    receivedAt: new Date().toISOString(),
    droppedTotal: null,
    rows: parseUpload({ kind: 'ndjson', text: records.map((r) => canonicalJson(r)).join('\n') }, records.length),
  });
}

beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Pool({ connectionString: api.db.url, max: 2 });
  auditor = await auditorToken(api);
  eps = [...(await createEndpoints(api.db.url, 2)), ...(await createEndpoints(api.db.url, 1))];
  // Endpoint 0: 30 runs one minute apart, every 3rd denied, every 5th skipped, every 7th failed.
  const recs = Array.from({ length: 30 }, (_, i) =>
    runRecord({
      seq: i + 1,
      startedAt: new Date(base + i * 60_000),
      decision: i % 3 === 0 ? 'deny' : 'allow',
      status: i % 5 === 0 ? 'skipped' : i % 7 === 0 ? 'failed' : 'ran',
      skipReason: i % 5 === 0 ? 'untrusted' : null,
      event: i % 2 === 0 ? 'PreToolUse' : 'PostToolUse',
      toolName: i % 4 === 0 ? 'Write' : 'Bash',
      hookKey: i % 7 === 0 ? 'hooks.json:pre_tool_use:0:0' : 'req.toml:pre_tool_use:0:0',
      managed: i % 2 === 0,
      sessionId: i < 10 ? 's-a' : 's-b',
      policyRevision: i < 15 ? '1' : '2',
    }),
  );
  await insert(eps[0]!, recs);
  await insert(eps[1]!, [runRecord({ seq: 1, startedAt: new Date(base), decision: 'deny' })]);
  await insert(eps[2]!, [runRecord({ seq: 1, startedAt: new Date(base + 86_400_000), event: 'Stop', toolName: null })]);
});

afterAll(async () => {
  await db?.end();
  await api?.close();
});

// Parses CSV as PostgreSQL's COPY writes it (quoted fields may hold quotes, commas and newlines).
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') field += text[++i]!;
      else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else field += ch;
  }
  return rows;
}

// GET with the auditor token.
const get = (path: string) => call(api.baseUrl, 'GET', path, { token: auditor });

describe('GET /v1/hook-runs', () => {
  it('pages through one endpoint newest first with an opaque cursor, without repeats or gaps', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/v1/hook-runs?endpointId=${eps[0]!.id}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...(res.body.items as Array<{ seq: number }>).map((i) => i.seq));
      cursor = res.body.nextCursor as string | null;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => 30 - i));
  });

  it('applies every filter', async () => {
    const ids = async (q: string) =>
      ((await get(`/v1/hook-runs?endpointId=${eps[0]!.id}&limit=200&${q}`)).body.items as Array<{ seq: number }>)
        .map((i) => i.seq)
        .sort((a, b) => a - b);
    const all = Array.from({ length: 30 }, (_, i) => i);
    const expectSeqs = (pred: (i: number) => boolean) => all.filter(pred).map((i) => i + 1);
    expect(await ids('decision=deny')).toEqual(expectSeqs((i) => i % 3 === 0));
    expect(await ids('status=skipped&skipReason=untrusted')).toEqual(expectSeqs((i) => i % 5 === 0));
    expect(await ids('status=failed,timed_out')).toEqual(expectSeqs((i) => i % 5 !== 0 && i % 7 === 0));
    expect(await ids('event=PostToolUse')).toEqual(expectSeqs((i) => i % 2 === 1));
    expect(await ids('toolName=Write')).toEqual(expectSeqs((i) => i % 4 === 0));
    expect(await ids('hookKey=hooks.json:pre_tool_use:0:0')).toEqual(expectSeqs((i) => i % 7 === 0));
    expect(await ids(`hookHash=sha256:${'cd'.repeat(32)}`)).toHaveLength(30);
    expect(await ids('managed=false')).toEqual(expectSeqs((i) => i % 2 === 1));
    expect(await ids('policyRevision=2')).toEqual(expectSeqs((i) => i >= 15));
    expect(await ids(`policyDigest=sha256:${'ab'.repeat(32)}`)).toHaveLength(30);
    expect(await ids('sessionId=s-a')).toEqual(expectSeqs((i) => i < 10));
    const from = new Date(base + 10 * 60_000).toISOString();
    const to = new Date(base + 20 * 60_000).toISOString();
    expect(await ids(`from=${from}&to=${to}`)).toEqual(expectSeqs((i) => i >= 10 && i < 20));
    const group = await get(`/v1/hook-runs?groupId=${eps[0]!.groupId}&decision=deny&limit=200`);
    expect(group.body.items).toHaveLength(11); // 10 on endpoint 0 + 1 on endpoint 1, none from the other group
    const other = await get(`/v1/hook-runs?groupId=${eps[2]!.groupId}`);
    expect((other.body.items as Array<{ event: string }>).map((i) => i.event)).toEqual(['Stop']);
  });

  it('returns one record by id, 404 for an unknown id, 400 for a bad cursor or filter', async () => {
    const page = await get(`/v1/hook-runs?endpointId=${eps[1]!.id}`);
    const id = (page.body.items as Array<{ id: string }>)[0]!.id;
    const one = await get(`/v1/hook-runs/${id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id, endpointId: eps[1]!.id, decision: 'deny', record: { id } });
    expect((await get('/v1/hook-runs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const bad = await get('/v1/hook-runs?cursor=nope');
    expect(bad.status).toBe(400);
    expect((await get('/v1/hook-runs?status=exploded')).status).toBe(400);
    expect((await get('/v1/hook-runs?limit=10000')).status).toBe(400);
  });

  it('is open to auditors and admins only', async () => {
    expect((await call(api.baseUrl, 'GET', '/v1/hook-runs', { token: api.adminToken })).status).toBe(200);
    expect((await call(api.baseUrl, 'GET', '/v1/hook-runs')).status).toBe(401);
    expect((await call(api.baseUrl, 'GET', '/v1/hook-runs', { token: eps[0]!.credential })).status).toBe(403);
  });
});

describe('aggregates', () => {
  it('counts by event, decision and status per hour and per day', async () => {
    const from = new Date(base - 3_600_000).toISOString();
    const to = new Date(base + 2 * 86_400_000).toISOString();
    const day = await get(`/v1/hook-runs/stats?bucket=day&groupId=${eps[0]!.groupId}&from=${from}&to=${to}`);
    expect(day.status).toBe(200);
    expect(day.body.buckets).toHaveLength(1);
    const b = day.body.buckets[0];
    expect(b.start).toBe('2026-11-20T00:00:00.000Z');
    expect(b.total).toBe(31);
    expect(b.byEvent).toEqual({ PreToolUse: 16, PostToolUse: 15 });
    expect(b.byDecision).toEqual({ deny: 11, allow: 20 });
    expect(b.byStatus).toEqual({ ran: 21, skipped: 6, failed: 4 });
    const hour = await get(`/v1/hook-runs/stats?bucket=hour&endpointId=${eps[0]!.id}&from=${from}&to=${to}`);
    expect((hour.body.buckets as Array<{ total: number }>).map((x) => x.total)).toEqual([30]);
    const all = await get(`/v1/hook-runs/stats?bucket=day&from=${from}&to=${to}`);
    expect((all.body.buckets as Array<{ total: number }>).map((x) => x.total)).toEqual([31, 1]);
  });

  it('answers the same from the hourly rollup as from the runs, for whole and partial hours and any filters', async () => {
    const min = 60_000;
    const at = (ms: number) => new Date(base + ms).toISOString();
    const cases: Array<Record<string, string>> = [
      { from: at(-60 * min), to: at(2 * 86_400_000) }, // whole hours only: the rollup
      { from: at(7.5 * min), to: at(21.5 * min) }, // inside one hour: the runs
      { from: at(-30 * min), to: at(86_400_000 + 10 * min) }, // whole hours plus partial ends
      { from: at(10 * min) }, // open end
      { to: at(20 * min) }, // open start
      { from: at(-5 * min), groupId: eps[0]!.groupId, event: 'PreToolUse', decision: 'deny' },
      { from: at(3 * min), to: at(3 * 3_600_000), status: 'failed,skipped' },
      { from: at(-60 * min), toolName: 'Write' }, // a filter the rollup cannot answer
    ];
    for (const c of cases) {
      const res = await get(`/v1/hook-runs/stats?bucket=hour&${new URLSearchParams(c).toString()}`);
      expect(res.status).toBe(200);
      const got: Record<string, number> = {};
      for (const b of res.body.buckets as Array<{ start: string; total: number }>) got[b.start] = b.total;
      const want: Record<string, number> = {};
      for (const { groupId, rec } of stored) {
        const t = Date.parse(rec.startedAt!);
        if (c.from && t < Date.parse(c.from)) continue;
        if (c.to && t >= Date.parse(c.to)) continue;
        if (c.groupId && groupId !== c.groupId) continue;
        if (c.event && rec.event !== c.event) continue;
        if (c.decision && rec.decision !== c.decision) continue;
        if (c.status && !c.status.split(',').includes(rec.status)) continue;
        if (c.toolName && rec.matcherInput !== c.toolName) continue;
        const hour = new Date(Math.floor(t / 3_600_000) * 3_600_000).toISOString();
        want[hour] = (want[hour] ?? 0) + 1;
      }
      expect({ case: c, counts: got }).toEqual({ case: c, counts: want });
    }
  });

  it('lists the top failing and blocking hooks', async () => {
    const from = new Date(base - 3_600_000).toISOString();
    const failing = await get(`/v1/hook-runs/top?kind=failing&from=${from}`);
    expect(failing.status).toBe(200);
    expect(failing.body.items).toEqual([
      expect.objectContaining({ hookKey: 'hooks.json:pre_tool_use:0:0', count: 4, endpoints: 1 }),
    ]);
    const blocking = await get(`/v1/hook-runs/top?kind=blocking&from=${from}`);
    const top = blocking.body.items as Array<{ count: number; endpoints: number }>;
    expect(top.reduce((n, i) => n + i.count, 0)).toBe(11);
    expect(top).toContainEqual(
      expect.objectContaining({ hookKey: '/etc/zerotwo/requirements.toml:pre_tool_use:0:0', count: 1, endpoints: 1 }),
    );
  });
});

describe('GET /v1/hook-runs/export', () => {
  it('exports the filtered runs as NDJSON (full records) and CSV (columns)', async () => {
    const nd = await fetch(`${api.baseUrl}/v1/hook-runs/export?format=ndjson&endpointId=${eps[0]!.id}&decision=deny`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    expect(nd.status).toBe(200);
    expect(nd.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await nd.text()).trim().split('\n');
    expect(lines).toHaveLength(10);
    const recs = lines.map((l) => JSON.parse(l) as { seq: number; decision: string; stdout: unknown });
    expect(recs.map((r) => r.seq)).toEqual([1, 4, 7, 10, 13, 16, 19, 22, 25, 28]);
    expect(recs.every((r) => r.decision === 'deny')).toBe(true);
    const csv = await fetch(`${api.baseUrl}/v1/hook-runs/export?format=csv&endpointId=${eps[0]!.id}&status=failed`, {
      headers: { authorization: `Bearer ${auditor}` },
    });
    expect(csv.status).toBe(200);
    const rows = (await csv.text()).trim().split('\n');
    expect(rows[0]).toMatch(/^id,started_at,received_at,endpoint_id,group_id,seq,event/);
    expect(rows).toHaveLength(5);
  });

  it('CSV prefixes endpoint text that a spreadsheet would run as a formula with a quote; NDJSON is verbatim', async () => {
    const [ep] = await createEndpoints(api.db.url, 1);
    const formula = '=HYPERLINK("http://x")';
    const rec = runRecord({
      seq: 1,
      startedAt: new Date(base + 2 * 86_400_000),
      toolName: formula,
      sessionId: '@SUM(A1)',
      status: 'skipped',
      skipReason: '-2+3',
      decision: 'deny',
    });
    await insert(ep!, [rec]);
    await db.query(`UPDATE hook_runs SET exit_code = -1, turn_id = $2, signal = $3 WHERE endpoint_id = $1`, [
      ep!.id,
      '\tcmd',
      '+SIGTERM',
    ]);
    const headers = { authorization: `Bearer ${auditor}` };
    const csv = await fetch(`${api.baseUrl}/v1/hook-runs/export?format=csv&endpointId=${ep!.id}`, { headers });
    const text = await csv.text();
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    const [head, row, ...more] = parseCsv(text);
    expect(more).toEqual([]);
    const got = Object.fromEntries(head!.map((h, i) => [h, row![i]]));
    expect(got).toMatchObject({
      tool_name: `'${formula}`,
      session_id: "'@SUM(A1)",
      skip_reason: "'-2+3",
      turn_id: "'\tcmd",
      signal: "'+SIGTERM",
      exit_code: '-1',
      duration_ms: '12',
      decision: 'deny',
      status: 'skipped',
      hook_key: rec.hook.key,
      policy_revision: '1',
      id: rec.id,
    });
    const nd = await fetch(`${api.baseUrl}/v1/hook-runs/export?format=ndjson&endpointId=${ep!.id}`, { headers });
    const exported = JSON.parse(await nd.text()) as RunRecord;
    expect(exported).toMatchObject({ matcherInput: formula, sessionId: '@SUM(A1)', skipReason: '-2+3' });
  });

  it('CSV has ISO-8601 UTC times, true/false, and the reason, error and tool command; both filter by command', async () => {
    const [ep] = await createEndpoints(api.db.url, 1);
    const at = new Date(base + 3 * 86_400_000 + 537);
    const denied = {
      ...runRecord({ seq: 1, startedAt: at, decision: 'deny', managed: false }),
      reason: 'rm is not allowed, "ever"',
      toolCall: { name: 'Bash', command: 'sudo rm -rf 100%_done', commandSha256: 'a'.repeat(64) },
    };
    const failed = {
      ...runRecord({ seq: 2, startedAt: new Date(at.getTime() + 1), status: 'failed' }),
      error: 'exit 1',
      toolCall: { name: 'Bash', command: 'ls -la' },
    };
    const skipped = runRecord({
      seq: 3,
      startedAt: new Date(at.getTime() + 2),
      status: 'skipped',
      skipReason: 'allow_managed_hooks_only',
    });
    await insert(ep!, [denied, failed, skipped] as RunRecord[]);
    const headers = { authorization: `Bearer ${auditor}` };
    const csv = await fetch(`${api.baseUrl}/v1/hook-runs/export?format=csv&endpointId=${ep!.id}`, { headers });
    const [head, ...rows] = parseCsv(await csv.text());
    const got = rows.map((row) => Object.fromEntries(head!.map((h, i) => [h, row[i]])));
    expect(head).toEqual(expect.arrayContaining(['tool_command', 'reason', 'error', 'escaped']));
    expect(got[0]).toMatchObject({
      started_at: at.toISOString(),
      managed: 'false',
      timed_out: 'false',
      reason: 'rm is not allowed, "ever"',
      tool_command: 'sudo rm -rf 100%_done',
      error: '',
    });
    expect(got[0]!.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(got[1]).toMatchObject({ error: 'exit 1', tool_command: 'ls -la', managed: 'true' });
    // Substring of the command, case-insensitive; LIKE wildcards in the filter match literally.
    const q = (query: string) =>
      call(api.baseUrl, 'GET', `/v1/hook-runs?endpointId=${ep!.id}&${query}`, { token: auditor });
    expect((await q('toolCommand=RM%20-RF')).body.items.map((i: { seq: number }) => i.seq)).toEqual([1]);
    expect(
      (await q(`toolCommand=${encodeURIComponent('100%_')}`)).body.items.map((i: { seq: number }) => i.seq),
    ).toEqual([1]);
    expect((await q(`toolCommand=${encodeURIComponent('%')}`)).body.items.map((i: { seq: number }) => i.seq)).toEqual([
      1,
    ]);
    expect((await q('toolCommand=_')).body.items.map((i: { seq: number }) => i.seq)).toEqual([1]);
    expect((await q('toolCommand=zzz')).body.items).toEqual([]);
    const bySkip = await q('skipReason=allow_managed_hooks_only');
    expect(bySkip.body.items.map((i: { seq: number; toolCommand: string | null }) => [i.seq, i.toolCommand])).toEqual([
      [3, null],
    ]);
    const nd = await fetch(
      `${api.baseUrl}/v1/hook-runs/export?format=ndjson&endpointId=${ep!.id}&toolCommand=${encodeURIComponent('ls -')}`,
      { headers },
    );
    const lines = (await nd.text()).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([2]);
  });

  it('streams a large page: the same JSON shape, newest first, with a cursor to the rest', async () => {
    const [ep] = await createEndpoints(api.db.url, 1);
    const t0 = base + 5 * 86_400_000;
    await insert(
      ep!,
      Array.from({ length: 130 }, (_, i) => runRecord({ seq: i + 1, startedAt: new Date(t0 + i * 1000) })),
    );
    const res = await call(api.baseUrl, 'GET', `/v1/hook-runs?endpointId=${ep!.id}&limit=120`, { token: auditor });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body.items.map((i: { seq: number }) => i.seq)).toEqual(Array.from({ length: 120 }, (_, i) => 130 - i));
    expect(res.body.items[0].record.seq).toBe(130);
    const rest = await call(
      api.baseUrl,
      'GET',
      `/v1/hook-runs?endpointId=${ep!.id}&limit=120&cursor=${encodeURIComponent(res.body.nextCursor)}`,
      { token: auditor },
    );
    expect(rest.body.items.map((i: { seq: number }) => i.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 10 - i));
    expect(rest.body.nextCursor).toBeNull();
  });
});
